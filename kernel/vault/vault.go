package vault

import (
	"crypto/rand"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"github.com/coyote-cli/coyote/kernel/fsutil"
)

// Vault is the local vault: vault.yml in a config directory, unlocked by
// a password file. It is safe for concurrent use. The key is derived once,
// when a secret value is first needed, and kept for the Vault's life, so
// a process should share one Vault. Every operation reads vault.yml
// afresh, so changes made by another process are seen.
type Vault struct {
	path         string
	passwordFile string

	// For tests: the costs of a new vault, and the source of salts and
	// nonces.
	params kdfParams
	random io.Reader

	mu sync.Mutex
	// password is set once it has unlocked something, so that a password
	// file fixed after a failure is read again.
	password []byte
	// keys are derived keys by salt and costs, kept once they have opened
	// a check value (or, for the original's format, a secret).
	keys map[string][]byte
	// derivations counts Argon2id runs (tests).
	derivations int
}

// Open returns the vault kept in dir (dir/vault.yml) and unlocked by the
// password in passwordFile. It does no I/O: the files are read when an
// operation needs them.
func Open(dir, passwordFile string) *Vault {
	return &Vault{
		path:         filepath.Join(dir, FileName),
		passwordFile: passwordFile,
		params:       defaultParams,
		random:       rand.Reader,
	}
}

// Get returns the value of the secret name. A name not in the vault is an
// ErrNotFound error naming it and the command that adds it; it is reported
// without reading the password file.
func (v *Vault) Get(name string) (string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	f, err := readVaultFile(v.path)
	if err != nil {
		return "", err
	}
	sealed, ok := f.secrets[name]
	if !ok {
		return "", notFound(name)
	}
	var plain []byte
	if f.legacy {
		plain, err = v.openLegacy(name, sealed)
	} else {
		plain, err = v.openSecret(f, name, sealed)
	}
	if err != nil {
		return "", err
	}
	return string(plain), nil
}

// Set adds the secret name, or replaces its value. The name must satisfy
// ValidName. A vault in the original's format is converted first (see the
// package comment); a new vault is created with the password file's
// password.
func (v *Vault) Set(name, value string) error {
	if !ValidName(name) {
		return fmt.Errorf("%q is not a valid secret name: use letters, digits and underscores, starting with a letter or an underscore", name)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	f, err := readVaultFile(v.path)
	if err != nil {
		return err
	}
	var backup []byte
	switch {
	case f.legacy:
		backup = f.raw
		if f, err = v.convert(f); err != nil {
			return err
		}
	case !f.header:
		if f, err = v.create(); err != nil {
			return err
		}
	}
	key, err := v.key(f)
	if err != nil {
		return err
	}
	sealed, err := seal(newAEAD(key), v.random, []byte(value), secretAD(name))
	if err != nil {
		return fmt.Errorf("set secret %q: %w", name, err)
	}
	f.secrets[name] = sealed
	if backup != nil {
		if err := fsutil.WriteFileAtomic(v.path+legacyBackupSuffix, backup, 0o600); err != nil {
			return fmt.Errorf("keep a copy of the original vault before converting it: %w", err)
		}
	}
	return v.write(f)
}

// Delete removes the secret name. It needs no password. A name not in the
// vault is an ErrNotFound error.
func (v *Vault) Delete(name string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	f, err := readVaultFile(v.path)
	if err != nil {
		return err
	}
	if _, ok := f.secrets[name]; !ok {
		return notFound(name)
	}
	delete(f.secrets, name)
	return v.write(f)
}

// List returns the names of the secrets, sorted. It needs no password.
func (v *Vault) List() ([]string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	f, err := readVaultFile(v.path)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(f.secrets)), nil
}

// Exists reports whether the secret name is in the vault. It needs no
// password.
func (v *Vault) Exists(name string) (bool, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	f, err := readVaultFile(v.path)
	if err != nil {
		return false, err
	}
	_, ok := f.secrets[name]
	return ok, nil
}

func (v *Vault) write(f *vaultFile) error {
	data, err := f.encode()
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(v.path, data, 0o600); err != nil {
		return fmt.Errorf("save vault: %w", err)
	}
	return nil
}

// readPassword returns the password, reading the file until it has
// unlocked something.
func (v *Vault) readPassword() ([]byte, error) {
	if v.password != nil {
		return v.password, nil
	}
	return readPassword(v.passwordFile)
}

// derive runs Argon2id (the costly step) and counts it.
func (v *Vault) derive(password, salt []byte, p kdfParams) []byte {
	v.derivations++
	return deriveKey(password, salt, p)
}

func (v *Vault) remember(id string, key, password []byte) {
	if v.keys == nil {
		v.keys = map[string][]byte{}
	}
	v.keys[id] = key
	v.password = password
}

// key returns the key of a format-1 vault, deriving it on first use and
// checking it against the vault's check value.
func (v *Vault) key(f *vaultFile) ([]byte, error) {
	id := f.keyID()
	if key, ok := v.keys[id]; ok {
		return key, nil
	}
	password, err := v.readPassword()
	if err != nil {
		return nil, err
	}
	key := v.derive(password, f.salt, f.params)
	check, _ := decodeSealed(f.check) // checked when parsed
	if _, err := open(newAEAD(key), check, []byte(checkAD)); err != nil {
		return nil, errorf(ErrBadPassword, "the password in %s does not unlock the vault %s: it is not the password the vault was created with", v.passwordFile, v.path)
	}
	v.remember(id, key, password)
	return key, nil
}

func (v *Vault) openSecret(f *vaultFile, name, sealed string) ([]byte, error) {
	key, err := v.key(f)
	if err != nil {
		return nil, err
	}
	raw, ok := decodeSealed(sealed)
	if !ok {
		return nil, errorf(ErrTampered, "the vault %s is damaged: the value of secret %q is not a sealed value; set it again with coyote --update-secret %s", v.path, name, name)
	}
	plain, err := open(newAEAD(key), raw, secretAD(name))
	if err != nil {
		return nil, errorf(ErrTampered, "the vault %s is damaged or was edited: secret %q fails its integrity check; set it again with coyote --update-secret %s", v.path, name, name)
	}
	return plain, nil
}

// openLegacy opens an envelope of the original's format, which has its
// own salt.
func (v *Vault) openLegacy(name, envelope string) ([]byte, error) {
	e, err := parseLegacy(envelope)
	if err != nil {
		return nil, errorf(ErrTampered, "the vault %s is damaged: secret %q: %s; set it again with coyote --update-secret %s", v.path, name, err, name)
	}
	id := e.keyID()
	key, known := v.keys[id]
	password := v.password
	if !known {
		if password, err = v.readPassword(); err != nil {
			return nil, err
		}
		key = v.derive(password, e.salt, e.params)
	}
	plain, ok := e.open(key)
	if !ok {
		return nil, errorf(ErrBadPassword, "the password in %s does not unlock secret %q of the vault %s (written by the original coyote): the password is wrong or the entry is damaged", v.passwordFile, name, v.path)
	}
	if !known {
		v.remember(id, key, password)
	}
	return plain, nil
}

// create makes an empty format-1 vault with a new salt, keyed by the
// password file's password.
func (v *Vault) create() (*vaultFile, error) {
	password, err := v.readPassword()
	if err != nil {
		return nil, err
	}
	salt, err := randomBytes(v.random, saltLen)
	if err != nil {
		return nil, fmt.Errorf("create vault: %w", err)
	}
	f := &vaultFile{header: true, params: v.params, salt: salt, secrets: map[string]string{}}
	key := v.derive(password, salt, v.params)
	if f.check, err = seal(newAEAD(key), v.random, []byte(checkText), []byte(checkAD)); err != nil {
		return nil, fmt.Errorf("create vault: %w", err)
	}
	v.remember(f.keyID(), key, password)
	return f, nil
}

// convert decrypts every secret of an original-format vault and seals them
// again in a new format-1 vault. Any secret that does not open stops it,
// so nothing is lost.
func (v *Vault) convert(old *vaultFile) (*vaultFile, error) {
	plain := make(map[string][]byte, len(old.secrets))
	defer func() {
		for _, p := range plain {
			clear(p)
		}
	}()
	names := slices.Sorted(maps.Keys(old.secrets))
	for _, name := range names {
		p, err := v.openLegacy(name, old.secrets[name])
		if err != nil {
			return nil, err
		}
		plain[name] = p
	}
	f, err := v.create()
	if err != nil {
		return nil, err
	}
	aead := newAEAD(v.keys[f.keyID()])
	for _, name := range names {
		if f.secrets[name], err = seal(aead, v.random, plain[name], secretAD(name)); err != nil {
			return nil, fmt.Errorf("convert vault: %w", err)
		}
	}
	return f, nil
}
