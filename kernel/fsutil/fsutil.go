// Package fsutil owns how the kernel writes user files: atomically, so
// that a crash or a kill at any moment leaves either the old file or the
// new one, never a truncated mix; and how shipped files are installed
// beside the user's without ever replacing one.
package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path through a temporary file in the same
// directory, synced and then renamed over path; the directory is synced
// too, so the rename survives a power cut. Missing parent directories are
// created (0700). perm applies to a new file; an existing file keeps its
// mode.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	tmp, err := writeTemp(path, data, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// writeTemp writes data, with mode perm, to a new temporary file beside
// path, synced and closed, and returns its name; the caller moves it into
// place. On failure nothing is left behind.
func writeTemp(path string, data []byte, perm os.FileMode) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
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
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// syncDir syncs a directory, so that a rename or link in it survives a
// power cut; best effort: not every system can sync a directory.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// InstallMissing copies every file of files that dir lacks into it,
// creating directories as needed, and returns the copied names
// (slash-separated, in lexical order). A file already there, edited or
// not, is never replaced (see CreateNew); a file the user deleted comes
// back at the next call.
// Only names that keep accepts are copied (nil keeps every one).
func InstallMissing(files fs.FS, dir string, perm fs.FileMode, keep func(name string) bool) (installed []string, err error) {
	err = fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || keep != nil && !keep(name) {
			return nil
		}
		dest := filepath.Join(dir, filepath.FromSlash(name))
		if _, err := os.Lstat(dest); err == nil {
			return nil // the user's file wins
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("install %s: %w", dest, err)
		}
		data, err := fs.ReadFile(files, name)
		if err != nil {
			return fmt.Errorf("install %s: %w", dest, err)
		}
		created, err := CreateNew(dest, data, perm)
		if err != nil {
			return fmt.Errorf("install %s: %w", dest, err)
		}
		if created {
			installed = append(installed, name)
		}
		return nil
	})
	return installed, err
}

// CreateNew writes data to path unless path exists, through a temporary
// file in the same directory that is synced and then hard-linked to path
// (a link, unlike a rename, fails when path exists). Where the file system
// has no hard links it falls back to a rename after one more check. It
// reports whether it created path. Missing directories are created (0700).
func CreateNew(path string, data []byte, perm fs.FileMode) (created bool, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	tmp, err := writeTemp(path, data, perm)
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp) // after a link path stays; after a rename this finds nothing

	linkErr := os.Link(tmp, path)
	switch {
	case linkErr == nil:
	case errors.Is(linkErr, fs.ErrExist):
		return false, nil
	default:
		if _, err := os.Lstat(path); err == nil {
			return false, nil
		}
		if err := os.Rename(tmp, path); err != nil {
			return false, err
		}
	}
	syncDir(dir)
	return true, nil
}
