package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// lockHost is testHost with a plugin lock and a digest cache in
// directories of the test's own; the lock does not exist yet.
func lockHost(t *testing.T, modes ...string) (*Host, string) {
	t.Helper()
	conf := t.TempDir()
	h := testHost(t, Options{LockFile: filepath.Join(conf, LockFileName), CacheDir: t.TempDir()}, modes...)
	return h, h.Dirs()[0]
}

func sha256Of(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func hashed(h *Host) int {
	h.digests.mu.Lock()
	defer h.digests.mu.Unlock()
	return h.digests.hashed
}

func TestWithoutALockFileNothingIsChecked(t *testing.T) {
	h, _ := lockHost(t, "good")
	p := configured(t, h, "good")
	if _, err := chat(t, p, "hi"); err != nil {
		t.Fatal(err)
	}
	if n := hashed(h); n != 0 {
		t.Fatalf("%d binaries hashed without a lock", n)
	}
	if _, err := os.Stat(filepath.Join(h.opts.CacheDir, digestCacheName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a digest cache was written without a lock: %v", err)
	}
}

func TestLockWritesEveryPluginPrivatelyAndAtomically(t *testing.T) {
	h, dir := lockHost(t, "good", "other")
	// An older lock, readable by all, is replaced and made private.
	if err := os.WriteFile(h.LockFile(), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := h.WriteLock(Discover(h.Dirs()))
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(h.LockFile())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v, mode %v", err, st.Mode().Perm())
	}
	read, err := ReadLock(h.LockFile())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"coyote-provider-good", "coyote-provider-other"} {
		want := sha256Of(t, filepath.Join(dir, name))
		if read.Plugins[name].SHA256 != want || l.Plugins[name].SHA256 != want || read.Plugins[name].Path != filepath.Join(dir, name) {
			t.Errorf("%s: locked %+v, want sha256 %s", name, read.Plugins[name], want)
		}
	}
	if len(read.Plugins) != 2 {
		t.Errorf("lock lists %v", read.LockedNames())
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(h.LockFile()), ".*tmp*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestChangedBinaryIsRefusedUntilLockedAgain(t *testing.T) {
	h, dir := lockHost(t, "good")
	if _, err := h.WriteLock(Discover(h.Dirs())); err != nil {
		t.Fatal(err)
	}
	locked := sha256Of(t, filepath.Join(dir, "coyote-provider-good"))
	p := configured(t, h, "good")
	if _, err := chat(t, p, "hi"); err != nil {
		t.Fatalf("a locked plugin was refused: %v", err)
	}
	p.Plugin().stop()
	// Someone changes the binary.
	bin := filepath.Join(dir, "coyote-provider-good")
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("# changed\n")
	f.Close()
	_, err = chat(t, p, "hi")
	var lockErr *LockError
	if !errors.As(err, &lockErr) || lockErr.State != Mismatch {
		t.Fatalf("err = %v, want a mismatch", err)
	}
	want := "plugin coyote-provider-good does not match the plugin lock: expected sha256 " + locked + ", found " +
		sha256Of(t, bin) + " in " + bin + "; if you trust this binary, run `coyote plugins lock` again"
	if err.Error() != want {
		t.Fatalf("err =\n  %v\nwant\n  %s", err, want)
	}
	if len(p.Plugin().failures) != 0 {
		t.Fatal("a refusal counted as a failure of the plugin")
	}
	if _, err := h.WriteLock(Discover(h.Dirs())); err != nil {
		t.Fatal(err)
	}
	if _, err := chat(t, p, "hi"); err != nil {
		t.Fatalf("after locking again: %v", err)
	}
}

func TestPluginMissingFromTheLockIsRefused(t *testing.T) {
	h, dir := lockHost(t, "good")
	if _, err := h.WriteLock(Discover(h.Dirs())); err != nil {
		t.Fatal(err)
	}
	// A plugin dropped in after locking.
	script := "#!/bin/sh\nexit 0\n"
	if err := os.WriteFile(filepath.Join(dir, "coyote-provider-new"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := configured(t, h, "new")
	_, err := chat(t, p, "hi")
	want := "plugin coyote-provider-new (" + filepath.Join(dir, "coyote-provider-new") + ") is not in the plugin lock " + h.LockFile() +
		"; if you trust it, run `coyote plugins lock` again"
	if err == nil || err.Error() != want {
		t.Fatalf("err =\n  %v\nwant\n  %s", err, want)
	}
}

func TestDamagedLockRefusesEveryPluginAndSaysHowToFixIt(t *testing.T) {
	tests := []struct {
		name, lock, why string
	}{
		{"not json", "{not json", ": invalid character 'n' looking for beginning of object key string"},
		{"another version", `{"version": 2, "plugins": {}}`, ": version 2, this coyote reads version 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := lockHost(t, "good")
			if err := os.WriteFile(h.LockFile(), []byte(tt.lock), 0o600); err != nil {
				t.Fatal(err)
			}
			p := configured(t, h, "good")
			_, err := chat(t, p, "hi")
			want := "plugin coyote-provider-good cannot be checked against the plugin lock: read plugin lock " + h.LockFile() + tt.why +
				"; fix or remove " + h.LockFile() + ", or run `coyote plugins lock` to rewrite it"
			if err == nil || err.Error() != want {
				t.Fatalf("err =\n  %v\nwant\n  %s", err, want)
			}
		})
	}
}

// later makes a host hash as if a while after the test wrote its
// binaries, when their digests may be cached (see racyWindow).
func later(h *Host) *Host {
	h.digests.now = func() time.Time { return time.Now().Add(time.Minute) }
	return h
}

func TestDigestIsCachedUntilTheFileChanges(t *testing.T) {
	h, dir := lockHost(t, "good")
	later(h)
	bin := filepath.Join(dir, "coyote-provider-good")
	if _, err := h.WriteLock(Discover(h.Dirs())); err != nil {
		t.Fatal(err)
	}
	if n := hashed(h); n != 1 {
		t.Fatalf("locking hashed %d files", n)
	}
	check := func() error { return h.CheckLaunch(Found{Binary: "coyote-provider-good", Path: bin}) }
	for i := 0; i < 3; i++ {
		if err := check(); err != nil {
			t.Fatal(err)
		}
	}
	if n := hashed(h); n != 1 {
		t.Fatalf("three launches hashed the binary %d more times", n-1)
	}
	// A fresh host (the next coyote run) reads the cache from disk.
	again := New(Options{Dirs: h.Dirs(), LockFile: h.LockFile(), CacheDir: h.opts.CacheDir})
	if err := again.CheckLaunch(Found{Binary: "coyote-provider-good", Path: bin}); err != nil || hashed(again) != 0 {
		t.Fatalf("next run: err %v, hashed %d", err, hashed(again))
	}
	// A changed binary is hashed again, and refused.
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("# changed\n")
	f.Close()
	var lockErr *LockError
	if err := check(); !errors.As(err, &lockErr) || lockErr.State != Mismatch || hashed(h) != 2 {
		t.Fatalf("after a change: err = %v, hashed %d", err, hashed(h))
	}
}

func TestInPlaceChangeBehindARestoredMtimeIsCaught(t *testing.T) {
	// The real clock: either the digest was cached and the change time
	// moved, or the file was too fresh to cache (racyWindow); both are
	// caught.
	h, dir := lockHost(t, "good")
	bin := filepath.Join(dir, "coyote-provider-good")
	check := func() error { return h.CheckLaunch(Found{Binary: "coyote-provider-good", Path: bin}) }
	if _, err := h.WriteLock(Discover(h.Dirs())); err != nil {
		t.Fatal(err)
	}
	if err := check(); err != nil {
		t.Fatal(err)
	}
	// The binary was written a moment ago: its digest is not trusted from
	// the cache yet.
	if n := hashed(h); n != 2 {
		t.Fatalf("a fresh binary was hashed %d times in a lock and a launch, want 2", n)
	}
	// Same size, same inode, modification time set back.
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(bin)
	b[len(b)-2] ^= 1 // inside the script's last line
	f, err := os.OpenFile(bin, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(bin, time.Time{}, st.ModTime()); err != nil {
		t.Fatal(err)
	}
	err = check()
	var lockErr *LockError
	if !errors.As(err, &lockErr) || lockErr.State != Mismatch {
		t.Fatalf("a binary changed in place behind a restored mtime: err = %v", err)
	}
}

func TestCheckLockReportsEachPlugin(t *testing.T) {
	h, dir := lockHost(t, "good", "other")
	if l, checks, err := h.CheckLock(Discover(h.Dirs()), false); err != nil || l != nil || checks[0].State != NoLock {
		t.Fatalf("without a lock: %v %v %+v", l, err, checks)
	}
	if _, err := h.WriteLock(Discover(h.Dirs())); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coyote-provider-other"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coyote-provider-third"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, checks, err := h.CheckLock(Discover(h.Dirs()), true)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]LockState{}
	for _, c := range checks {
		got[c.Binary] = c.State
	}
	want := map[string]LockState{"coyote-provider-good": Locked, "coyote-provider-other": Mismatch, "coyote-provider-third": Unlocked}
	for name, s := range want {
		if got[name] != s {
			t.Errorf("%s: %s, want %s", name, got[name], s)
		}
	}
}

func TestLockedPluginCanStillBeInspected(t *testing.T) {
	h, _ := lockHost(t, "good")
	if _, err := h.WriteLock(Discover(h.Dirs())); err != nil {
		t.Fatal(err)
	}
	r := h.Inspect(context.Background(), Discover(h.Dirs()), nil)
	if r[0].Err != nil || r[0].Desc == nil {
		t.Fatalf("report = %+v", r[0])
	}
}

// coyote plugins checks the lock once: Inspect does not start, nor check
// again, a plugin the check refused, and reports it as its start would.
func TestInspectReportsWhatTheLockRefusedWithoutStartingIt(t *testing.T) {
	h, dir := lockHost(t, "good")
	if _, err := h.WriteLock(Discover(h.Dirs())); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coyote-provider-third"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	found := Discover(h.Dirs())
	_, checks, err := h.CheckLock(found, false)
	if err != nil {
		t.Fatal(err)
	}
	reports := h.Inspect(context.Background(), found, checks)
	if len(reports) != 2 || reports[0].Binary != "coyote-provider-good" || reports[1].Binary != "coyote-provider-third" {
		t.Fatalf("reports = %+v", reports)
	}
	if good := reports[0]; good.Err != nil || good.Desc == nil {
		t.Fatalf("the locked plugin: %+v", good)
	}
	third := reports[1]
	want := h.CheckLaunch(found[1])
	var lockErr *LockError
	if !errors.As(third.Err, &lockErr) || lockErr.State != Unlocked || third.Err.Error() != want.Error() || third.Desc != nil {
		t.Fatalf("the unlocked plugin: %+v, want the error %v", third, want)
	}
	h.mu.Lock()
	_, started := h.plugins["coyote-provider-third"]
	h.mu.Unlock()
	if started {
		t.Fatal("Inspect took up a plugin the lock had refused")
	}
}
