package macro

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/coyote-cli/coyote/assets"
)

// Install copies each built-in macro (assets.Macros) that globalDir lacks
// into it, creating the directory if needed, and returns the names of the
// files it wrote, sorted. A file already there, edited or not, is never
// replaced: each copy goes to a temporary file in globalDir that is then
// hard-linked to its name, which fails rather than overwrite a file that
// appeared meanwhile. A built-in macro the user deleted comes back at the
// next call; the caller decides how often to call it.
func Install(globalDir string) ([]string, error) {
	return install(assets.Macros(), globalDir)
}

func install(files fs.FS, dir string) ([]string, error) {
	names, err := fs.Glob(files, "*"+ext)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var written []string
	for _, name := range names {
		dest := filepath.Join(dir, name)
		if _, err := os.Lstat(dest); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return written, fmt.Errorf("install macro %s: %w", dest, err)
		}
		data, err := fs.ReadFile(files, name)
		if err != nil {
			return written, fmt.Errorf("install macro %s: %w", dest, err)
		}
		created, err := writeNew(dest, data, 0o644)
		if err != nil {
			return written, fmt.Errorf("install macro %s: %w", dest, err)
		}
		if created {
			written = append(written, name)
		}
	}
	return written, nil
}

// writeNew creates path with data unless it exists, and reports whether
// it did. The data is written and synced to a temporary file beside path,
// which is then hard-linked to path: a link never replaces an existing
// file, and a reader sees no file or the whole of it. On a file system
// without hard links it renames instead, after checking once more that
// path is still absent. The directory is created (0700) when missing.
func writeNew(path string, data []byte, perm fs.FileMode) (bool, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".new-*")
	if err != nil {
		return false, err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after the link path keeps the data; after a rename tmp is gone
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		if _, serr := os.Lstat(path); serr == nil {
			return false, nil
		}
		if err := os.Rename(tmp, path); err != nil {
			return false, err
		}
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: some systems cannot sync a directory
		_ = d.Close()
	}
	return true, nil
}
