package duckdbstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// DropFiles are the files Drop removes for the database file path, in
// the order it removes them: DuckDB's spill directory (left by a killed
// indexing run), the vector file (and any a killed Rebuild left half
// written), DuckDB's write-ahead log, then the database itself, so that
// a drop that fails half-way leaves the database to retry from.
func DropFiles(path string) []string {
	files := []string{path + ".tmp"}
	tmps, _ := filepath.Glob(vecFilePath(globEscape(path)) + ".tmp-*")
	files = append(files, tmps...)
	return append(files, vecFilePath(path), path+".wal", path)
}

// globEscape quotes the pattern characters of a path for filepath.Glob.
func globEscape(path string) string {
	var b []byte
	for i := 0; i < len(path); i++ {
		switch c := path[i]; c {
		case '*', '?', '[', '\\':
			b = append(b, '\\', c)
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// Drop removes a RAG's DuckDB files. A store open in this process is
// refused (close it first); one another process holds is refused with
// that process's *LockedError, found by opening the file read-write for a
// moment, as indexing would; a RAG without a file is not an error.
func (d *Driver) Drop(_ context.Context, req *ragstore.DropRequest) error {
	switch {
	case req.Store == "":
		return fmt.Errorf("drop: no store name: %w", sdk.ErrInvalidArgument)
	case req.Path == "":
		return fmt.Errorf("drop RAG %s: no path: %w", req.Store, sdk.ErrInvalidArgument)
	}
	path, err := filepath.Abs(FilePath(req.Path))
	if err != nil {
		return fmt.Errorf("drop RAG %s: %w", req.Store, err)
	}
	// Held for the whole drop, so that no Open of this process slips in
	// between the lock check and the removal.
	d.mu.Lock()
	defer d.mu.Unlock()
	if s := d.stores[req.Store]; s != nil || d.openAt(path) {
		return fmt.Errorf("drop RAG %s: its store is open in this process; close it first: %w", req.Store, sdk.ErrFailedPrecondition)
	}
	exists, err := fileExists(path)
	if err != nil {
		return fmt.Errorf("drop RAG %s: %w", req.Store, err)
	}
	if exists {
		if err := checkUnlocked(req.Store, path); err != nil {
			return err
		}
	}
	for _, f := range DropFiles(path) {
		if err := os.RemoveAll(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("drop RAG %s: %w", req.Store, err)
		}
	}
	sdk.Logger().Debug("dropped RAG store", "store", req.Store, "path", path)
	return nil
}

// openAt reports whether a store of this process has the file path open
// (under another name). d.mu is held.
func (d *Driver) openAt(path string) bool {
	for _, s := range d.stores {
		if s.path == path {
			return true
		}
	}
	return false
}

// checkUnlocked opens the file read-write and closes it again: DuckDB
// refuses at once, with the holder's PID, when another process has it
// open, which classifyOpenError turns into a *LockedError. Any other
// failure (a file DuckDB cannot read, which the user wants gone all the
// more) does not stop the drop.
func checkUnlocked(store, path string) error {
	opts, err := dbOptions(ragstore.ReadWrite, nil)
	if err != nil {
		return err
	}
	db, err := openDB(store, path, opts)
	var le *LockedError
	if errors.As(err, &le) {
		le.Want = "deleted"
		return le
	}
	if err != nil {
		sdk.Logger().Debug("dropping a RAG store DuckDB cannot open", "store", store, "path", path, "error", err)
		return nil
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("drop RAG %s: %w", store, err)
	}
	return nil
}

var _ ragstore.Dropper = (*Driver)(nil)
