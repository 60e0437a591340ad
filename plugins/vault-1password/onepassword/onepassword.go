// Package onepassword keeps Coyote's secrets in 1Password through the op
// command-line tool (installed and signed in: op signin, or a service
// account's OP_SERVICE_ACCOUNT_TOKEN): a secret NAME is the Password item
// titled NAME, its value the item's password field, in the vault and
// account of the settings (op's defaults when unset).
//
// A value reaches op as a JSON item template on its standard input and
// comes back on its standard output, never on its command line. Get lists
// the items once, then reads each secret that exists. op has no command
// that replaces a password from standard input, so Update deletes the
// item and creates it again (1Password keeps the deleted item in its
// archive).
package onepassword

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

// Info describes the plugin.
var Info = sdk.Info{Name: "1password", Version: "0.1.0", Description: "secrets in 1Password (the op command)"}

// Vault is the 1Password secrets provider.
type Vault struct {
	mu             sync.Mutex
	vault, account string
	bin            string
}

// New returns the provider; Configure sets it up.
func New() *Vault { return &Vault{bin: "op"} }

// Configure takes the original's settings: vault and account (both
// optional).
func (v *Vault) Configure(_ context.Context, req *vault.ConfigureRequest) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	for k, val := range req.Settings {
		switch k {
		case "vault":
			v.vault = val
		case "account":
			v.account = val
		default:
			return fmt.Errorf("secrets_provider one_password: unknown setting %q (it takes vault and account): %w", k, sdk.ErrInvalidArgument)
		}
	}
	if _, err := exec.LookPath(v.bin); err != nil {
		return fmt.Errorf("1Password: the op command is not installed (or not on PATH): install the 1Password CLI and run op signin: %w", sdk.ErrFailedPrecondition)
	}
	return nil
}

// where are the --vault and --account flags of every command.
func (v *Vault) where() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []string
	if v.vault != "" {
		out = append(out, "--vault", v.vault)
	}
	if v.account != "" {
		out = append(out, "--account", v.account)
	}
	return out
}

// run runs op with args (then the vault and account flags) and stdin.
func (v *Vault) run(ctx context.Context, what string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, v.bin, append(args, v.where()...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(errOut.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		low := strings.ToLower(msg)
		kind, hint := sdk.ErrUnavailable, "check that op works: op vault list"
		switch {
		case strings.Contains(low, "isn't an item") || strings.Contains(low, "not found"):
			kind, hint = sdk.ErrNotFound, "check the vault setting"
		case strings.Contains(low, "sign in") || strings.Contains(low, "signin") || strings.Contains(low, "session expired") || strings.Contains(low, "not currently signed in"):
			kind, hint = sdk.ErrUnauthenticated, "run op signin"
		}
		return nil, fmt.Errorf("1Password %s: %s (%s): %w", what, msg, hint, kind)
	}
	return out.Bytes(), nil
}

type item struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// titles returns the titles of the Password items, by title.
func (v *Vault) titles(ctx context.Context) (map[string]string, error) {
	out, err := v.run(ctx, "item list", nil, "item", "list", "--categories", "Password", "--format", "json")
	if err != nil {
		return nil, err
	}
	var items []item
	if err := json.Unmarshal(out, &items); err != nil {
		return nil, fmt.Errorf("1Password item list: unexpected output from op: %w", sdk.ErrBadResponse)
	}
	m := make(map[string]string, len(items))
	for _, it := range items {
		m[it.Title] = it.ID
	}
	return m, nil
}

// Get lists the items once, then reads the password of each wanted one.
func (v *Vault) Get(ctx context.Context, req *vault.GetRequest) (*vault.GetResponse, error) {
	have, err := v.titles(ctx)
	if err != nil {
		return nil, err
	}
	resp := &vault.GetResponse{Values: map[string]string{}}
	for _, n := range req.Names {
		id, ok := have[n]
		if !ok {
			resp.Missing = append(resp.Missing, n)
			continue
		}
		out, err := v.run(ctx, "item get "+n, nil, "item", "get", id, "--fields", "label=password", "--reveal")
		if errors.Is(err, sdk.ErrNotFound) {
			resp.Missing = append(resp.Missing, n)
			continue
		}
		if err != nil {
			return nil, err
		}
		resp.Values[n] = strings.TrimSuffix(strings.TrimSuffix(string(out), "\n"), "\r")
	}
	return resp, nil
}

// template is the JSON item op item create reads from standard input.
func template(name, value string) []byte {
	b, _ := json.Marshal(map[string]any{
		"title":    name,
		"category": "PASSWORD",
		"fields": []map[string]string{{
			"id": "password", "type": "CONCEALED", "purpose": "PASSWORD", "label": "password", "value": value,
		}},
	})
	return b
}

func (v *Vault) create(ctx context.Context, req *vault.SetRequest) error {
	_, err := v.run(ctx, "item create "+req.Name, template(req.Name, req.Value), "item", "create", "--format", "json")
	return err
}

// Set creates a Password item; an existing title is refused.
func (v *Vault) Set(ctx context.Context, req *vault.SetRequest) error {
	have, err := v.titles(ctx)
	if err != nil {
		return err
	}
	if _, ok := have[req.Name]; ok {
		return fmt.Errorf("1Password: secret %s exists already: %w", req.Name, sdk.ErrFailedPrecondition)
	}
	return v.create(ctx, req)
}

// Update replaces an item: op cannot take a new password on standard
// input, so the item is deleted (archived) and created again.
func (v *Vault) Update(ctx context.Context, req *vault.SetRequest) error {
	have, err := v.titles(ctx)
	if err != nil {
		return err
	}
	id, ok := have[req.Name]
	if !ok {
		return fmt.Errorf("1Password: secret %s does not exist: %w", req.Name, sdk.ErrNotFound)
	}
	if _, err := v.run(ctx, "item delete "+req.Name, nil, "item", "delete", id, "--archive"); err != nil {
		return err
	}
	return v.create(ctx, req)
}

// Delete removes an item.
func (v *Vault) Delete(ctx context.Context, req *vault.DeleteRequest) error {
	have, err := v.titles(ctx)
	if err != nil {
		return err
	}
	id, ok := have[req.Name]
	if !ok {
		return fmt.Errorf("1Password: secret %s does not exist: %w", req.Name, sdk.ErrNotFound)
	}
	_, err = v.run(ctx, "item delete "+req.Name, nil, "item", "delete", id)
	return err
}

// List returns the titles of the Password items.
func (v *Vault) List(ctx context.Context) ([]string, error) {
	have, err := v.titles(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(have))
	for n := range have {
		names = append(names, n)
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
