package vault

import (
	"crypto/rand"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// maxProbes bounds the key derivations spent checking a password against
// a vault whose entries each have their own salt (the original writes
// them so): a wrong password is told after at most this many.
const maxProbes = 3

// Vault is the local vault: vault.yml in a config directory, unlocked by
// a password file. It is safe for concurrent use, and several processes
// may change the same vault at once (each change is made under the
// file's lock, on the file as it is then). Keys are derived when a secret
// value is first needed and kept, per salt, for the Vault's life, so a
// process should share one Vault. Every operation reads vault.yml afresh,
// so changes made by another process are seen.
type Vault struct {
	path         string
	passwordFile string

	// For tests: the costs of the entries this Vault writes, the source of
	// salts and nonces, and how long a change waits for another process's.
	params   kdfParams
	random   io.Reader
	lockWait time.Duration

	mu sync.Mutex
	// password is set once it has unlocked something, so that a password
	// file fixed after a failure is read again.
	password []byte
	// keys are derived keys by salt and costs (keyID), kept once they have
	// opened something.
	keys map[string][]byte
	// writeSalt is the salt of the entries this Vault writes (with params),
	// shared by all of them so that one key serves them all.
	writeSalt []byte
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
		params:       originalParams,
		random:       rand.Reader,
		lockWait:     fsx.DefaultLockWait,
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
	stored, ok := f.secrets[name]
	if !ok {
		return "", notFound(name)
	}
	var plain []byte
	if f.v1 != nil {
		var key []byte
		if key, err = v.v1Key(f.v1); err == nil {
			plain, err = v.openV1(key, name, stored)
		}
	} else {
		plain, err = v.openEnvelope(f, name, stored)
	}
	if err != nil {
		return "", err
	}
	return string(plain), nil
}

// Set adds the secret name, or replaces its value. The name must satisfy
// ValidName. A new vault is created with the password file's password; a
// vault in the coyote_vault 1 format is converted to the original's (see
// the package comment).
func (v *Vault) Set(name, value string) error {
	return v.put(name, value, false)
}

// Add adds the secret name, which must not be in the vault yet (an error
// matching ErrExists, checked on the file as it is when the secret is
// written, so that two processes adding the same name cannot both
// succeed).
func (v *Vault) Add(name, value string) error {
	return v.put(name, value, true)
}

func (v *Vault) put(name, value string, mustBeNew bool) error {
	if !ValidName(name) {
		return fmt.Errorf("%q is not a valid secret name: use letters, digits and underscores, starting with a letter or an underscore", name)
	}
	check := func(f *vaultFile) error {
		if _, ok := f.secrets[name]; ok && mustBeNew {
			return errorf(ErrExists, "secret %s is already in the vault: change it with coyote --update-secret %s", name, name)
		}
		return nil
	}
	return v.change(name, check, func(f *vaultFile) error {
		salt, key, err := v.writeKey(f)
		if err != nil {
			return err
		}
		envelope, err := sealEnvelope(key, v.params, salt, v.random, []byte(value))
		if err != nil {
			return fmt.Errorf("set secret %q: %w", name, err)
		}
		f.secrets[name] = envelope
		return nil
	})
}

// Delete removes the secret name. It needs no password (but for a vault in
// the coyote_vault 1 format, which is converted). A name not in the vault
// is an ErrNotFound error.
func (v *Vault) Delete(name string) error {
	check := func(f *vaultFile) error {
		if _, ok := f.secrets[name]; !ok {
			return notFound(name)
		}
		return nil
	}
	return v.change(name, check, func(f *vaultFile) error {
		delete(f.secrets, name)
		return nil
	})
}

// change makes a change to the vault under its lock, on the file as it is
// now, and writes it back in the original's format: check may refuse the
// change, then a coyote_vault 1 file is converted (keeping every secret
// but name, the one being replaced or removed, which must all open), then
// edit changes it.
func (v *Vault) change(name string, check, edit func(f *vaultFile) error) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return fsx.Update(v.path, v.lockWait, func(current []byte, _ bool) ([]byte, error) {
		f, err := decodeVaultFile(v.path, current)
		if err != nil {
			return nil, err
		}
		if err := check(f); err != nil {
			return nil, err
		}
		if f.v1 != nil {
			if f, err = v.convertV1(f, name); err != nil {
				return nil, err
			}
		}
		if err := edit(f); err != nil {
			return nil, err
		}
		return f.encode()
	})
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

// readPassword returns the password, reading the file until it has
// unlocked something.
func (v *Vault) readPassword() ([]byte, error) {
	if v.password != nil {
		return v.password, nil
	}
	return readPassword(v.passwordFile)
}

// derive returns the key for salt and costs p: the one kept, or a new
// derivation (the costly step, counted) that the caller remembers once it
// has opened something.
func (v *Vault) derive(p kdfParams, salt []byte) (key, password []byte, err error) {
	if key, ok := v.keys[keyID(p, salt)]; ok {
		return key, v.password, nil
	}
	if password, err = v.readPassword(); err != nil {
		return nil, nil, err
	}
	v.derivations++
	return deriveKey(password, salt, p), password, nil
}

func (v *Vault) remember(p kdfParams, salt, key, password []byte) {
	if v.keys == nil {
		v.keys = map[string][]byte{}
	}
	v.keys[keyID(p, salt)] = key
	v.password = password
}

// openEnvelope opens an entry of the original's format.
func (v *Vault) openEnvelope(f *vaultFile, name, stored string) ([]byte, error) {
	e, err := parseEnvelope(stored)
	if err != nil {
		return nil, errorf(ErrTampered, "the vault %s is damaged: secret %q: %s; set it again with coyote --update-secret %s", v.path, name, err, name)
	}
	key, password, err := v.derive(e.params, e.salt)
	if err != nil {
		return nil, err
	}
	if plain, ok := e.open(key); ok {
		v.remember(e.params, e.salt, key, password)
		return plain, nil
	}
	if e.sealedWithoutKey() {
		return nil, errorf(ErrTampered, "secret %q of the vault %s is sealed without a key (as the original's oldest versions did), so anyone who can write the file could have put it there; it is not used: set it again with coyote --update-secret %s", name, v.path, name)
	}
	ok, err := v.passwordOpensAnother(f, name)
	if err != nil {
		return nil, err
	}
	if ok {
		return nil, errorf(ErrTampered, "the vault %s is damaged or was edited: secret %q fails its integrity check; set it again with coyote --update-secret %s", v.path, name, name)
	}
	return nil, v.badPassword()
}

func (v *Vault) badPassword() error {
	return errorf(ErrBadPassword, "the password in %s does not unlock the vault %s: it is not the password its secrets were added with", v.passwordFile, v.path)
}

// probe tries the password on up to maxProbes keys of f's entries other
// than except, skipping entries sealed without a key, which prove
// nothing: first those whose key is kept (no derivation), then those with
// the Vault's costs (so that the key found can seal new entries). It
// returns the entry that opened and its key, or nil; tried reports
// whether any entry could be tried.
func (v *Vault) probe(f *vaultFile, except string) (opened *envelope, key []byte, tried bool, err error) {
	var envelopes []envelope
	for _, name := range slices.Sorted(maps.Keys(f.secrets)) {
		if name == except {
			continue
		}
		e, err := parseEnvelope(f.secrets[name])
		if err != nil || e.sealedWithoutKey() {
			continue
		}
		envelopes = append(envelopes, e)
	}
	rank := func(e envelope) int {
		_, kept := v.keys[e.keyID()]
		return boolRank(kept)*2 + boolRank(e.params == v.params)
	}
	slices.SortStableFunc(envelopes, func(a, b envelope) int { return rank(a) - rank(b) })
	seen := map[string]bool{}
	for i := range envelopes {
		e := &envelopes[i]
		if seen[e.keyID()] {
			continue
		}
		if len(seen) == maxProbes {
			break
		}
		seen[e.keyID()] = true
		k, password, err := v.derive(e.params, e.salt)
		if err != nil {
			return nil, nil, true, err
		}
		if _, ok := e.open(k); ok {
			v.remember(e.params, e.salt, k, password)
			return e, k, true, nil
		}
	}
	return nil, nil, len(seen) > 0, nil
}

// boolRank orders true before false.
func boolRank(b bool) int {
	if b {
		return 0
	}
	return 1
}

// passwordOpensAnother reports whether the password is known to be right:
// it has opened something already, or it opens another entry of f.
func (v *Vault) passwordOpensAnother(f *vaultFile, except string) (bool, error) {
	if len(v.keys) > 0 {
		return true, nil
	}
	opened, _, _, err := v.probe(f, except)
	return opened != nil, err
}

// writeKey returns the salt and key of the entries this Vault writes into
// f: those of an entry of f with the same costs when the password opens
// one, else a new salt, kept for the Vault's later writes. A password that
// opens none of f's entries is refused (ErrBadPassword), so that a wrong
// password never adds a secret the right one cannot read.
func (v *Vault) writeKey(f *vaultFile) (salt, key []byte, err error) {
	if v.writeSalt != nil {
		if key, ok := v.keys[keyID(v.params, v.writeSalt)]; ok {
			return v.writeSalt, key, nil
		}
	}
	opened, key, tried, err := v.probe(f, "")
	switch {
	case err != nil:
		return nil, nil, err
	case tried && opened == nil:
		return nil, nil, v.badPassword()
	case opened != nil && opened.params == v.params:
		salt = opened.salt
	default:
		if salt, err = randomBytes(v.random, saltLen); err != nil {
			return nil, nil, fmt.Errorf("create vault salt: %w", err)
		}
		var password []byte
		if key, password, err = v.derive(v.params, salt); err != nil {
			return nil, nil, err
		}
		v.remember(v.params, salt, key, password)
	}
	v.writeSalt = salt
	return salt, key, nil
}

// v1Key returns the key of a coyote_vault 1 file, checking it against the
// file's check value.
func (v *Vault) v1Key(h *v1Header) ([]byte, error) {
	key, password, err := v.derive(h.params, h.salt)
	if err != nil {
		return nil, err
	}
	if !checkOpens(key, h.check) {
		return nil, v.badPassword()
	}
	v.remember(h.params, h.salt, key, password)
	return key, nil
}

// openV1 opens a secret of a coyote_vault 1 file with the file's key
// (v1Key).
func (v *Vault) openV1(key []byte, name, stored string) ([]byte, error) {
	raw, ok := decodeSealed(stored)
	if !ok {
		return nil, errorf(ErrTampered, "the vault %s is damaged: the value of secret %q is not a sealed value; set it again with coyote --update-secret %s", v.path, name, name)
	}
	plain, err := openSealed(newAEAD(key), raw, secretAD(name))
	if err != nil {
		return nil, errorf(ErrTampered, "the vault %s is damaged or was edited: secret %q fails its integrity check; set it again with coyote --update-secret %s", v.path, name, name)
	}
	return plain, nil
}

// convertV1 turns a coyote_vault 1 file into the original's format: every
// secret is opened and sealed again as an envelope. A secret that does not
// open stops it, so nothing is lost, unless it is skip, the one being
// replaced or removed.
func (v *Vault) convertV1(old *vaultFile, skip string) (*vaultFile, error) {
	oldKey, err := v.v1Key(old.v1)
	if err != nil {
		return nil, err
	}
	f := &vaultFile{secrets: make(map[string]string, len(old.secrets))}
	salt, key, err := v.writeKey(f)
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(old.secrets)) {
		plain, err := v.openV1(oldKey, name, old.secrets[name])
		if err != nil {
			if name == skip {
				continue
			}
			return nil, fmt.Errorf("convert the vault to the original's format: %w (or delete it with coyote --delete-secret %s)", err, name)
		}
		f.secrets[name], err = sealEnvelope(key, v.params, salt, v.random, plain)
		clear(plain)
		if err != nil {
			return nil, fmt.Errorf("convert the vault: %w", err)
		}
	}
	return f, nil
}
