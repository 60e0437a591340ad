package plugins

import (
	"context"
	"fmt"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

// vaultKind declares secrets provider plugins, coyote-vault-<name>. The
// setup each process is given is the secrets_provider settings.
var vaultKind = Declare(&Kind[vault.Client, vault.ConfigureRequest]{
	Name:   sdk.KindVault,
	Noun:   "a secrets provider",
	Plugin: vault.Plugin(nil),
	Replay: func(ctx context.Context, c vault.Client, _ string, req vault.ConfigureRequest) error {
		return c.Configure(ctx, &req)
	},
	// The credentials and configuration of the services and tools the
	// providers use: AWS (profile, keys, region, endpoints), Google
	// (application default credentials), Azure (service principal,
	// managed identity), gopass and its GnuPG, 1Password's op.
	EnvPrefixes: []string{
		"AWS_", "GOOGLE_", "CLOUDSDK_", "GCE_METADATA_",
		"AZURE_", "IDENTITY_ENDPOINT", "IDENTITY_HEADER", "MSI_ENDPOINT", "MSI_SECRET",
		"GOPASS_", "PASSWORD_STORE_", "GNUPGHOME", "GPG_",
		"OP_",
	},
})

// vaultSettings is the key of a secrets provider's one piece of setup.
const vaultSettings = "settings"

// Vault is the kernel's supervised handle on a secrets provider plugin.
// It implements vault.Client: the settings are given to each process
// before its first request (again after a restart), and an operation the
// plugin does not announce is refused with a readable sdk.ErrUnsupported
// before it is sent.
type Vault struct {
	h *Handle[vault.Client, vault.ConfigureRequest]
}

// Vault returns the handle of the secrets provider plugin of a name,
// without starting it.
func (h *Host) Vault(name string) (*Vault, error) {
	hd, err := handleOf(h, vaultKind, name)
	if err != nil {
		return nil, err
	}
	return typedHandle(hd, func(hd *Handle[vault.Client, vault.ConfigureRequest]) *Vault { return &Vault{h: hd} }), nil
}

// Plugin is the supervised plugin behind the handle.
func (v *Vault) Plugin() *Plugin { return v.h.Plugin() }

// Configure records the settings; they are sent before the next request.
func (v *Vault) Configure(_ context.Context, req *vault.ConfigureRequest) error {
	v.h.Remember(vaultSettings, *req)
	return nil
}

// Get asks for the named secrets in one request.
func (v *Vault) Get(ctx context.Context, req *vault.GetRequest) (resp *vault.GetResponse, err error) {
	err = v.h.CallFor(ctx, vaultSettings, func(_ *Process, c vault.Client) error {
		resp, err = c.Get(ctx, req)
		return err
	})
	return resp, err
}

// Has reports whether the plugin announces capability c (starting it).
func (v *Vault) Has(ctx context.Context, c string) (has bool, err error) {
	err = v.h.CallFor(ctx, vaultSettings, func(proc *Process, _ vault.Client) error {
		has = proc.Description().Has(c)
		return nil
	})
	return has, err
}

// with runs fn once the plugin is set up, if it announces capability
// capab; what says what the operation is in the refusal.
func (v *Vault) with(ctx context.Context, capab, what string, fn func(vault.Client) error) error {
	return v.h.CallFor(ctx, vaultSettings, func(proc *Process, c vault.Client) error {
		if !proc.Description().Has(capab) {
			return fmt.Errorf("the secrets provider %s cannot %s secrets: %w", v.Plugin().Binary, what, sdk.ErrUnsupported)
		}
		return fn(c)
	})
}

// Set creates a secret.
func (v *Vault) Set(ctx context.Context, req *vault.SetRequest) error {
	return v.with(ctx, vault.CapSet, "add", func(c vault.Client) error { return c.Set(ctx, req) })
}

// Update changes a secret.
func (v *Vault) Update(ctx context.Context, req *vault.SetRequest) error {
	return v.with(ctx, vault.CapUpdate, "update", func(c vault.Client) error { return c.Update(ctx, req) })
}

// Delete removes a secret.
func (v *Vault) Delete(ctx context.Context, req *vault.DeleteRequest) error {
	return v.with(ctx, vault.CapDelete, "delete", func(c vault.Client) error { return c.Delete(ctx, req) })
}

// List lists the secrets' names.
func (v *Vault) List(ctx context.Context) (names []string, err error) {
	err = v.with(ctx, vault.CapList, "list", func(c vault.Client) error {
		names, err = c.List(ctx)
		return err
	})
	return names, err
}

var _ vault.Client = (*Vault)(nil)
