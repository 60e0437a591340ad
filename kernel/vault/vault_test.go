package vault

import (
	"bytes"
	"encoding/base64"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// cheap keeps Argon2id fast in tests (the race detector slows it a lot);
// the costs are stored in the file, so nothing else changes.
var cheap = kdfParams{memoryKiB: 64, iterations: 1, parallelism: 1}

// writePasswordFile writes a private password file and returns its path.
func writePasswordFile(t *testing.T, password string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "vault_password")
	if err := os.WriteFile(path, []byte(password), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// testVault opens a vault in dir with a fresh password file and cheap
// costs.
func testVault(t *testing.T, dir, password string) *Vault {
	t.Helper()
	v := Open(dir, writePasswordFile(t, password))
	v.params = cheap
	return v
}

func mustSet(t *testing.T, v *Vault, name, value string) {
	t.Helper()
	if err := v.Set(name, value); err != nil {
		t.Fatalf("Set(%q): %v", name, err)
	}
}

func mustGet(t *testing.T, v *Vault, name, want string) {
	t.Helper()
	got, err := v.Get(name)
	if err != nil {
		t.Fatalf("Get(%q): %v", name, err)
	}
	if got != want {
		t.Fatalf("Get(%q) = %q, want %q", name, got, want)
	}
}

func mustList(t *testing.T, v *Vault, want ...string) {
	t.Helper()
	got, err := v.List()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("List() = %q, want %q", got, want)
	}
}

func TestSecretsSurviveSetUpdateDeleteAndReopen(t *testing.T) {
	dir := t.TempDir()
	pw := writePasswordFile(t, "correct horse battery")
	v := Open(dir, pw)
	v.params = cheap
	mustList(t, v)
	mustSet(t, v, "OPENAI_API_KEY", "sk-one")
	mustSet(t, v, "MULTI_LINE", "line 1\nline 2\n")
	mustSet(t, v, "UNICODE", "ünïcødé 🔑")
	mustSet(t, v, "EMPTY", "")
	mustSet(t, v, "null", "named like a YAML keyword")
	mustSet(t, v, "OPENAI_API_KEY", "sk-two") // update
	if err := v.Delete("MULTI_LINE"); err != nil {
		t.Fatal(err)
	}

	again := Open(dir, pw) // a new process
	mustList(t, again, "EMPTY", "OPENAI_API_KEY", "UNICODE", "null")
	mustGet(t, again, "OPENAI_API_KEY", "sk-two")
	mustGet(t, again, "UNICODE", "ünïcødé 🔑")
	mustGet(t, again, "EMPTY", "")
	mustGet(t, again, "null", "named like a YAML keyword")
	for name, want := range map[string]bool{"UNICODE": true, "MULTI_LINE": false, "": false} {
		if ok, err := again.Exists(name); err != nil || ok != want {
			t.Errorf("Exists(%q) = %v, %v; want %v", name, ok, err, want)
		}
	}
	if _, err := again.Get("MULTI_LINE"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a deleted secret: %v", err)
	}
	if err := again.Delete("MULTI_LINE"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleting a missing secret: %v", err)
	}
	st, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("vault.yml mode %04o, want 0600", st.Mode().Perm())
	}
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	for _, value := range []string{"sk-one", "sk-two", "ünïcødé", "line 1"} {
		if bytes.Contains(data, []byte(value)) {
			t.Fatalf("vault.yml holds %q in clear", value)
		}
	}
}

func TestMissingSecretNamesTheCommandThatAddsItWithoutReadingThePassword(t *testing.T) {
	dir := t.TempDir()
	testVault(t, dir, "correct horse battery").Set("OTHER", "x")
	v := Open(dir, filepath.Join(t.TempDir(), "no-such-password-file"))
	_, err := v.Get("OPENAI_API_KEY")
	want := `secret "OPENAI_API_KEY" is not in the vault: add it with coyote --add-secret OPENAI_API_KEY`
	if !errors.Is(err, ErrNotFound) || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if v.derivations != 0 {
		t.Fatal("a key was derived")
	}
}

func TestSetRefusesANameThatCannotBeAPlaceholder(t *testing.T) {
	v := testVault(t, t.TempDir(), "correct horse battery")
	for _, name := range []string{"", "my-key", "A B", "1A", "{{A}}"} {
		if err := v.Set(name, "x"); err == nil || !strings.Contains(err.Error(), "not a valid secret name") {
			t.Errorf("Set(%q): %v", name, err)
		}
	}
	mustList(t, v)
}

func TestWrongPasswordIsReportedAndChangesNothing(t *testing.T) {
	dir := t.TempDir()
	mustSet(t, testVault(t, dir, "correct horse battery"), "KEY", "sk-secret-value")
	before, _ := os.ReadFile(filepath.Join(dir, FileName))

	wrong := testVault(t, dir, "incorrect horse battery")
	_, err := wrong.Get("KEY")
	if !errors.Is(err, ErrBadPassword) || errors.Is(err, ErrTampered) {
		t.Fatalf("Get with a wrong password: %v", err)
	}
	if !strings.Contains(err.Error(), wrong.passwordFile) {
		t.Fatalf("the error does not name the password file: %v", err)
	}
	if err := wrong.Set("OTHER", "x"); !errors.Is(err, ErrBadPassword) {
		t.Fatalf("Set with a wrong password: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !bytes.Equal(before, after) {
		t.Fatal("a wrong password changed the vault")
	}
	// Names need no password.
	mustList(t, wrong, "KEY")
}

// A password file fixed after a failure is read again.
func TestPasswordFileFixedAfterAFailureIsReadAgain(t *testing.T) {
	dir := t.TempDir()
	mustSet(t, testVault(t, dir, "correct horse battery"), "KEY", "v")
	v := testVault(t, dir, "incorrect horse battery")
	if _, err := v.Get("KEY"); !errors.Is(err, ErrBadPassword) {
		t.Fatal(err)
	}
	if err := os.WriteFile(v.passwordFile, []byte("correct horse battery\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustGet(t, v, "KEY", "v")
}

// rewrite edits vault.yml through its YAML.
func rewrite(t *testing.T, dir string, edit func(f *fileV1)) {
	t.Helper()
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parseVaultFile(data)
	if err != nil {
		t.Fatal(err)
	}
	v := fileV1{Version: 1, KDF: kdfBlock{Name: kdfName, MemoryKiB: f.params.memoryKiB, Iterations: f.params.iterations, Parallelism: f.params.parallelism}, Check: f.check, Secrets: f.secrets}
	v.KDF.Salt = encodeB64(f.salt)
	edit(&v)
	g := &vaultFile{header: true, params: kdfParams{v.KDF.MemoryKiB, v.KDF.Iterations, v.KDF.Parallelism}, check: v.Check, secrets: v.Secrets}
	g.salt = decodeB64(t, v.KDF.Salt)
	out, err := g.encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestTamperedSecretIsToldApartFromAWrongPassword(t *testing.T) {
	secret := "sk-secret-value"
	tests := []struct {
		name string
		edit func(f *fileV1)
		get  string
		want error
	}{
		{"a flipped ciphertext byte", func(f *fileV1) { f.Secrets["KEY"] = flipByte(t, f.Secrets["KEY"], -1) }, "KEY", ErrTampered},
		{"a flipped nonce byte", func(f *fileV1) { f.Secrets["KEY"] = flipByte(t, f.Secrets["KEY"], 0) }, "KEY", ErrTampered},
		{"ciphertexts swapped between names", func(f *fileV1) {
			f.Secrets["KEY"], f.Secrets["OTHER"] = f.Secrets["OTHER"], f.Secrets["KEY"]
		}, "KEY", ErrTampered},
		{"a ciphertext copied under a new name", func(f *fileV1) { f.Secrets["COPY"] = f.Secrets["KEY"] }, "COPY", ErrTampered},
		{"a value that is not base64", func(f *fileV1) { f.Secrets["KEY"] = "not base64!" }, "KEY", ErrTampered},
		{"a value too short to be sealed", func(f *fileV1) { f.Secrets["KEY"] = "AAAA" }, "KEY", ErrTampered},
		{"huge key derivation costs", func(f *fileV1) { f.KDF.MemoryKiB = 1 << 31 }, "KEY", ErrTampered},
		{"a changed salt reads as a wrong password", func(f *fileV1) { f.KDF.Salt = encodeB64([]byte("another salt 123")) }, "KEY", ErrBadPassword},
		{"a changed check reads as a wrong password", func(f *fileV1) { f.Check = flipByte(t, f.Check, -1) }, "KEY", ErrBadPassword},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			v := testVault(t, dir, "correct horse battery")
			mustSet(t, v, "KEY", secret)
			mustSet(t, v, "OTHER", "other-secret-value")
			rewrite(t, dir, tt.edit)
			fresh := Open(dir, v.passwordFile)
			_, err := fresh.Get(tt.get)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if tt.want == ErrTampered && errors.Is(err, ErrBadPassword) {
				t.Fatalf("tampering reported as a wrong password: %v", err)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "other-secret-value") || strings.Contains(err.Error(), "correct horse") {
				t.Fatalf("the error shows a secret: %v", err)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
				t.Fatalf("the error does not name the vault: %v", err)
			}
		})
	}
}

// A file cut short at any byte is reported, never read as a smaller
// vault.
func TestTruncatedVaultIsReportedAtEveryCut(t *testing.T) {
	dir := t.TempDir()
	v := testVault(t, dir, "correct horse battery")
	for _, name := range []string{"A", "B", "C"} {
		mustSet(t, v, name, "value of "+name)
	}
	path := filepath.Join(dir, FileName)
	full, _ := os.ReadFile(path)
	for n := 1; n < len(full); n++ {
		if string(bytes.TrimSpace(full[:n])) == string(bytes.TrimSpace(full)) {
			continue
		}
		if err := os.WriteFile(path, full[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		names, err := v.List()
		if !errors.Is(err, ErrTampered) {
			t.Fatalf("cut at %d of %d bytes: List() = %q, %v", n, len(full), names, err)
		}
	}
}

func TestHandRemovedEntryLeavesTheOthersReadable(t *testing.T) {
	dir := t.TempDir()
	v := testVault(t, dir, "correct horse battery")
	mustSet(t, v, "A", "a")
	mustSet(t, v, "B", "b")
	path := filepath.Join(dir, FileName)
	data, _ := os.ReadFile(path)
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "  A: ") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(kept, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	mustList(t, v, "B")
	mustGet(t, v, "B", "b")
}

func TestVaultFromANewerCoyoteAsksForAnUpgrade(t *testing.T) {
	dir := t.TempDir()
	v := testVault(t, dir, "correct horse battery")
	mustSet(t, v, "A", "a")
	path := filepath.Join(dir, FileName)
	data, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(data, []byte("coyote_vault: 1"), []byte("coyote_vault: 2"), 1), 0o600)
	if _, err := v.List(); err == nil || !strings.Contains(err.Error(), "upgrade coyote") {
		t.Fatalf("got %v", err)
	}
}

func TestNotAVaultFileIsReportedWithItsLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	for content, want := range map[string]string{
		"a: [b":                            "not valid YAML",
		"- a\n- b\n":                       "line 1: it is not a YAML mapping",
		"X: $VAULT;v1;x\nY: plain\n":       "line 2: it is neither",
		"# just a comment\n":               "comments but no content",
		"coyote_vault: 1\nextra: x\n...\n": "layout",
	} {
		os.WriteFile(path, []byte(content), 0o600)
		_, err := Open(dir, "").List()
		if !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: got %v, want ErrTampered with %q", content, err, want)
		}
	}
	for _, empty := range []string{"", " \n", "{}\n"} {
		os.WriteFile(path, []byte(empty), 0o600)
		mustList(t, Open(dir, ""))
	}
}

func TestKeyIsDerivedOnceAndOnlyWhenAValueIsNeeded(t *testing.T) {
	dir := t.TempDir()
	v := testVault(t, dir, "correct horse battery")
	mustList(t, v)
	v.Exists("A")
	v.Get("A")
	if v.derivations != 0 {
		t.Fatalf("%d derivations before any value was needed", v.derivations)
	}
	mustSet(t, v, "A", "a")
	mustSet(t, v, "B", "b")
	mustGet(t, v, "A", "a")
	mustGet(t, v, "B", "b")
	if err := v.Delete("A"); err != nil {
		t.Fatal(err)
	}
	if v.derivations != 1 {
		t.Fatalf("%d derivations, want 1", v.derivations)
	}
	// Another process derives it once too.
	other := Open(dir, v.passwordFile)
	mustList(t, other, "B")
	if other.derivations != 0 {
		t.Fatal("List derived a key")
	}
	mustGet(t, other, "B", "b")
	mustGet(t, other, "B", "b")
	if other.derivations != 1 {
		t.Fatalf("%d derivations, want 1", other.derivations)
	}
}

func TestConcurrentGetsShareOneDerivation(t *testing.T) {
	dir := t.TempDir()
	v := testVault(t, dir, "correct horse battery")
	names := []string{"A", "B", "C", "D"}
	for _, n := range names {
		mustSet(t, v, n, "value of "+n)
	}
	fresh := Open(dir, v.passwordFile)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Go(func() {
			name := names[i%len(names)]
			got, err := fresh.Get(name)
			if err == nil && got != "value of "+name {
				err = errors.New("wrong value for " + name)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if fresh.derivations != 1 {
		t.Fatalf("%d derivations, want 1", fresh.derivations)
	}
}

// Interpolating text without placeholders never reads the password file
// (nor vault.yml): a missing password file is fine then, and an error as
// soon as a placeholder needs it.
func TestTextWithoutPlaceholdersNeverOpensTheVault(t *testing.T) {
	dir := t.TempDir()
	mustSet(t, testVault(t, dir, "correct horse battery"), "A", "a")
	v := Open(dir, filepath.Join(t.TempDir(), "missing-password-file"))
	text := "model: openai:gpt-4o\nclients:\n  - type: openai\n    api_key: sk-inline # {not a placeholder}\n"
	out, err := Interpolate(text, v.Get)
	if err != nil || out != text {
		t.Fatalf("Interpolate = %q, %v", out, err)
	}
	if _, err := Interpolate("api_key: {{A}}", v.Get); !errors.Is(err, ErrNoPasswordFile) {
		t.Fatalf("a placeholder did not need the password file: %v", err)
	}
	if v.derivations != 0 {
		t.Fatal("a key was derived")
	}
}

func TestInterpolateWithTheVault(t *testing.T) {
	dir := t.TempDir()
	v := testVault(t, dir, "correct horse battery")
	mustSet(t, v, "OPENAI_API_KEY", "sk-123")
	out, err := Interpolate("clients:\n  - type: openai\n    api_key: '{{OPENAI_API_KEY}}'\n", v.Get)
	if err != nil || out != "clients:\n  - type: openai\n    api_key: 'sk-123'\n" {
		t.Fatalf("%q, %v", out, err)
	}
	_, err = Interpolate("api_key: '{{ANTHROPIC_API_KEY}}'", v.Get)
	if err == nil || err.Error() != `secret "ANTHROPIC_API_KEY" is not in the vault: add it with coyote --add-secret ANTHROPIC_API_KEY` {
		t.Fatalf("got %v", err)
	}
}

// vault.yml is replaced by a rename, never rewritten in place: a hard link
// to the old file keeps the whole old vault, and no temporary file is left.
// (fsutil's own test kills a writer mid-write.)
func TestVaultFileIsReplacedAtomically(t *testing.T) {
	dir := t.TempDir()
	v := testVault(t, dir, "correct horse battery")
	mustSet(t, v, "A", "a")
	path := filepath.Join(dir, FileName)
	old, _ := os.ReadFile(path)
	link := filepath.Join(t.TempDir(), "old-vault.yml")
	if err := os.Link(path, link); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	mustSet(t, v, "B", "b")
	kept, _ := os.ReadFile(link)
	if !bytes.Equal(kept, old) {
		t.Fatal("the old file was rewritten in place")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("files left in the config dir: %v", entries)
	}
	mustGet(t, Open(dir, v.passwordFile), "B", "b")
}

// stepReader is a deterministic source of "random" bytes, for golden files.
type stepReader struct{ next byte }

func (r *stepReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.next
		r.next = r.next*7 + 3
	}
	return len(p), nil
}

// The file format is fixed by a golden file, and a vault written in it
// must open forever.
func TestVaultFileFormatMatchesTheGoldenFile(t *testing.T) {
	dir := t.TempDir()
	v := testVault(t, dir, "golden password")
	v.random = &stepReader{}
	mustSet(t, v, "OPENAI_API_KEY", "sk-golden")
	mustSet(t, v, "UNICODE", "ünïcødé 🔑")
	got, _ := os.ReadFile(filepath.Join(dir, FileName))
	golden := filepath.Join("testdata", "vault.golden.yml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("vault.yml changed (go test -update rewrites the golden file):\n%s", got)
	}
}

func TestGoldenVaultStillOpens(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "vault.golden.yml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, FileName), data, 0o600)
	v := Open(dir, writePasswordFile(t, "golden password\n"))
	mustList(t, v, "OPENAI_API_KEY", "UNICODE")
	mustGet(t, v, "OPENAI_API_KEY", "sk-golden")
	mustGet(t, v, "UNICODE", "ünïcødé 🔑")
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

var legacySecrets = map[string]string{
	"OPENAI_API_KEY":  "sk-legacy-openai",
	"OLD_TOKEN":       "old-token-ünïcødé-🔑",
	"ZERO_KEY_SECRET": "zero-key-value",
}

func TestOriginalVaultIsReadAsItIs(t *testing.T) {
	dir, pw, original := installLegacy(t)
	v := Open(dir, pw)
	mustList(t, v, "OLD_TOKEN", "OPENAI_API_KEY", "ZERO_KEY_SECRET")
	for name, want := range legacySecrets {
		mustGet(t, v, name, want)
	}
	mustGet(t, v, "OPENAI_API_KEY", "sk-legacy-openai")
	if v.derivations != 3 {
		t.Fatalf("%d derivations, want one per salt (3)", v.derivations)
	}
	now, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !bytes.Equal(now, original) {
		t.Fatal("reading changed the file")
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
		t.Fatal("a failed conversion changed the file")
	}
	if _, err := os.Stat(filepath.Join(dir, FileName+legacyBackupSuffix)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("a failed conversion left a backup")
	}
}

func TestDeleteKeepsTheOriginalFormat(t *testing.T) {
	dir, pw, _ := installLegacy(t)
	v := Open(dir, filepath.Join(t.TempDir(), "no-password-needed"))
	if err := v.Delete("ZERO_KEY_SECRET"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if bytes.Contains(data, []byte("coyote_vault")) || bytes.Contains(data, []byte("ZERO_KEY_SECRET")) {
		t.Fatalf("after Delete:\n%s", data)
	}
	mustGet(t, Open(dir, pw), "OLD_TOKEN", legacySecrets["OLD_TOKEN"])
}

func TestSetConvertsTheOriginalVaultAndKeepsACopy(t *testing.T) {
	dir, pw, original := installLegacy(t)
	v := Open(dir, pw)
	v.params = cheap
	mustSet(t, v, "NEW_KEY", "new value")
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !bytes.HasPrefix(data, []byte(fileHeader)) || bytes.Contains(data, []byte("$VAULT")) {
		t.Fatalf("not converted:\n%s", data)
	}
	backup, err := os.ReadFile(filepath.Join(dir, FileName+legacyBackupSuffix))
	if err != nil || !bytes.Equal(backup, original) {
		t.Fatalf("backup: %v", err)
	}
	fresh := Open(dir, pw)
	mustList(t, fresh, "NEW_KEY", "OLD_TOKEN", "OPENAI_API_KEY", "ZERO_KEY_SECRET")
	for name, want := range legacySecrets {
		mustGet(t, fresh, name, want)
	}
	mustGet(t, fresh, "NEW_KEY", "new value")
	if fresh.derivations != 1 {
		t.Fatalf("%d derivations after conversion, want 1", fresh.derivations)
	}
}

func encodeB64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func decodeB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flipByte flips one bit of the byte at i (from the end when negative) of
// a base64 value.
func flipByte(t *testing.T, s string, i int) string {
	t.Helper()
	b := decodeB64(t, s)
	if i < 0 {
		i += len(b)
	}
	b[i] ^= 0x01
	return encodeB64(b)
}

// One damaged entry does not lock the others away: it can be replaced or
// deleted, and the rest stay readable.
func TestDamagedEntryCanBeReplacedOrDeleted(t *testing.T) {
	for _, fix := range []string{"set", "delete"} {
		dir := t.TempDir()
		v := testVault(t, dir, "correct horse battery")
		mustSet(t, v, "BAD", "old")
		mustSet(t, v, "GOOD", "good")
		rewrite(t, dir, func(f *fileV1) { f.Secrets["BAD"] = "###" })
		if _, err := v.Get("BAD"); !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "--update-secret BAD") {
			t.Fatalf("got %v", err)
		}
		mustGet(t, v, "GOOD", "good")
		if fix == "set" {
			mustSet(t, v, "BAD", "new")
			mustGet(t, v, "BAD", "new")
		} else if err := v.Delete("BAD"); err != nil {
			t.Fatal(err)
		}
		mustGet(t, Open(dir, v.passwordFile), "GOOD", "good")
	}
}

// The CLI's first run: no password file, so it asks for a password,
// creates the file and tries again with the same Vault.
func TestFirstRunCreatesThePasswordFileThenTheVault(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(t.TempDir(), "conf", ".vault_password")
	v := Open(dir, pw)
	v.params = cheap
	if err := v.Set("OPENAI_API_KEY", "sk-1"); !errors.Is(err, ErrNoPasswordFile) {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("a vault was written without a password")
	}
	if err := CreatePasswordFile(pw, "a long enough password"); err != nil {
		t.Fatal(err)
	}
	mustSet(t, v, "OPENAI_API_KEY", "sk-1")
	mustGet(t, Open(dir, pw), "OPENAI_API_KEY", "sk-1")
}
