package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name     string
		existing *os.FileMode // nil: no file before
		perm     os.FileMode
		wantMode os.FileMode
	}{
		{name: "new file gets perm", perm: 0o600, wantMode: 0o600},
		{name: "new file 0644", perm: 0o644, wantMode: 0o644},
		{name: "existing file keeps its mode", existing: ptr(os.FileMode(0o640)), perm: 0o600, wantMode: 0o640},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "sub", "f.txt")
			if tt.existing != nil {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte("old"), *tt.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, *tt.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(path, []byte("new"), tt.perm); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != "new" {
				t.Fatalf("content %q, %v", got, err)
			}
			st, _ := os.Stat(path)
			if st.Mode().Perm() != tt.wantMode {
				t.Errorf("mode %v, want %v", st.Mode().Perm(), tt.wantMode)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

func TestWriteFileFailureLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A directory where the file should go cannot be renamed over.
	target := filepath.Join(dir, "d")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(target, []byte("new"), 0o600)
	if err == nil || !strings.Contains(err.Error(), "write "+target) {
		t.Fatalf("err = %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("a temporary file was left behind: %v", entries)
	}
}

func ptr[T any](v T) *T { return &v }
