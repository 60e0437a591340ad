// Package bundled installs the tool scripts that ship inside the coyote
// binary (assets.Functions: tools/*.sh and utils/*.sh) into the user's
// functions directory.
//
// It owns that copy and nothing else: it writes only files that do not
// exist yet, so a file the user has edited, or one of the same name from
// the original's functions directory, always wins; it never deletes or
// updates a file. Parsing the tools' comment tags, generating their
// wrappers in bin/ and running them belong to kernel/tools/script.
package bundled

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coyote-cli/coyote/assets"
)

// Install copies every bundled file that is missing from functionsDir into
// it, creating directories as needed, and returns the copied files' paths
// relative to functionsDir (slash-separated, in lexical order). Scripts get
// mode 0755. Each file is written to a temporary file in its directory and
// then linked into place, so a reader sees either no file or the whole
// file, and a file that appears meanwhile is not replaced. Calling it again
// copies only what has gone missing since, so it is cheap to call at every
// start; note that it also brings back a bundled file the user deleted.
func Install(functionsDir string) (installed []string, err error) {
	return install(assets.Functions(), functionsDir)
}

func install(files fs.FS, dir string) (installed []string, err error) {
	err = fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
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
		created, err := createFile(dest, data, 0o755)
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

// createFile writes data to path unless path exists, through a temporary
// file in the same directory that is synced and then hard-linked to path
// (a link, unlike a rename, fails when path exists). Where the file system
// has no hard links it falls back to a rename after one more check. It
// reports whether it created path. Missing directories are created (0700,
// as kernel/fsutil does for the config directory).
func createFile(path string, data []byte, perm fs.FileMode) (created bool, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return false, err
	}
	tmpName := tmp.Name()
	defer func() {
		if tmp != nil {
			_ = tmp.Close()
		}
		_ = os.Remove(tmpName) // after a link path stays; after a rename this finds nothing
	}()
	if err := tmp.Chmod(perm); err != nil {
		return false, err
	}
	if _, err := tmp.Write(data); err != nil {
		return false, err
	}
	if err := tmp.Sync(); err != nil {
		return false, err
	}
	err = tmp.Close()
	tmp = nil
	if err != nil {
		return false, err
	}

	linkErr := os.Link(tmpName, path)
	switch {
	case linkErr == nil:
	case errors.Is(linkErr, fs.ErrExist):
		return false, nil
	default:
		if _, err := os.Lstat(path); err == nil {
			return false, nil
		}
		if err := os.Rename(tmpName, path); err != nil {
			return false, err
		}
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: not every system can sync a directory
		_ = d.Close()
	}
	return true, nil
}
