// Package akv keeps Coyote's secrets in Azure Key Vault with the official
// SDK (azsecrets, azidentity). The vault is vault_name
// (https://<vault_name>.vault.azure.net) or vault_url; credentials are
// azidentity's DefaultAzureCredential: the AZURE_* variables of a service
// principal, workload or managed identity, or the Azure CLI after az login.
//
// Key Vault names allow letters, digits and dashes only, so a secret NAME
// is kept as NAME with each "_" written "-" (OPENAI_API_KEY is
// OPENAI-API-KEY), and read back the other way. Key Vault has no batched
// read: Get reads the secrets concurrently, so a run's secrets cost one
// round trip. Delete deletes the secret and then purges it when allowed,
// so that its name can be used again (without purge permission it stays
// recoverable, as Key Vault's soft delete keeps it).
package akv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/security/keyvault/azsecrets"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

// Info describes the plugin.
var Info = sdk.Info{Name: "azure", Version: "0.1.0", Description: "secrets in Azure Key Vault"}

const callTimeout = 30 * time.Second

// Vault is the Azure Key Vault secrets provider.
type Vault struct {
	opts azcore.ClientOptions

	mu     sync.Mutex
	client *azsecrets.Client
	url    string
}

// New returns the provider; Configure sets it up.
func New() *Vault { return &Vault{} }

// NewWith is New with client options for the credential and the Key Vault
// client (a transport, retries).
func NewWith(opts azcore.ClientOptions) *Vault { return &Vault{opts: opts} }

// Configure takes the original's setting vault_name, or vault_url
// (Coyote's: a vault of another Azure cloud, or a private endpoint).
func (v *Vault) Configure(_ context.Context, req *vault.ConfigureRequest) error {
	var name, vaultURL string
	for k, val := range req.Settings {
		switch k {
		case "vault_name":
			name = val
		case "vault_url":
			vaultURL = val
		default:
			return fmt.Errorf("secrets_provider azure_key_vault: unknown setting %q (it takes vault_name or vault_url): %w", k, sdk.ErrInvalidArgument)
		}
	}
	switch {
	case name != "" && vaultURL != "":
		return fmt.Errorf("secrets_provider azure_key_vault: set vault_name or vault_url, not both: %w", sdk.ErrInvalidArgument)
	case name != "":
		vaultURL = "https://" + name + ".vault.azure.net"
	case vaultURL == "":
		return fmt.Errorf("secrets_provider azure_key_vault: set vault_name (the Key Vault's name): %w", sdk.ErrInvalidArgument)
	}
	u, err := url.Parse(vaultURL)
	if err != nil || u.Host == "" {
		return fmt.Errorf("secrets_provider azure_key_vault: vault_url %q is not a URL: %w", vaultURL, sdk.ErrInvalidArgument)
	}
	// A custom authority host (a private or disconnected cloud) is one
	// instance discovery cannot know.
	cred, err := azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{
		ClientOptions:            v.opts,
		DisableInstanceDiscovery: os.Getenv("AZURE_AUTHORITY_HOST") != "",
	})
	if err != nil {
		return fmt.Errorf("Azure Key Vault: no Azure credentials: %v (run az login, or set AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET): %w", firstLine(err.Error()), sdk.ErrUnauthenticated)
	}
	// The challenge's resource must match the vault's domain, which only
	// Azure's own vault domains do.
	azureDomain := strings.HasSuffix(u.Hostname(), ".azure.net") || strings.HasSuffix(u.Hostname(), ".azure.cn") || strings.HasSuffix(u.Hostname(), ".usgovcloudapi.net")
	client, err := azsecrets.NewClient(vaultURL, cred, &azsecrets.ClientOptions{ClientOptions: v.opts, DisableChallengeResourceVerification: !azureDomain})
	if err != nil {
		return fmt.Errorf("Azure Key Vault %s: %v: %w", vaultURL, err, sdk.ErrInvalidArgument)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.client, v.url = client, vaultURL
	return nil
}

func (v *Vault) kv() (*azsecrets.Client, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.client == nil {
		return nil, fmt.Errorf("Azure Key Vault: not configured: %w", sdk.ErrFailedPrecondition)
	}
	return v.client, nil
}

// kvName is a secret's name in Key Vault.
func kvName(name string) string { return strings.ReplaceAll(name, "_", "-") }

// coyoteName is the name of a Key Vault secret in Coyote.
func coyoteName(kv string) string { return strings.ReplaceAll(kv, "-", "_") }

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// fail makes an SDK error one line naming the secret and what to do.
func (v *Vault) fail(op, name string, err error) error {
	subject := "Azure Key Vault " + v.url + " " + op
	if name != "" {
		subject += " " + name
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		switch {
		case re.StatusCode == 404:
			return fmt.Errorf("%s: the secret does not exist: %w", subject, sdk.ErrNotFound)
		case re.StatusCode == 401:
			return fmt.Errorf("%s: not signed in (run az login, or check AZURE_CLIENT_ID and AZURE_CLIENT_SECRET): %w", subject, sdk.ErrUnauthenticated)
		case re.StatusCode == 403:
			return fmt.Errorf("%s: access denied (%s): the identity needs a Key Vault secrets role or access policy: %w", subject, re.ErrorCode, sdk.ErrPermissionDenied)
		case re.StatusCode == 409:
			return fmt.Errorf("%s: a deleted secret of that name is kept by soft delete: recover or purge it (az keyvault secret recover/purge): %w", subject, sdk.ErrFailedPrecondition)
		}
		return fmt.Errorf("%s: HTTP %d %s: %w", subject, re.StatusCode, re.ErrorCode, sdk.ErrUnavailable)
	}
	var authErr *azidentity.AuthenticationFailedError
	if errors.As(err, &authErr) || strings.Contains(err.Error(), "DefaultAzureCredential") {
		return fmt.Errorf("%s: cannot get an Azure token (run az login, or check the AZURE_* credentials): %w", subject, sdk.ErrUnauthenticated)
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: cannot reach the vault: %s (check the network and vault_name): %w", subject, firstLine(err.Error()), sdk.ErrUnavailable)
	}
	return fmt.Errorf("%s: %s: %w", subject, firstLine(err.Error()), sdk.ErrUnavailable)
}

// Get reads the secrets concurrently.
func (v *Vault) Get(ctx context.Context, req *vault.GetRequest) (*vault.GetResponse, error) {
	c, err := v.kv()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return vault.GetEach(ctx, req.Names, func(ctx context.Context, n string) (string, bool, error) {
		resp, err := c.GetSecret(ctx, kvName(n), "", nil)
		var re *azcore.ResponseError
		switch {
		case errors.As(err, &re) && re.StatusCode == 404:
			return "", false, nil
		case err != nil:
			return "", false, v.fail("get", n, err)
		case resp.Value != nil:
			return *resp.Value, true, nil
		}
		return "", true, nil
	})
}

func (v *Vault) exists(ctx context.Context, c *azsecrets.Client, name string) (bool, error) {
	_, err := c.GetSecret(ctx, kvName(name), "", nil)
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.StatusCode == 404 {
		return false, nil
	}
	if err != nil {
		return false, v.fail("get", name, err)
	}
	return true, nil
}

func (v *Vault) put(ctx context.Context, req *vault.SetRequest, mustExist bool) error {
	c, err := v.kv()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	ok, err := v.exists(ctx, c, req.Name)
	switch {
	case err != nil:
		return err
	case ok && !mustExist:
		return fmt.Errorf("Azure Key Vault %s add %s: the secret exists already: %w", v.url, req.Name, sdk.ErrFailedPrecondition)
	case !ok && mustExist:
		return fmt.Errorf("Azure Key Vault %s update %s: the secret does not exist: %w", v.url, req.Name, sdk.ErrNotFound)
	}
	op := "add"
	if mustExist {
		op = "update"
	}
	if _, err := c.SetSecret(ctx, kvName(req.Name), azsecrets.SetSecretParameters{Value: &req.Value}, nil); err != nil {
		return v.fail(op, req.Name, err)
	}
	return nil
}

// Set creates a secret.
func (v *Vault) Set(ctx context.Context, req *vault.SetRequest) error { return v.put(ctx, req, false) }

// Update adds a new version of an existing secret.
func (v *Vault) Update(ctx context.Context, req *vault.SetRequest) error {
	return v.put(ctx, req, true)
}

// Delete deletes a secret, then purges it when the identity may.
func (v *Vault) Delete(ctx context.Context, req *vault.DeleteRequest) error {
	c, err := v.kv()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := c.DeleteSecret(ctx, kvName(req.Name), nil); err != nil {
		return v.fail("delete", req.Name, err)
	}
	// Purging needs the deletion to have finished, and the purge
	// permission; without it the secret stays recoverable.
	for range 10 {
		_, err := c.PurgeDeletedSecret(ctx, kvName(req.Name), nil)
		var re *azcore.ResponseError
		if err == nil || !errors.As(err, &re) || re.StatusCode != 409 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	return nil
}

// List returns the names of the secrets.
func (v *Vault) List(ctx context.Context) ([]string, error) {
	c, err := v.kv()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var names []string
	p := c.NewListSecretPropertiesPager(nil)
	for p.More() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, v.fail("list", "", err)
		}
		for _, s := range page.Value {
			if s.ID != nil {
				names = append(names, coyoteName(s.ID.Name()))
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

var (
	_ vault.Setter  = (*Vault)(nil)
	_ vault.Updater = (*Vault)(nil)
	_ vault.Deleter = (*Vault)(nil)
	_ vault.Lister  = (*Vault)(nil)
)
