package vault

// The vault must stay readable by the original coyote, whose local vault
// is the gman crate's: each secret one envelope
//
//	$VAULT;v1;argon2id;m=19456,t=2,p=1;salt=<b64>;nonce=<b64>;ct=<b64>
//
// in a flat YAML map from name to envelope. The helpers here write and
// read that format on their own (Argon2id and XChaCha20-Poly1305 straight
// from x/crypto, the envelope built and split by hand), so that the
// package is checked against the format rather than against itself; the
// fixture testdata/legacy_vault.yml was made with libsodium instead.

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/chacha20poly1305"
	"gopkg.in/yaml.v3"
)

var b64 = base64.StdEncoding

// The original's constants (gman's lib.rs).
const (
	origM, origT, origP = 19456, 2, 1
	origSaltLen         = 16
	origNonceLen        = 24
)

// sealAsTheOriginal makes an envelope as the original does: a fresh
// 16-byte salt and 24-byte nonce, Argon2id with the costs m, t, p, and the
// additional data "$VAULT;v1;argon2id;m=…,t=…,p=…". zeroKey seals with an
// all-zero key and the older additional data "$VAULT;v1", as the
// original's oldest versions did.
func sealAsTheOriginal(t *testing.T, password, value string, m, tc uint32, p uint8, zeroKey bool) string {
	t.Helper()
	salt := make([]byte, origSaltLen)
	nonce := make([]byte, origNonceLen)
	rand.Read(salt)
	rand.Read(nonce)
	params := fmt.Sprintf("m=%d,t=%d,p=%d", m, tc, p)
	key := argon2.IDKey([]byte(password), salt, tc, m, p, 32)
	ad := "$VAULT;v1;argon2id;" + params
	if zeroKey {
		key, ad = make([]byte, 32), "$VAULT;v1"
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		t.Fatal(err)
	}
	ct := aead.Seal(nil, nonce, []byte(value), []byte(ad))
	return "$VAULT;v1;argon2id;" + params + ";salt=" + b64.EncodeToString(salt) +
		";nonce=" + b64.EncodeToString(nonce) + ";ct=" + b64.EncodeToString(ct)
}

// openAsTheOriginal reads vault.yml as the original does, strictly: a flat
// map of strings, each an envelope of exactly seven fields with a 16-byte
// salt and a 24-byte nonce, opened under the current additional data. It
// fails the test on anything the original could not read.
func openAsTheOriginal(t *testing.T, data []byte, password string) map[string]string {
	t.Helper()
	var envelopes map[string]string
	if err := yaml.Unmarshal(data, &envelopes); err != nil {
		t.Fatalf("not a flat map of strings, which the original reads as an empty vault: %v\n%s", err, data)
	}
	keys := map[string][]byte{}
	out := map[string]string{}
	for name, env := range envelopes {
		f := strings.Split(env, ";")
		if len(f) != 7 || f[0] != "$VAULT" || f[1] != "v1" || f[2] != "argon2id" {
			t.Fatalf("%s: not an envelope: %q", name, env)
		}
		var m, tc, p uint64
		if n, err := fmt.Sscanf(f[3], "m=%d,t=%d,p=%d", &m, &tc, &p); n != 3 || err != nil {
			t.Fatalf("%s: costs %q", name, f[3])
		}
		if f[3] != fmt.Sprintf("m=%d,t=%d,p=%d", m, tc, p) {
			t.Fatalf("%s: costs %q are not written as the original writes them", name, f[3])
		}
		field := func(i int, prefix string, size int) []byte {
			v, ok := strings.CutPrefix(f[i], prefix)
			if !ok {
				t.Fatalf("%s: field %d is not %s", name, i, prefix)
			}
			b, err := b64.DecodeString(v)
			if err != nil || b64.EncodeToString(b) != v {
				t.Fatalf("%s: %s is not standard padded base64", name, prefix)
			}
			if size > 0 && len(b) != size {
				t.Fatalf("%s: %s has %d bytes, want %d", name, prefix, len(b), size)
			}
			return b
		}
		salt, nonce, ct := field(4, "salt=", origSaltLen), field(5, "nonce=", origNonceLen), field(6, "ct=", 0)
		id := f[3] + string(salt)
		if keys[id] == nil {
			keys[id] = argon2.IDKey([]byte(password), salt, uint32(tc), uint32(m), uint8(p), 32)
		}
		aead, _ := chacha20poly1305.NewX(keys[id])
		pt, err := aead.Open(nil, nonce, ct, []byte("$VAULT;v1;argon2id;"+f[3]))
		if err != nil {
			t.Fatalf("%s: the original cannot open it", name)
		}
		out[name] = string(pt)
	}
	return out
}

// writeOriginalVault writes a vault.yml as the original's serde_yaml does
// (no comments, names in no particular order) and returns its path.
func writeOriginalVault(t *testing.T, dir string, envelopes map[string]string) string {
	t.Helper()
	var b strings.Builder
	for name, env := range envelopes {
		b.WriteString(name + ": " + env + "\n")
	}
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A vault the original wrote is read as it is, and after coyote adds,
// updates and deletes secrets the original reads every one of them; the
// entries coyote did not touch are kept byte for byte.
func TestVaultOfTheOriginalRoundTrips(t *testing.T) {
	const password = "the original's password"
	dir := t.TempDir()
	orig := map[string]string{
		"OPENAI_API_KEY": sealAsTheOriginal(t, password, "sk-original", origM, origT, origP, false),
		"CHEAP":          sealAsTheOriginal(t, password, "cheap ünïcødé 🔑", 64, 1, 1, false),
		"DOOMED":         sealAsTheOriginal(t, password, "to be deleted", 64, 1, 1, false),
		"CHANGED":        sealAsTheOriginal(t, password, "before", 64, 1, 1, false),
	}
	path := writeOriginalVault(t, dir, orig)
	v := Open(dir, writePasswordFile(t, password))
	mustList(t, v, "CHANGED", "CHEAP", "DOOMED", "OPENAI_API_KEY")
	mustGet(t, v, "OPENAI_API_KEY", "sk-original")
	mustGet(t, v, "CHEAP", "cheap ünïcødé 🔑")

	mustSet(t, v, "NEW_KEY", "added by coyote")
	mustSet(t, v, "CHANGED", "after")
	if err := v.Delete("DOOMED"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	got := openAsTheOriginal(t, data, password)
	want := map[string]string{
		"OPENAI_API_KEY": "sk-original",
		"CHEAP":          "cheap ünïcødé 🔑",
		"NEW_KEY":        "added by coyote",
		"CHANGED":        "after",
	}
	if !maps.Equal(got, want) {
		t.Fatalf("the original reads %q, want %q", got, want)
	}
	for _, name := range []string{"OPENAI_API_KEY", "CHEAP"} {
		if !bytes.Contains(data, []byte(name+": "+orig[name]+"\n")) {
			t.Errorf("entry %s was not kept as the original wrote it", name)
		}
	}
	// New entries have the original's costs and share the salt of the
	// entry whose key was already known: no derivation beyond the two the
	// reads needed.
	if v.derivations != 2 {
		t.Errorf("%d derivations, want 2", v.derivations)
	}
	var entries map[string]string
	yaml.Unmarshal(data, &entries)
	newFields := strings.Split(entries["NEW_KEY"], ";")
	if newFields[3] != "m=19456,t=2,p=1" || newFields[4] != strings.Split(orig["OPENAI_API_KEY"], ";")[4] {
		t.Errorf("NEW_KEY: costs %s, salt %s", newFields[3], newFields[4])
	}
}

// A vault coyote creates is in the original's format with the original's
// costs, from the first secret.
func TestNewVaultIsInTheOriginalsFormat(t *testing.T) {
	const password = "correct horse battery"
	dir := t.TempDir()
	v := Open(dir, writePasswordFile(t, password))
	mustSet(t, v, "A", "value a")
	mustSet(t, v, "B", "value b")
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	got := openAsTheOriginal(t, data, password)
	if !maps.Equal(got, map[string]string{"A": "value a", "B": "value b"}) {
		t.Fatalf("the original reads %q", got)
	}
	if !bytes.Contains(data, []byte("A: $VAULT;v1;argon2id;m=19456,t=2,p=1;salt=")) {
		t.Fatalf("not the original's costs:\n%s", data)
	}
	if v.derivations != 1 {
		t.Fatalf("%d derivations for two secrets, want 1", v.derivations)
	}
}

// installCoyote1 copies a vault in the coyote_vault 1 format (written by
// earlier versions of coyote; password "golden password") into a config
// dir.
func installCoyote1(t *testing.T) (dir, passwordFile string, original []byte) {
	t.Helper()
	dir = t.TempDir()
	original, err := os.ReadFile(filepath.Join("testdata", "vault.coyote1.yml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, FileName), original, 0o600)
	return dir, writePasswordFile(t, "golden password\n"), original
}

var coyote1Secrets = map[string]string{"OPENAI_API_KEY": "sk-golden", "UNICODE": "ünïcødé 🔑"}

func TestCoyote1VaultStillOpens(t *testing.T) {
	dir, pw, original := installCoyote1(t)
	v := Open(dir, pw)
	mustList(t, v, "OPENAI_API_KEY", "UNICODE")
	for name, want := range coyote1Secrets {
		mustGet(t, v, name, want)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, FileName)); !bytes.Equal(now, original) {
		t.Fatal("reading changed the file")
	}
}

// A coyote_vault 1 file is converted to the original's format at its
// next change, Set or Delete, keeping every other secret.
func TestCoyote1VaultIsConvertedAtTheNextChange(t *testing.T) {
	for _, change := range []string{"set", "delete"} {
		t.Run(change, func(t *testing.T) {
			dir, pw, _ := installCoyote1(t)
			v := Open(dir, pw)
			v.params = cheap
			want := maps.Clone(coyote1Secrets)
			if change == "set" {
				mustSet(t, v, "NEW_KEY", "new value")
				want["NEW_KEY"] = "new value"
			} else {
				if err := v.Delete("UNICODE"); err != nil {
					t.Fatal(err)
				}
				delete(want, "UNICODE")
			}
			data, _ := os.ReadFile(filepath.Join(dir, FileName))
			if bytes.Contains(data, []byte("coyote_vault")) {
				t.Fatalf("not converted:\n%s", data)
			}
			if got := openAsTheOriginal(t, data, "golden password"); !maps.Equal(got, want) {
				t.Fatalf("the original reads %q, want %q", got, want)
			}
			fresh := Open(dir, pw)
			for name, value := range want {
				mustGet(t, fresh, name, value)
			}
		})
	}
}

// editCoyote1 changes the value of one secret of a coyote_vault 1 file.
func editCoyote1(t *testing.T, dir, name string, edit func(string) string) {
	t.Helper()
	path := filepath.Join(dir, FileName)
	data, _ := os.ReadFile(path)
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if value, ok := strings.CutPrefix(line, "  "+name+": "); ok {
			line = "  " + name + ": " + edit(value)
		}
		out = append(out, line)
	}
	os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o600)
}

// Converting loses nothing: a damaged secret stops it (and names the
// fix), unless it is the one being replaced or deleted.
func TestCoyote1ConversionStopsAtADamagedSecret(t *testing.T) {
	dir, pw, _ := installCoyote1(t)
	editCoyote1(t, dir, "UNICODE", func(v string) string { return flipByte(t, v, -1) })
	damaged, _ := os.ReadFile(filepath.Join(dir, FileName))
	v := Open(dir, pw)
	v.params = cheap
	err := v.Set("NEW_KEY", "x")
	if !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), `secret "UNICODE"`) || !strings.Contains(err.Error(), "--delete-secret UNICODE") {
		t.Fatalf("got %v", err)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, FileName)); !bytes.Equal(now, damaged) {
		t.Fatal("a failed conversion changed the file")
	}
	mustSet(t, v, "UNICODE", "replaced")
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if got := openAsTheOriginal(t, data, "golden password"); !maps.Equal(got, map[string]string{"OPENAI_API_KEY": "sk-golden", "UNICODE": "replaced"}) {
		t.Fatalf("the original reads %q", got)
	}
}

func TestCoyote1VaultWithAWrongPasswordIsNotConverted(t *testing.T) {
	dir, _, original := installCoyote1(t)
	v := testVault(t, dir, "not the golden password")
	if err := v.Set("NEW", "x"); !errors.Is(err, ErrBadPassword) {
		t.Fatalf("got %v", err)
	}
	if err := v.Delete("UNICODE"); !errors.Is(err, ErrBadPassword) {
		t.Fatalf("got %v", err)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, FileName)); !bytes.Equal(now, original) {
		t.Fatal("a failed conversion changed the file")
	}
}

func TestCoyote1VaultFromANewerCoyoteAsksForAnUpgrade(t *testing.T) {
	dir, pw, original := installCoyote1(t)
	os.WriteFile(filepath.Join(dir, FileName), bytes.Replace(original, []byte("coyote_vault: 1"), []byte("coyote_vault: 2"), 1), 0o600)
	if _, err := Open(dir, pw).List(); err == nil || !strings.Contains(err.Error(), "upgrade coyote") {
		t.Fatalf("got %v", err)
	}
}

// installLegacy copies the original-format fixture (made with libsodium by
// testdata/make_legacy_vault.py) into a config dir.
func installLegacy(t *testing.T) (dir, passwordFile string, original []byte) {
	t.Helper()
	dir = t.TempDir()
	original, err := os.ReadFile(filepath.Join("testdata", "legacy_vault.yml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, FileName), original, 0o600)
	pw, err := os.ReadFile(filepath.Join("testdata", "legacy_password.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, writePasswordFile(t, string(pw)), original
}

func TestOriginalVaultMadeWithLibsodiumIsReadAsItIs(t *testing.T) {
	dir, pw, original := installLegacy(t)
	v := Open(dir, pw)
	mustList(t, v, "OLD_TOKEN", "OPENAI_API_KEY", "ZERO_KEY_SECRET")
	mustGet(t, v, "OPENAI_API_KEY", "sk-legacy-openai") // current additional data
	mustGet(t, v, "OLD_TOKEN", "old-token-ünïcødé-🔑")   // older additional data
	mustGet(t, v, "OPENAI_API_KEY", "sk-legacy-openai")
	if v.derivations != 2 {
		t.Fatalf("%d derivations, want one per salt (2)", v.derivations)
	}
	now, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !bytes.Equal(now, original) {
		t.Fatal("reading changed the file")
	}
}

// Issue 15: an entry that opens only with the all-zero key could have
// been planted by anyone who can write vault.yml; it is refused, never
// returned, and never sealed again with the real key.
func TestEntrySealedWithoutAKeyIsRefused(t *testing.T) {
	const password = "correct horse battery"
	dir := t.TempDir()
	planted := map[string]string{
		"REAL":    sealAsTheOriginal(t, password, "real value", 64, 1, 1, false),
		"PLANTED": sealAsTheOriginal(t, "", "attacker's value", 64, 1, 1, true),
	}
	// The zero key under the current additional data is refused too.
	zero, _ := parseEnvelope(planted["PLANTED"])
	zero.ct = newAEAD(make([]byte, keyLen)).Seal(nil, zero.nonce, []byte("attacker's value"), envelopeAD(zero.params))
	planted["PLANTED_CURRENT"] = strings.Join(strings.Split(planted["PLANTED"], ";")[:6], ";") + ";ct=" + b64.EncodeToString(zero.ct)
	path := writeOriginalVault(t, dir, planted)
	v := Open(dir, writePasswordFile(t, password))
	v.params = cheap
	_, err := v.Get("PLANTED")
	if !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "sealed without a key") || !strings.Contains(err.Error(), "--update-secret PLANTED") {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(err.Error(), "attacker's value") {
		t.Fatal("the error shows the value")
	}
	if _, err := v.Get("PLANTED_CURRENT"); !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "sealed without a key") {
		t.Fatalf("zero key, current additional data: %v", err)
	}
	mustGet(t, v, "REAL", "real value")
	mustSet(t, v, "OTHER", "x")
	data, _ := os.ReadFile(path)
	if !bytes.Contains(data, []byte("PLANTED: "+planted["PLANTED"]+"\n")) {
		t.Fatal("the planted entry was sealed again")
	}
	if _, err := Open(dir, v.passwordFile).Get("PLANTED"); !errors.Is(err, ErrTampered) {
		t.Fatalf("after a Set: %v", err)
	}
	// The libsodium fixture's zero-key entry is refused the same way.
	ldir, lpw, _ := installLegacy(t)
	if _, err := Open(ldir, lpw).Get("ZERO_KEY_SECRET"); !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "sealed without a key") {
		t.Fatalf("fixture: %v", err)
	}
}

// A vault holding only entries sealed without a key proves no password:
// adding a secret works, and the planted entries stay refused.
func TestVaultOfOnlyZeroKeyEntriesTakesNewSecrets(t *testing.T) {
	dir := t.TempDir()
	writeOriginalVault(t, dir, map[string]string{"PLANTED": sealAsTheOriginal(t, "", "x", 64, 1, 1, true)})
	v := testVault(t, dir, "correct horse battery")
	mustSet(t, v, "REAL", "real")
	mustGet(t, Open(dir, v.passwordFile), "REAL", "real")
	if _, err := v.Get("PLANTED"); !errors.Is(err, ErrTampered) {
		t.Fatal(err)
	}
}

func TestOriginalVaultWithAWrongPasswordIsReported(t *testing.T) {
	dir, _, original := installLegacy(t)
	v := testVault(t, dir, "not the legacy password")
	if _, err := v.Get("OLD_TOKEN"); !errors.Is(err, ErrBadPassword) {
		t.Fatalf("got %v", err)
	}
	if err := v.Set("NEW", "x"); !errors.Is(err, ErrBadPassword) {
		t.Fatalf("got %v", err)
	}
	now, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !bytes.Equal(now, original) {
		t.Fatal("a wrong password changed the file")
	}
}

func TestDeleteNeedsNoPasswordInTheOriginalsFormat(t *testing.T) {
	dir, pw, _ := installLegacy(t)
	v := Open(dir, filepath.Join(t.TempDir(), "no-password-needed"))
	if err := v.Delete("ZERO_KEY_SECRET"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if bytes.Contains(data, []byte("ZERO_KEY_SECRET")) {
		t.Fatalf("after Delete:\n%s", data)
	}
	mustGet(t, Open(dir, pw), "OLD_TOKEN", "old-token-ünïcødé-🔑")
	if v.derivations != 0 {
		t.Fatal("Delete derived a key")
	}
}

// The fixture's first entry has the original's costs: a new secret shares
// its salt, so adding costs the one derivation that checks the password.
func TestAddingToTheOriginalsVaultCostsOneDerivation(t *testing.T) {
	dir, pw, original := installLegacy(t)
	v := Open(dir, pw)
	mustSet(t, v, "NEW_KEY", "new value")
	if v.derivations != 1 {
		t.Fatalf("%d derivations, want 1", v.derivations)
	}
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	for _, line := range strings.Split(strings.TrimSpace(string(original)), "\n") {
		if !bytes.Contains(data, []byte(line+"\n")) {
			t.Errorf("entry not kept: %s", line[:strings.Index(line, ":")])
		}
	}
	fresh := Open(dir, pw)
	mustGet(t, fresh, "NEW_KEY", "new value")
	mustGet(t, fresh, "OPENAI_API_KEY", "sk-legacy-openai")
	if fresh.derivations != 1 {
		t.Fatalf("%d derivations to read two secrets sharing a salt, want 1", fresh.derivations)
	}
}

// parseEnvelope accepts what the original accepts and only that.
func TestEnvelopeParsing(t *testing.T) {
	good := sealAsTheOriginal(t, "pw", "v", 64, 1, 1, false)
	f := strings.Split(good, ";")
	tests := []struct {
		name, env, wantErr string
	}{
		{"the original's envelope", good, ""},
		{"extra fields are ignored, as by the original", good + ";x=1", ""},
		{"missing costs take the original's defaults", strings.Join(append(append([]string{}, f[:3]...), append([]string{"m=64"}, f[4:]...)...), ";"), ""},
		{"too few fields", strings.Join(f[:6], ";"), "too few fields"},
		{"another version", strings.Replace(good, ";v1;", ";v2;", 1), "unknown kind"},
		{"another derivation", strings.Replace(good, "argon2id", "scrypt", 1), "unknown kind"},
		{"zero lanes", strings.Replace(good, "p=1", "p=0", 1), "parallelism 0"},
		{"a nonce of 12 bytes", strings.Join(append(append([]string{}, f[:5]...), "nonce="+b64.EncodeToString(make([]byte, 12)), f[6]), ";"), "nonce has 12 bytes"},
		{"fields out of order", strings.Join([]string{f[0], f[1], f[2], f[3], f[5], f[4], f[6]}, ";"), "is not salt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := parseEnvelope(tt.env)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if e.params.memoryKiB != 64 || len(e.nonce) != 24 || len(e.salt) != 16 {
					t.Fatalf("parsed %+v", e)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want %q", err, tt.wantErr)
			}
		})
	}
	if p := (kdfParams{memoryKiB: origM, iterations: origT, parallelism: origP}); originalParams != p || saltLen != origSaltLen || nonceLen != origNonceLen {
		t.Fatal("the constants are not the original's")
	}
}
