// Package fsx owns how Coyote and its plugins write user files: atomically, so
// that a crash or a kill at any moment leaves either the old file or the
// new one, never a truncated mix; privately, so that a file holding
// secrets or prompts is never readable by others; one writer at a time
// (LockFile, and Update for a change made on the file as it is now), so
// that two coyote processes changing the same file can merge instead of
// losing a change; and how shipped files are installed
// beside the user's without ever replacing one.
//
// # Modes
//
// Every file is written with the mode its caller gives, or tighter: a file
// being replaced keeps any permission bit it lacked (a role file the user
// made 0600 stays 0600), but never keeps one the caller does not give (a
// token file left 0644 by an older version becomes 0600 at its next
// write). WritePrivate is the call for secrets and conversations (the
// vault, OAuth tokens, sessions, history): always 0600. Directories are
// created 0700; PrivateDir also tightens an existing one.
//
// # Temporary files
//
// A write goes through a temporary file in the target's directory, named
// .<target name>.tmp-<pid>-<random> and created 0600, then renamed over
// the target. A writer killed mid-way leaves its temporary file behind;
// the next write of the same target removes every such file that is more
// than a minute old and whose process is gone.
package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// PrivateFileMode is the mode of a file only its owner may read or write:
// the vault, OAuth tokens, sessions, the REPL history, logs.
const PrivateFileMode fs.FileMode = 0o600

// privateDirMode is the mode of every directory fsx creates.
const privateDirMode fs.FileMode = 0o700

// staleAfter is how old a dead writer's temporary file must be before
// another writer removes it.
const staleAfter = time.Minute

// WriteFileAtomic writes data to path through a temporary file in the same
// directory, synced and then renamed over path; the directory is synced
// too, so the rename survives a power cut. Missing parent directories are
// created (0700). The file gets mode perm, without any bit the file it
// replaces lacked (see the package comment).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return WriteAtomicFunc(path, perm, bytesWriter(data))
}

// WritePrivate is WriteFileAtomic for a file that holds secrets or what
// the user typed: it is always written 0600 (0400 stays 0400), whatever
// mode the file it replaces had.
func WritePrivate(path string, data []byte) error {
	return WriteFileAtomic(path, data, PrivateFileMode)
}

// PrivateDir makes dir, and any missing parent, with mode 0700, and takes
// the group's and others' permissions off dir itself when it already
// exists (a history folder made 0755 by an older version).
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, privateDirMode); err != nil {
		return err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return os.Chmod(dir, perm&^0o077)
	}
	return nil
}

// MakePrivate takes the group's and others' permissions off an existing
// file (a history file left 0644 by an older version); a missing file is
// not an error.
func MakePrivate(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return os.Chmod(path, perm&^0o077)
	}
	return nil
}

// OpenPrivateAppend opens path for appending (a log, messages.md),
// creating it 0600 and its missing directories 0700, and takes the
// group's and others' permissions off a file an older version left open.
func OpenPrivateAppend(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), privateDirMode); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, PrivateFileMode)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(st.Mode().Perm() &^ 0o077); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// tempPrefix is the start of the names of path's temporary files.
func tempPrefix(path string) string {
	return "." + filepath.Base(path) + ".tmp-"
}

// writeTemp writes a new temporary file beside path with write, gives it
// mode perm, syncs and closes it, and returns its name; the caller moves
// it into place. On failure nothing is left behind. Stale temporary files
// of path are removed first.
func writeTemp(path string, perm fs.FileMode, write func(w io.Writer) error) (string, error) {
	removeStaleTemps(path)
	tmp, err := createTemp(path)
	if err != nil {
		return "", err
	}
	err = write(tmp)
	if err == nil && perm != PrivateFileMode {
		err = tmp.Chmod(perm)
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

// bytesWriter writes data, for writeTemp.
func bytesWriter(data []byte) func(w io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// createTemp creates .<base>.tmp-<pid>-<random> beside path, mode 0600
// (the umask can only narrow it).
func createTemp(path string) (*os.File, error) {
	prefix := filepath.Join(filepath.Dir(path), tempPrefix(path)+strconv.Itoa(os.Getpid())+"-")
	for range 100 {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 36)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, PrivateFileMode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("create a temporary file beside %s: too many name collisions", path)
}

// removeStaleTemps removes the temporary files a killed writer of path
// left: .<base>.tmp-<pid>-… files more than a minute old whose process is
// gone (files of older versions, .<base>.tmp-<digits>, are treated the
// same way). It is best effort and reports nothing; every write calls it.
func removeStaleTemps(path string) {
	dir := filepath.Dir(path)
	prefix := tempPrefix(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == self || pid > 0 && processAlive(pid) {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < staleAfter {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
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
	if err := os.MkdirAll(dir, privateDirMode); err != nil {
		return false, err
	}
	tmp, err := writeTemp(path, perm, bytesWriter(data))
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

// WriteAtomicFunc is WriteFileAtomic for a file written as it is made
// (one too big to hold in memory): write gets the temporary file, which
// it should buffer, and the file is synced and renamed over path only
// when write returns nil; on failure nothing is left behind.
func WriteAtomicFunc(path string, perm fs.FileMode, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, privateDirMode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if st, err := os.Stat(path); err == nil {
		perm &= st.Mode().Perm()
	}
	tmp, err := writeTemp(path, perm, write)
	if err == nil {
		if err = os.Rename(tmp, path); err != nil {
			_ = os.Remove(tmp)
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}
