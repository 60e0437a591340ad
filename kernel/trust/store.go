package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// Sum is the SHA-256 of a file's content: what a decision is about.
type Sum [sha256.Size]byte

// SumOf is the Sum of data.
func SumOf(data []byte) Sum { return sha256.Sum256(data) }

// String is the sum in hex, as the store writes it.
func (s Sum) String() string { return hex.EncodeToString(s[:]) }

// Record is one remembered decision: the user approved (Trusted) or
// declined the file at Path whose content had the hash SHA256.
type Record struct {
	Path    string    `json:"path"`
	SHA256  string    `json:"sha256"`
	Kind    string    `json:"kind"`
	Trusted bool      `json:"trusted"`
	At      time.Time `json:"at"`
}

// keepPerPath is how many contents of one path the store remembers (the
// newest decisions), so that switching between two branches does not ask
// each time, and the file does not grow without end.
const keepPerPath = 8

// storeFile is the file's shape; Version is 1.
type storeFile struct {
	Version int      `json:"version"`
	Files   []Record `json:"files"`
}

// Store is the remembered decisions, in one JSON file. Every change is
// made under the file's lock on the file as it is then, so that two
// coyote processes deciding at once both keep their decision. The file is
// written atomically and readable by its owner only. A missing file holds
// no decisions; a damaged one is reported by the reads and replaced by
// the next write (losing decisions only makes Coyote ask again).
type Store struct{ path string }

// StorePath is where the decisions live: trust.json in the cache
// directory.
func StorePath(cacheDir string) string { return filepath.Join(cacheDir, "trust.json") }

// NewStore returns the store kept in the file at path; it reads nothing.
func NewStore(path string) *Store { return &Store{path: path} }

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// List returns every decision, oldest first.
func (s *Store) List() ([]Record, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	return f.Files, nil
}

// Lookup returns the decision about path with content sum, if there is
// one.
func (s *Store) Lookup(path string, sum Sum) (Record, bool, error) {
	f, err := s.read()
	if err != nil {
		return Record{}, false, err
	}
	r, found := f.lookup(path, sum)
	return r, found, nil
}

// lookup finds the decision about path with content sum.
func (f *storeFile) lookup(path string, sum Sum) (Record, bool) {
	hex := sum.String()
	for _, r := range f.Files {
		if r.Path == path && r.SHA256 == hex {
			return r, true
		}
	}
	return Record{}, false
}

// Put remembers records, each replacing the decision about the same path
// and content, in one change of the file; a path keeps its newest
// keepPerPath decisions.
func (s *Store) Put(records ...Record) error {
	return s.change(func(f *storeFile) {
		for _, r := range records {
			f.put(r)
		}
	})
}

func (f *storeFile) put(r Record) {
	f.Files = slices.DeleteFunc(f.Files, func(x Record) bool { return x.Path == r.Path && x.SHA256 == r.SHA256 })
	f.Files = append(f.Files, r)
	n := 0
	for i := len(f.Files) - 1; i >= 0; i-- {
		if f.Files[i].Path != r.Path {
			continue
		}
		if n++; n > keepPerPath {
			f.Files = slices.Delete(f.Files, i, i+1)
		}
	}
}

// Forget removes the decisions match accepts and returns them.
func (s *Store) Forget(match func(Record) bool) ([]Record, error) {
	var gone []Record
	err := s.change(func(f *storeFile) {
		f.Files = slices.DeleteFunc(f.Files, func(r Record) bool {
			if match(r) {
				gone = append(gone, r)
				return true
			}
			return false
		})
	})
	return gone, err
}

// change applies edit to the file as it is under its lock, and writes it
// back when edit changed anything.
func (s *Store) change(edit func(*storeFile)) error {
	return fsx.Update(s.path, fsx.DefaultLockWait, func(current []byte, _ bool) ([]byte, error) {
		f, err := s.decode(current)
		if err != nil {
			f = &storeFile{} // damaged: start again (see Store)
		}
		before, _ := json.Marshal(f)
		edit(f)
		after, _ := json.Marshal(f)
		if err == nil && string(before) == string(after) {
			return nil, nil
		}
		f.Version = 1
		data, merr := json.MarshalIndent(f, "", "  ")
		if merr != nil {
			return nil, fmt.Errorf("write %s: %w", s.path, merr)
		}
		if err := fsx.PrivateDir(filepath.Dir(s.path)); err != nil {
			return nil, fmt.Errorf("write %s: %w", s.path, err)
		}
		return append(data, '\n'), nil
	})
}

// read reads the file; a missing one is empty.
func (s *Store) read() (*storeFile, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &storeFile{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the trusted workspace files: %w", err)
	}
	return s.decode(data)
}

// decode parses the file's content; an empty one holds no decisions.
func (s *Store) decode(data []byte) (*storeFile, error) {
	if strings.TrimSpace(string(data)) == "" {
		return &storeFile{Version: 1}, nil
	}
	var f storeFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("read the trusted workspace files: %s is damaged (%v); delete it, and Coyote asks about each workspace file again", s.path, err)
	}
	return &f, nil
}
