package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPluginLockPinsTheBinariesAndVerifySaysWhich(t *testing.T) {
	dir := testPlugins(t, "testing")
	e := newEnv(t, testingConfig).set("COYOTE_PLUGINS_DIR=" + dir)
	lockFile := filepath.Join(e.configDir, "plugins.lock")

	// No lock: nothing changes, and the listing says so.
	e.mustSucceed(e.run("", "hello"))
	r := e.run("", "plugins")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "plugin lock: none") || strings.Contains(r.stdout, "LOCK") {
		t.Fatalf("listing without a lock:\n%s", r.stdout)
	}
	if r := e.run("", "plugins", "verify"); r.code != 1 || !strings.Contains(r.stderr, "no plugin lock at "+lockFile) {
		t.Fatalf("verify without a lock: exit %d, stderr %q", r.code, r.stderr)
	}

	r = e.run("", "plugins", "lock")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "coyote-provider-testing") || !strings.Contains(r.stdout, "in "+lockFile) {
		t.Fatalf("lock printed:\n%s", r.stdout)
	}
	if st, err := os.Stat(lockFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v %v", err, st)
	}
	e.mustSucceed(e.run("", "hello"))
	r = e.run("", "plugins", "verify")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "ok") || !strings.Contains(r.stdout, "all ") {
		t.Fatalf("verify printed:\n%s", r.stdout)
	}
	row := listedRow(t, e, "coyote-provider-testing")
	if f := strings.Fields(row); len(f) < 5 || f[4] != "ok" {
		t.Fatalf("LOCK column of a locked plugin: %q", row)
	}

	// The binary changes: refused, in one line, with both digests.
	bin := filepath.Join(dir, "coyote-provider-testing")
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write([]byte("appended by someone else"))
	f.Close()
	line := oneLineError(t, e.run("", "hello"))
	if !strings.HasPrefix(line, "Error: plugin coyote-provider-testing does not match the plugin lock: expected sha256 ") ||
		!strings.HasSuffix(line, "in "+bin+"; if you trust this binary, run `coyote plugins lock` again") {
		t.Fatalf("stderr = %q", line)
	}
	r = e.run("", "plugins", "verify")
	if r.code != 1 || !strings.Contains(r.stdout, "MISMATCH") || !strings.Contains(r.stderr, "1 plugin does not match the plugin lock") {
		t.Fatalf("verify after a change: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	row = listedRow(t, e, "coyote-provider-testing")
	if f := strings.Fields(row); f[4] != "MISMATCH" || !strings.Contains(row, "does not match the plugin lock") {
		t.Fatalf("row of a changed plugin: %q", row)
	}

	// Locked again, it runs; a plugin added later is refused.
	e.mustSucceed(e.run("", "plugins", "lock"))
	e.mustSucceed(e.run("", "hello"))
	b, err := os.ReadFile(filepath.Join(testPluginDir, "coyote-provider-garbage"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coyote-provider-garbage"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	e2 := newEnv(t, "model: g:m\nclients:\n  - {type: garbage, name: g, models: [{name: m}]}\n").set("COYOTE_PLUGINS_DIR=" + dir)
	if err := os.WriteFile(filepath.Join(e2.configDir, "plugins.lock"), mustRead(t, lockFile), 0o600); err != nil {
		t.Fatal(err)
	}
	line = oneLineError(t, e2.run("", "hello"))
	if !strings.Contains(line, "plugin coyote-provider-garbage ("+filepath.Join(dir, "coyote-provider-garbage")+") is not in the plugin lock") {
		t.Fatalf("stderr = %q", line)
	}
}

// TestDamagedPluginLockSaysHowToFixIt: a lock that cannot be read refuses
// every plugin, in one line that says what to do, and what it says works.
func TestDamagedPluginLockSaysHowToFixIt(t *testing.T) {
	dir := testPlugins(t, "testing")
	e := newEnv(t, testingConfig).set("COYOTE_PLUGINS_DIR=" + dir)
	lockFile := filepath.Join(e.configDir, "plugins.lock")
	if err := os.WriteFile(lockFile, []byte("{\"version\": 1, \"plugins\": "), 0o600); err != nil {
		t.Fatal(err)
	}
	line := oneLineError(t, e.run("", "hello"))
	want := "Error: plugin coyote-provider-testing cannot be checked against the plugin lock: read plugin lock " + lockFile +
		": unexpected end of JSON input; fix or remove " + lockFile + ", or run `coyote plugins lock` to rewrite it"
	if line != want {
		t.Fatalf("stderr =\n  %s\nwant\n  %s", line, want)
	}
	r := e.run("", "plugins")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "plugin lock: every plugin is refused: read plugin lock "+lockFile) {
		t.Fatalf("listing with a damaged lock:\n%s", r.stdout)
	}
	e.mustSucceed(e.run("", "plugins", "lock"))
	e.mustSucceed(e.run("", "hello"))
}
