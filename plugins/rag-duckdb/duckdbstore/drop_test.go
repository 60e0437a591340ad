package duckdbstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// built makes a closed store "docs" in dir with one chunk.
func built(t *testing.T, dir string) string {
	t.Helper()
	d := New()
	open(t, d, dir, "docs", ragstore.ReadWrite, helperDim)
	vec := make([]float32, helperDim)
	vec[0] = 1
	upsert(t, d, "docs", ragstore.Chunk{ID: "0-0", FileID: "0", Text: "x", Vector: vec})
	if err := d.CloseAll(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "docs.duckdb")
}

func drop(d *Driver, dir string) error {
	return d.Drop(context.Background(), &ragstore.DropRequest{Store: "docs", Path: filepath.Join(dir, "docs.yaml")})
}

// left lists the files of DropFiles that are still there.
func left(db string) []string {
	var out []string
	for _, f := range DropFiles(db) {
		if _, err := os.Lstat(f); err == nil {
			out = append(out, filepath.Base(f))
		}
	}
	return out
}

// The files the REPL used to remove by name: the spill directory a killed
// indexing run leaves, the WAL and the database, and the vector file;
// the yaml stays (the kernel's).
func TestDropRemovesTheSpillDirectoryTheWALAndTheDatabase(t *testing.T) {
	dir := t.TempDir()
	db := built(t, dir)
	yaml := filepath.Join(dir, "docs.yaml")
	if err := os.WriteFile(yaml, []byte("driver: duckdb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(db+".tmp", "spill"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(db+".tmp", "spill", "block"), []byte("spilled"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A WAL DuckDB cannot replay: the drop goes on (the file is unusable,
	// which is no reason to keep it).
	if err := os.WriteFile(db+".wal", []byte("not a WAL"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The vector file, and one a killed Rebuild left half written.
	for _, f := range []string{vecFilePath(db), vecFilePath(db) + ".tmp-123"} {
		if err := os.WriteFile(f, []byte("vectors"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := left(db); len(got) != 5 {
		t.Fatalf("before the drop: %v", got)
	}
	d := New()
	if err := drop(d, dir); err != nil {
		t.Fatal(err)
	}
	if got := left(db); len(got) != 0 {
		t.Fatalf("the drop left %v", got)
	}
	if _, err := os.Stat(yaml); err != nil {
		t.Fatalf("the drop touched the yaml: %v", err)
	}
	_, err := d.Open(context.Background(), &ragstore.OpenRequest{Store: "docs", Path: yaml, Mode: ragstore.ReadOnly})
	if !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("read-only open after the drop: %v", err)
	}
	// A drop that failed half-way (or a RAG never built) is retried.
	if err := drop(d, dir); err != nil {
		t.Fatalf("drop again: %v", err)
	}
}

// A store another process holds, reading or indexing, is never deleted
// under it: the drop says who holds it, and works once it is gone.
func TestDropOfAStoreAnotherProcessHoldsSaysWho(t *testing.T) {
	for _, tt := range []struct {
		mode, want string
	}{
		{"hold-ro", "RAG docs is open in another coyote process (PID %d); it can be deleted once that process has closed it"},
		{"hold-rw", "RAG docs is being indexed by another coyote process (PID %d); try again once it has finished"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			dir := t.TempDir()
			db := built(t, dir)
			cmd, stdin, lines := helper(t, tt.mode, dir, "docs")
			expect(t, lines, "ready")
			d := New()
			err := drop(d, dir)
			var le *LockedError
			if !errors.As(err, &le) || !errors.Is(err, sdk.ErrUnavailable) {
				t.Fatalf("drop of a held store: %v", err)
			}
			if want := fmt.Sprintf(tt.want, cmd.Process.Pid); err.Error() != want {
				t.Fatalf("error %q, want %q", err, want)
			}
			if _, err := os.Stat(db); err != nil {
				t.Fatalf("the refused drop removed the database: %v", err)
			}
			_ = stdin.Close()
			_ = cmd.Wait()
			if err := drop(d, dir); err != nil {
				t.Fatalf("drop once the other process is gone: %v", err)
			}
			if got := left(db); len(got) != 0 {
				t.Fatalf("the drop left %v", got)
			}
		})
	}
}

func TestDropOfAStoreOpenInThisProcessIsRefused(t *testing.T) {
	dir := t.TempDir()
	db := built(t, dir)
	d := New()
	open(t, d, dir, "docs", ragstore.ReadOnly, 0)
	if err := drop(d, dir); !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("drop of an open store: %v", err)
	}
	// Open under another name, same file.
	other := New()
	if _, err := other.Open(context.Background(), &ragstore.OpenRequest{Store: "alias", Path: filepath.Join(dir, "docs.yml"), Mode: ragstore.ReadOnly}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.CloseAll() })
	if err := drop(other, dir); !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("drop of a file open under another name: %v", err)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("a refused drop removed the database: %v", err)
	}
}
