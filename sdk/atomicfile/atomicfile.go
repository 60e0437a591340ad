// Package atomicfile writes files so that a crash, a kill or a full disk at
// any moment leaves either the old file or the new one, never a truncated
// mix. A plugin that keeps state in files (tokens, a RAG's vectors, a
// cache) writes them with it:
//
//	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
//		return fmt.Errorf("save token: %w", err)
//	}
//
// WriteFile writes a temporary file in the same directory as path (a
// rename is atomic only within one file system), syncs it, renames it over
// path and syncs the directory, so that the rename survives a power cut
// too. A failed write removes its temporary file and leaves path as it
// was.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically. Missing parent directories are
// created with mode 0700. perm is the mode of a new file; a file that
// exists keeps its mode.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	err = tmp.Chmod(perm)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil { // best effort: not every system syncs a directory
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
