package logging

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogFileIsCreatedOnlyWhenWrittenTo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "coyote.log")
	l, err := New(path, "info")
	if err != nil {
		t.Fatal(err)
	}
	l.Debug("below the level")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("log file exists before any line was logged: %v", err)
	}
	l.Info("first line", "k", "v")
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "first line: k=v") {
		t.Fatalf("log = %q, %v", b, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("log mode %v, want 0600", st.Mode().Perm())
	}
}

func TestLogRotatesWhenTooBig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "coyote.log")
	for i, name := range []string{path, path + ".1", path + ".5"} {
		if err := os.WriteFile(name, []byte{byte('a' + i)}, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Truncate(path, maxSize+1); err != nil {
		t.Fatal(err)
	}
	l, _ := New(path, "")
	l.Error("fresh")
	if st, err := os.Stat(path + ".1"); err != nil || st.Size() != maxSize+1 {
		t.Fatalf("coyote.log.1: %v %v", st, err)
	}
	if b, _ := os.ReadFile(path + ".2"); string(b) != "b" {
		t.Fatalf("coyote.log.2 = %q, want the old .1", b)
	}
	if _, err := os.Stat(path + ".6"); !os.IsNotExist(err) {
		t.Fatal("more than five old logs kept")
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "fresh") || len(b) > 200 {
		t.Fatalf("new log = %q", b)
	}
}

func TestUnknownLevelIsAnError(t *testing.T) {
	if _, err := New("x", "loud"); err == nil || !strings.Contains(err.Error(), `unknown log level "loud"`) {
		t.Fatalf("err = %v", err)
	}
}
