package vault

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
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
// the costs are stored in each envelope, so nothing else changes.
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
	mustSet(t, v, "yes", "named like a YAML 1.1 boolean")
	mustSet(t, v, "OPENAI_API_KEY", "sk-two") // update
	if err := v.Delete("MULTI_LINE"); err != nil {
		t.Fatal(err)
	}

	again := Open(dir, pw) // a new process
	mustList(t, again, "EMPTY", "OPENAI_API_KEY", "UNICODE", "null", "yes")
	mustGet(t, again, "OPENAI_API_KEY", "sk-two")
	mustGet(t, again, "UNICODE", "ünïcødé 🔑")
	mustGet(t, again, "EMPTY", "")
	mustGet(t, again, "null", "named like a YAML keyword")
	mustGet(t, again, "yes", "named like a YAML 1.1 boolean")
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
	mustSet(t, testVault(t, dir, "correct horse battery"), "OTHER", "x")
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

func TestAddRefusesANameAlreadyThere(t *testing.T) {
	dir := t.TempDir()
	v := testVault(t, dir, "correct horse battery")
	if err := v.Add("KEY", "first"); err != nil {
		t.Fatal(err)
	}
	err := v.Add("KEY", "second")
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "--update-secret KEY") {
		t.Fatalf("got %v", err)
	}
	mustGet(t, v, "KEY", "first")
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

// editEntry rewrites one entry of an original-format vault.yml.
func editEntry(t *testing.T, dir, name string, edit func(fields []string) []string) {
	t.Helper()
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if value, ok := strings.CutPrefix(line, name+": "); ok {
			line = name + ": " + strings.Join(edit(strings.Split(value, ";")), ";")
		}
		out = append(out, line)
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
}

// flipField flips one bit of the byte at i (from the end when negative) of
// a "name=<base64>" field.
func flipField(t *testing.T, field string, i int) string {
	t.Helper()
	k, v, _ := strings.Cut(field, "=")
	return k + "=" + flipByte(t, v, i)
}

func TestTamperedSecretIsToldApartFromAWrongPassword(t *testing.T) {
	secret := "sk-secret-value"
	tests := []struct {
		name string
		edit func(f []string) []string
	}{
		{"a flipped ciphertext byte", func(f []string) []string { f[6] = flipField(t, f[6], -1); return f }},
		{"a flipped nonce byte", func(f []string) []string { f[5] = flipField(t, f[5], 0); return f }},
		{"a changed salt", func(f []string) []string { f[4] = flipField(t, f[4], 0); return f }},
		{"changed costs", func(f []string) []string { f[3] = "m=64,t=2,p=1"; return f }},
		{"huge costs", func(f []string) []string { f[3] = "m=2147483648,t=1,p=1"; return f }},
		{"a ciphertext that is not base64", func(f []string) []string { f[6] = "ct=not base64!"; return f }},
		{"a ciphertext too short to be sealed", func(f []string) []string { f[6] = "ct=AAAA"; return f }},
		{"a short nonce", func(f []string) []string { f[5] = "nonce=AAAA"; return f }},
		{"a missing field", func(f []string) []string { return f[:6] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			v := testVault(t, dir, "correct horse battery")
			mustSet(t, v, "KEY", secret)
			mustSet(t, v, "OTHER", "other-secret-value")
			editEntry(t, dir, "KEY", tt.edit)
			fresh := Open(dir, v.passwordFile)
			_, err := fresh.Get("KEY")
			if !errors.Is(err, ErrTampered) || errors.Is(err, ErrBadPassword) {
				t.Fatalf("got %v, want ErrTampered", err)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "other-secret-value") || strings.Contains(err.Error(), "correct horse") {
				t.Fatalf("the error shows a secret: %v", err)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, FileName)) || !strings.Contains(err.Error(), "--update-secret KEY") {
				t.Fatalf("the error does not name the vault and the fix: %v", err)
			}
			mustGet(t, fresh, "OTHER", "other-secret-value")
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
		if !strings.HasPrefix(line, "A: ") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(kept, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh := Open(dir, v.passwordFile)
	mustList(t, fresh, "B")
	mustGet(t, fresh, "B", "b")
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
		"X: $VAULT;v1;x\nY: $VAULT;v1;y\nX: $VAULT;v1;z\n": `line 3: secret "X" appears twice`,
	} {
		os.WriteFile(path, []byte(content), 0o600)
		_, err := Open(dir, "").List()
		if !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: got %v, want ErrTampered with %q", content, err, want)
		}
	}
	for _, empty := range []string{"", " \n", "{}\n", fileHeader + "{}\n" + fileTrailer} {
		os.WriteFile(path, []byte(empty), 0o600)
		mustList(t, Open(dir, ""))
	}
}

// One Argon2id derivation serves every entry coyote writes: they share
// one salt (each envelope still carries it, for the original).
func TestKeyIsDerivedOnceAndOnlyWhenAValueIsNeeded(t *testing.T) {
	dir := t.TempDir()
	v := testVault(t, dir, "correct horse battery")
	mustList(t, v)
	v.Exists("A")
	v.Get("A")
	if v.derivations != 0 {
		t.Fatalf("%d derivations before any value was needed", v.derivations)
	}
	for _, name := range []string{"A", "B", "C", "D"} {
		mustSet(t, v, name, "value of "+name)
	}
	mustGet(t, v, "A", "value of A")
	mustGet(t, v, "B", "value of B")
	if err := v.Delete("A"); err != nil {
		t.Fatal(err)
	}
	if v.derivations != 1 {
		t.Fatalf("%d derivations, want 1", v.derivations)
	}
	// Another process derives it once too, for reading and for writing.
	other := Open(dir, v.passwordFile)
	other.params = cheap
	mustList(t, other, "B", "C", "D")
	if other.derivations != 0 {
		t.Fatal("List derived a key")
	}
	for _, name := range []string{"B", "C", "D"} {
		mustGet(t, other, name, "value of "+name)
	}
	mustSet(t, other, "E", "value of E")
	if other.derivations != 1 {
		t.Fatalf("%d derivations, want 1", other.derivations)
	}
	writer := Open(dir, v.passwordFile) // a process that only adds
	writer.params = cheap
	mustSet(t, writer, "F", "value of F")
	mustSet(t, writer, "G", "value of G")
	if writer.derivations != 1 {
		t.Fatalf("%d derivations to add two secrets, want 1", writer.derivations)
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

// Writers that do not share a Vault (two processes: each has its own
// lock file handle) keep every secret the others added.
func TestConcurrentWritersKeepEverySecret(t *testing.T) {
	dir := t.TempDir()
	pw := writePasswordFile(t, "correct horse battery")
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			v := Open(dir, pw)
			v.params = cheap
			for i := range 5 {
				if err := v.Add(fmt.Sprintf("W%d_%d", w, i), fmt.Sprintf("value %d %d", w, i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	v := Open(dir, pw)
	names, err := v.List()
	if err != nil || len(names) != 20 {
		t.Fatalf("List() = %q, %v; want 20 names", names, err)
	}
	for w := range 4 {
		for i := range 5 {
			mustGet(t, v, fmt.Sprintf("W%d_%d", w, i), fmt.Sprintf("value %d %d", w, i))
		}
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
// to the old file keeps the whole old vault, and no temporary file is left
// (only the lock file stays beside it). (fsx's own test kills a writer
// mid-write.)
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
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{".vault.yml.lock", "vault.yml"}) {
		t.Fatalf("files in the config dir: %v", names)
	}
	mustGet(t, Open(dir, v.passwordFile), "B", "b")
}

// A vault.yml left readable by others (an older version, a copy) is
// private again after the next change.
func TestChangeMakesAnOpenVaultPrivate(t *testing.T) {
	dir := t.TempDir()
	v := testVault(t, dir, "correct horse battery")
	mustSet(t, v, "A", "a")
	path := filepath.Join(dir, FileName)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	mustSet(t, v, "B", "b")
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %04o, want 0600", st.Mode().Perm())
	}
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

// The file format is fixed by a golden file: the original's format, with
// coyote's header and trailer comments.
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
	// The golden file opens as the original would open it.
	secrets := openAsTheOriginal(t, want, "golden password")
	if secrets["OPENAI_API_KEY"] != "sk-golden" || secrets["UNICODE"] != "ünïcødé 🔑" {
		t.Fatalf("the original would read %q", secrets)
	}
}

func encodeB64(b []byte) string { return b64.EncodeToString(b) }

func decodeB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := b64.DecodeString(s)
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
		editEntry(t, dir, "BAD", func(f []string) []string { return []string{"$VAULT", "v1", "argon2id", "###"} })
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

// The CLI's first run: no password file, so it creates one and tries
// again with the same Vault.
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
