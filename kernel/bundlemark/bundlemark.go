// Package bundlemark decides, cheaply, whether the files bundled in the
// binary (tools, agents, macros, skills) need installing: a marker file
// records a fingerprint of what was last installed, and where, so that a
// run whose bundle and directories are unchanged reads one small file and
// stats the directories instead of checking every bundled file.
//
// It owns the marker and nothing else: what "installing" means (never
// replacing a user's file) belongs to each Part's Install.
package bundlemark

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"strconv"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// Part is one kind of bundled file and where it is installed.
type Part struct {
	// Name says what the part is in messages ("tools").
	Name string
	// Files is the part's bundled files; their names and sizes are its
	// fingerprint.
	Files fs.FS
	// Dir is where the part is installed; a missing Dir means that it
	// needs installing whatever the marker says.
	Dir string
	// Install copies the part's missing files into Dir.
	Install func() error
}

// Fingerprint identifies the parts' bundled files (names and sizes) and
// their directories, in hexadecimal. A bundle that adds, removes, renames
// or resizes a file, or a directory moved by the environment, changes it.
func Fingerprint(parts []Part) (string, error) {
	h := fnv.New128a()
	for _, p := range parts {
		fmt.Fprintf(h, "part %s %s\x00", p.Name, p.Dir)
		err := fs.WalkDir(p.Files, ".", func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			h.Write([]byte(name))
			h.Write([]byte{0})
			h.Write(strconv.AppendInt(nil, info.Size(), 10))
			h.Write([]byte{0})
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("fingerprint the bundled %s: %w", p.Name, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Ensure installs the parts unless the marker file says that this very
// bundle was installed into these directories and every directory still
// exists. After installing every part without an error it writes the
// marker (atomically), so that the next run does nothing; when a part
// fails, the marker is left as it was, the other parts are still
// installed, and the next run tries again. It reports whether it
// installed, and the parts' errors joined.
func Ensure(marker string, parts []Part) (installed bool, err error) {
	fp, err := Fingerprint(parts)
	if err != nil {
		return false, err
	}
	if Current(marker, fp, parts) {
		return false, nil
	}
	var errs []error
	for _, p := range parts {
		if err := p.Install(); err != nil {
			errs = append(errs, fmt.Errorf("install the bundled %s in %s: %w", p.Name, p.Dir, err))
		}
	}
	if len(errs) > 0 {
		return true, errors.Join(errs...)
	}
	if err := fsx.WriteFileAtomic(marker, []byte(fp+"\n"), 0o644); err != nil {
		return true, fmt.Errorf("record the bundled files as installed: %w", err)
	}
	return true, nil
}

// Current reports whether the marker holds fingerprint fp and every
// part's directory exists.
func Current(marker, fp string, parts []Part) bool {
	data, err := os.ReadFile(marker)
	if err != nil || string(data) != fp+"\n" {
		return false
	}
	for _, p := range parts {
		if st, err := os.Stat(p.Dir); err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}
