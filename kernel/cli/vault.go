package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/iostreams"
	"github.com/coyote-cli/coyote/kernel/redact"
	ksandbox "github.com/coyote-cli/coyote/kernel/sandbox"
	"github.com/coyote-cli/coyote/kernel/vault"
	sdkvault "github.com/coyote-cli/coyote/sdk/vault"
)

// vaultOptions are the secret flags; each must be the only argument.
type vaultOptions struct {
	Add, Get, Update, Delete string
	List                     bool
}

func (o *vaultOptions) active() bool {
	return o.Add != "" || o.Get != "" || o.Update != "" || o.Delete != "" || o.List
}

// Vault returns the vault of the config directory, opening nothing yet.
// The password file is vault_password_file from config.yaml (read as
// written, without secrets), else the original's ~/.gman_password.
func (f *Factory) Vault() (*vault.Vault, string, error) {
	f.vaultOnce.Do(func() {
		p, err := f.Paths()
		if err != nil {
			f.vaultErr = err
			return
		}
		f.vaultPW = passwordFile(p.ConfigFile)
		f.vault = vault.Open(p.ConfigDir, f.vaultPW)
	})
	return f.vault, f.vaultPW, f.vaultErr
}

// passwordFile finds the vault password file from config.yaml as written:
// secrets_provider's password_file when its type is local, else
// vault_password_file.
func passwordFile(configFile string) string {
	path := ""
	if data, err := os.ReadFile(configFile); err == nil {
		var m map[string]any
		if yaml.Unmarshal(data, &m) == nil {
			path, _ = m["vault_password_file"].(string)
			if sp, ok := m["secrets_provider"].(map[string]any); ok && sp["type"] == "local" {
				if pf, ok := sp["password_file"].(string); ok && pf != "" {
					path = pf
				}
			}
		}
	}
	home, _ := os.UserHomeDir()
	if path == "" {
		return filepath.Join(home, ".gman_password")
	}
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return path
}

// Remote returns the secrets provider plugin config.yaml's
// secrets_provider names, or nil when secrets are in the local vault. It
// starts no plugin.
func (f *Factory) Remote() (*remoteStore, error) {
	f.providerOnce.Do(func() {
		p, err := f.Paths()
		if err != nil {
			f.providerErr = err
			return
		}
		pc, err := readProviderConfig(p.ConfigFile)
		if err != nil || pc == nil || pc.Type == "local" {
			f.providerErr = err
			return
		}
		f.provider = pc
		name := pc.Type
		if n, ok := providerPlugins[pc.Type]; ok {
			name = n
		}
		h, err := f.hostFor(false)
		if err != nil {
			f.providerErr = err
			return
		}
		pl, err := h.Vault(name)
		if err != nil {
			f.providerErr = fmt.Errorf("secrets_provider %s: %w", pc.Type, err)
			return
		}
		_ = pl.Configure(context.Background(), &sdkvault.ConfigureRequest{Settings: pc.Settings})
		f.remote = &remoteStore{typ: pc.Type, plugin: pl, values: map[string]string{}, missing: map[string]bool{}}
	})
	return f.remote, f.providerErr
}

// store is where the secret commands act: the configured provider, else
// the local vault.
func (f *Factory) store() (secretStore, error) {
	r, err := f.Remote()
	if err != nil {
		return nil, err
	}
	if r != nil {
		return r, nil
	}
	v, _, err := f.Vault()
	if err != nil {
		return nil, err
	}
	return localStore{v}, nil
}

// secrets resolves config.yaml's placeholders (and those of mcp.json and
// the RAG settings) from the vault or the configured provider. With a
// provider, the first call asks for every secret config.yaml names in one
// request, and the answers are kept for the run (in memory only). Every
// value it returns is recorded for redaction, so that it never reaches
// the error line, the log, --info or --dry-run.
func (f *Factory) secrets(name, _ string) (string, error) {
	// Inside a sandbox there is no vault: the kernel outside passed each
	// secret it could (a placeholder its proxy fills in, or the value).
	if f.Env(ksandbox.EnvInside) != "" {
		v := f.Env(ksandbox.SecretEnv(name))
		if v == "" {
			return "", fmt.Errorf("secret %s is not available inside the sandbox (only the secrets of config.yaml's clients and mcp.json's servers are passed in): %w", name, vault.ErrNotFound)
		}
		redact.Add(name, v)
		return v, nil
	}
	r, err := f.Remote()
	if err != nil {
		return "", err
	}
	var s string
	if r != nil {
		ctx := context.Background()
		if p, err := f.Paths(); err == nil {
			if data, err := os.ReadFile(p.ConfigFile); err == nil {
				if err := r.prefetch(ctx, append(vault.Placeholders(string(data)), name)); err != nil {
					return "", err
				}
			}
		}
		s, err = r.get(ctx, name)
	} else {
		v, _, verr := f.Vault()
		if verr != nil {
			return "", verr
		}
		s, err = v.Get(name)
	}
	if err == nil {
		redact.Add(name, s)
	}
	return s, err
}

// runVault carries out one secret flag, against the configured secrets
// provider or the local vault. A provider is checked with a round trip
// the first time it is used here.
func runVault(f *Factory, o *vaultOptions, args []string) error {
	if len(args) > 0 {
		return &UsageError{Err: errors.New("the secret flags (--add-secret, --get-secret, ...) take no other arguments")}
	}
	ctx := context.Background()
	st, err := f.store()
	if err != nil {
		return err
	}
	if r, ok := st.(*remoteStore); ok {
		p, err := f.Paths()
		if err != nil {
			return err
		}
		if err := r.roundTrip(ctx, checkedMarker(p.CacheDir, f.provider)); err != nil {
			return err
		}
	}
	switch {
	case o.List:
		names, err := st.list(ctx)
		if err != nil {
			return err
		}
		for _, n := range names {
			fmt.Fprintln(f.IO.Out, n)
		}
		return nil
	case o.Get != "":
		s, err := st.get(ctx, o.Get)
		if err != nil {
			return err
		}
		redact.Add(o.Get, s)
		_, err = fmt.Fprintln(f.IO.Out, s)
		return err
	case o.Delete != "":
		if err := st.remove(ctx, o.Delete); err != nil {
			return err
		}
		fmt.Fprintf(f.IO.ErrOut, "Deleted secret %s.\n", o.Delete)
		return nil
	}
	name, adding := o.Add, true
	if o.Update != "" {
		name, adding = o.Update, false
	}
	if !vault.ValidName(name) {
		return fmt.Errorf("%q is not a valid secret name: use letters, digits and _, not starting with a digit", name)
	}
	exists, err := st.exists(ctx, name)
	if err != nil {
		return err
	}
	switch {
	case adding && exists:
		return fmt.Errorf("secret %s already exists in %s: change it with coyote --update-secret %s", name, st.where(), name)
	case !adding && !exists:
		return fmt.Errorf("secret %s does not exist in %s: add it with coyote --add-secret %s", name, st.where(), name)
	}
	if _, local := st.(localStore); local {
		_, pw, _ := f.Vault()
		if err := ensurePasswordFile(f, pw); err != nil {
			return err
		}
	}
	value, err := readSecret(f, "Value of "+name+": ")
	if err != nil {
		return err
	}
	redact.Add(name, value)
	if adding {
		// Add checks again (under the local vault's lock, or in the
		// provider): another coyote may have added the same name meanwhile.
		err = st.add(ctx, name, value)
	} else {
		err = st.update(ctx, name, value)
	}
	if err != nil {
		return err
	}
	verb := "Added"
	if !adding {
		verb = "Updated"
	}
	fmt.Fprintf(f.IO.ErrOut, "%s secret %s. Use it in config.yaml as '{{%s}}'.\n", verb, name, name)
	return nil
}

// ensurePasswordFile creates the vault password file on first use: with a
// password asked for in a terminal, else with a generated one, saying
// where it is.
func ensurePasswordFile(f *Factory, path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if !f.IO.IsStdinTTY() {
		pw, err := vault.GeneratePassword()
		if err != nil {
			return err
		}
		err = vault.CreatePasswordFile(path, pw)
		switch {
		case errors.Is(err, fs.ErrExist):
			return nil // another coyote has just made it: use that one
		case err != nil:
			return err
		}
		fmt.Fprintf(f.IO.ErrOut, "Created the vault password file %s (mode 0600) with a generated password; the vault cannot be opened without it, so keep a copy somewhere safe.\n", path)
		return nil
	}
	fmt.Fprintf(f.IO.ErrOut, "Creating the vault password file %s.\n", path)
	for {
		pw, err := readSecret(f, fmt.Sprintf("New vault password (at least %d characters): ", vault.MinPasswordLength))
		if err != nil {
			return err
		}
		again, err := readSecret(f, "Repeat it: ")
		if err != nil {
			return err
		}
		if pw != again {
			fmt.Fprintln(f.IO.ErrOut, "The two passwords differ; try again.")
			continue
		}
		err = vault.CreatePasswordFile(path, pw)
		if errors.Is(err, vault.ErrPasswordTooShort) {
			fmt.Fprintln(f.IO.ErrOut, err)
			continue
		}
		return err
	}
}

// readSecret reads a value: hidden from a terminal, else one line of
// standard input.
func readSecret(f *Factory, prompt string) (string, error) {
	if f.IO.IsStdinTTY() {
		if file, ok := f.IO.In.(*os.File); ok {
			b, err := iostreams.ReadHidden(file, f.IO.ErrOut, prompt)
			if err != nil {
				return "", fmt.Errorf("read from the terminal: %w", err)
			}
			return string(b), nil
		}
	}
	line, err := f.stdin().ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read standard input: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("no value given on standard input")
	}
	return line, nil
}
