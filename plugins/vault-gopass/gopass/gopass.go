// Package gopass keeps Coyote's secrets in gopass, through the gopass
// command-line tool (which must be installed and initialised): a secret
// NAME is the gopass entry NAME, or <store>/NAME with the store setting.
//
// A value is given to gopass on its standard input and read from its
// standard output, never on its command line. gopass keeps the first line
// of an entry as its password, so a value must be one line. gopass has no
// batched read: Get lists the entries once, then reads each secret that
// exists.
package gopass

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

// Info describes the plugin.
var Info = sdk.Info{Name: "gopass", Version: "0.1.0", Description: "secrets in gopass (the gopass command)"}

// Vault is the gopass secrets provider.
type Vault struct {
	mu    sync.Mutex
	store string
	bin   string
}

// New returns the provider; Configure sets it up.
func New() *Vault { return &Vault{bin: "gopass"} }

// Configure takes the original's setting: store (optional).
func (v *Vault) Configure(_ context.Context, req *vault.ConfigureRequest) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	for k, val := range req.Settings {
		switch k {
		case "store":
			v.store = strings.Trim(val, "/")
		default:
			return fmt.Errorf("secrets_provider gopass: unknown setting %q (gopass takes store): %w", k, sdk.ErrInvalidArgument)
		}
	}
	if _, err := exec.LookPath(v.bin); err != nil {
		return fmt.Errorf("gopass: the gopass command is not installed (or not on PATH): install it and run gopass init: %w", sdk.ErrFailedPrecondition)
	}
	return nil
}

func (v *Vault) path(name string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.store == "" {
		return name
	}
	return v.store + "/" + name
}

// run runs gopass with args and stdin, returning its standard output. A
// failure is one line naming the secret, with gopass's own first line.
func (v *Vault) run(ctx context.Context, what string, stdin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, v.bin, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(errOut.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		kind := sdk.ErrUnavailable
		if strings.Contains(strings.ToLower(msg), "not found") || strings.Contains(strings.ToLower(msg), "does not exist") {
			kind = sdk.ErrNotFound
		}
		return nil, fmt.Errorf("gopass %s: %s (check that gopass works: gopass ls): %w", what, msg, kind)
	}
	return out.Bytes(), nil
}

// list returns the names of Coyote's entries (those under the store).
func (v *Vault) list(ctx context.Context) ([]string, error) {
	out, err := v.run(ctx, "ls", "", "ls", "--flat")
	if err != nil {
		return nil, err
	}
	prefix := v.path("")
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if prefix != "" {
			var ok bool
			if line, ok = strings.CutPrefix(line, prefix); !ok {
				continue
			}
		}
		if !strings.Contains(line, "/") {
			names = append(names, line)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Get lists the entries once, then reads each wanted one that exists.
func (v *Vault) Get(ctx context.Context, req *vault.GetRequest) (*vault.GetResponse, error) {
	have, err := v.list(ctx)
	if err != nil {
		return nil, err
	}
	resp := &vault.GetResponse{Values: map[string]string{}}
	for _, n := range req.Names {
		if !slices.Contains(have, n) {
			resp.Missing = append(resp.Missing, n)
			continue
		}
		out, err := v.run(ctx, "show "+n, "", "show", "-o", v.path(n))
		if errors.Is(err, sdk.ErrNotFound) {
			resp.Missing = append(resp.Missing, n)
			continue
		}
		if err != nil {
			return nil, err
		}
		resp.Values[n] = strings.TrimRight(string(out), "\r\n")
	}
	return resp, nil
}

func (v *Vault) exists(ctx context.Context, name string) (bool, error) {
	have, err := v.list(ctx)
	return slices.Contains(have, name), err
}

func (v *Vault) insert(ctx context.Context, req *vault.SetRequest) error {
	if strings.ContainsAny(req.Value, "\r\n") {
		return fmt.Errorf("gopass: secret %s: a value must be one line (gopass keeps the first line as the password): %w", req.Name, sdk.ErrInvalidArgument)
	}
	_, err := v.run(ctx, "insert "+req.Name, req.Value+"\n", "insert", "-f", v.path(req.Name))
	return err
}

// Set creates an entry; an existing one is refused.
func (v *Vault) Set(ctx context.Context, req *vault.SetRequest) error {
	ok, err := v.exists(ctx, req.Name)
	if err != nil {
		return err
	}
	if ok {
		return fmt.Errorf("gopass: secret %s exists already: %w", req.Name, sdk.ErrFailedPrecondition)
	}
	return v.insert(ctx, req)
}

// Update replaces an existing entry's value.
func (v *Vault) Update(ctx context.Context, req *vault.SetRequest) error {
	ok, err := v.exists(ctx, req.Name)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("gopass: secret %s does not exist: %w", req.Name, sdk.ErrNotFound)
	}
	return v.insert(ctx, req)
}

// Delete removes an entry.
func (v *Vault) Delete(ctx context.Context, req *vault.DeleteRequest) error {
	ok, err := v.exists(ctx, req.Name)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("gopass: secret %s does not exist: %w", req.Name, sdk.ErrNotFound)
	}
	_, err = v.run(ctx, "rm "+req.Name, "", "rm", "-f", v.path(req.Name))
	return err
}

// List returns the names of the entries.
func (v *Vault) List(ctx context.Context) ([]string, error) { return v.list(ctx) }

var (
	_ vault.Setter  = (*Vault)(nil)
	_ vault.Updater = (*Vault)(nil)
	_ vault.Deleter = (*Vault)(nil)
	_ vault.Lister  = (*Vault)(nil)
)
