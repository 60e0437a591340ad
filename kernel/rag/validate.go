package rag

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Driver says what a store driver can do, as its plugin announces it
// (sdk/ragstore's CapOwned, CapAttach, CapListFiles, CapSetup and
// CapGraph).
// The kernel knows no driver by name: this comes from the plugin.
type Driver struct {
	// Name is the driver, the <driver> of coyote-rag-<driver>.
	Name string
	// Owned: it holds chunks the kernel indexes.
	Owned bool
	// Attach: it can query an external collection it does not own.
	Attach bool
	// ListFiles: it lists the files it holds, which RAG.CheckStore
	// compares with the RAG's file.
	ListFiles bool
	// Setup: it has setup questions and checks driver_config.
	Setup bool
	// Graph: it keeps a RAG's knowledge graph (RAG.GraphStore).
	Graph bool
}

// UnknownDriverError is a RAG driver with no store plugin installed.
type UnknownDriverError struct {
	Driver string
	// Installed are the drivers whose store plugins are installed.
	Installed []string
}

func (e *UnknownDriverError) Error() string {
	installed := "none"
	if len(e.Installed) > 0 {
		s := append([]string(nil), e.Installed...)
		sort.Strings(s)
		installed = strings.Join(s, ", ")
	}
	return fmt.Sprintf("unknown driver %q: no store plugin coyote-rag-%s is installed (installed: %s); run `coyote plugins` to see the plugin directories", e.Driver, e.Driver, installed)
}

// Validate checks the rules between the fields: top_k ≥ 1; for a RAG that
// owns its chunks, chunk_size ≥ 1 and chunk_overlap < chunk_size; a driver
// that can do what the file asks (attach, or own), as d says. Every
// problem is reported, each a *FileError naming the file and the field.
func (f *File) Validate(d Driver) error {
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, &FileError{Path: f.Path, Line: f.lines[field], Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	driver := f.driver()
	switch {
	case f.Attached && !d.Attach:
		fail("attached", "the %s driver cannot attach to an external collection: set attached: false, or use a driver that attaches", driver)
	case !f.Attached && !d.Owned:
		fail("attached", "the %s driver only attaches to an external collection: set attached: true (or attach one with .rag attach)", driver)
	}
	if f.TopK < 1 {
		fail("top_k", "must be at least 1 (it is how many chunks a search returns), not %d", f.TopK)
	}
	if !f.Attached {
		if f.ChunkSize < 1 {
			fail("chunk_size", "must be at least 1 (it is the most bytes a chunk holds), not %d", f.ChunkSize)
		} else if f.ChunkOverlap >= f.ChunkSize {
			fail("chunk_overlap", "must be less than chunk_size (%d), not %d", f.ChunkSize, f.ChunkOverlap)
		}
		if f.ChunkOverlap < 0 {
			fail("chunk_overlap", "must not be negative, not %d", f.ChunkOverlap)
		}
	}
	return errors.Join(errs...)
}

// DriverConfigError is a driver_config the driver's plugin refused, as a
// *FileError naming the file and the line of driver_config.
func (f *File) DriverConfigError(err error) error {
	return &FileError{Path: f.Path, Line: f.lines["driver_config"], Msg: err.Error()}
}
