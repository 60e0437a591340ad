package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/iostreams"
	"github.com/coyote-cli/coyote/kernel/redact"
	ksandbox "github.com/coyote-cli/coyote/kernel/sandbox"
	"github.com/coyote-cli/coyote/kernel/vault"
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

// passwordFile finds the vault password file from config.yaml as written.
func passwordFile(configFile string) string {
	path := ""
	if data, err := os.ReadFile(configFile); err == nil {
		var m map[string]any
		if yaml.Unmarshal(data, &m) == nil {
			path, _ = m["vault_password_file"].(string)
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

// secrets resolves config.yaml's placeholders from the vault.
// Every value it returns is recorded for redaction, so that it never
// reaches the error line, the log, --info or --dry-run.
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
	v, _, err := f.Vault()
	if err != nil {
		return "", err
	}
	s, err := v.Get(name)
	if err == nil {
		redact.Add(name, s)
	}
	return s, err
}

// runVault carries out one secret flag.
func runVault(f *Factory, o *vaultOptions, args []string) error {
	if len(args) > 0 {
		return &UsageError{Err: errors.New("the secret flags (--add-secret, --get-secret, ...) take no other arguments")}
	}
	v, pw, err := f.Vault()
	if err != nil {
		return err
	}
	switch {
	case o.List:
		names, err := v.List()
		if err != nil {
			return err
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintln(f.IO.Out, n)
		}
		return nil
	case o.Get != "":
		s, err := v.Get(o.Get)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(f.IO.Out, s)
		return err
	case o.Delete != "":
		if err := v.Delete(o.Delete); err != nil {
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
	exists, err := v.Exists(name)
	if err != nil {
		return err
	}
	switch {
	case adding && exists:
		return fmt.Errorf("secret %s already exists: change it with coyote --update-secret %s", name, name)
	case !adding && !exists:
		return fmt.Errorf("secret %s does not exist: add it with coyote --add-secret %s", name, name)
	}
	if err := ensurePasswordFile(f, pw); err != nil {
		return err
	}
	value, err := readSecret(f, "Value of "+name+": ")
	if err != nil {
		return err
	}
	if adding {
		// Add checks again under the vault's lock: another coyote may
		// have added the same name meanwhile.
		err = v.Add(name, value)
	} else {
		err = v.Set(name, value)
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
