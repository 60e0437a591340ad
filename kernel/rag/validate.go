package rag

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Driver says what a store driver can do, as its plugin announces it
// (sdk/ragstore's CapOwned and CapAttach).
type Driver struct {
	// Owned: it holds chunks the kernel indexes.
	Owned bool
	// Attach: it can query an external collection it does not own.
	Attach bool
}

// Drivers maps a driver name (the RAG file's driver) to what it can do.
type Drivers map[string]Driver

// BuiltinDrivers are the drivers shipped with Coyote. The original's
// qdrant driver only attaches; here it can also own a collection.
var BuiltinDrivers = Drivers{
	"yaml":   {Owned: true},
	"duckdb": {Owned: true},
	"qdrant": {Owned: true, Attach: true},
}

// Validate checks the rules between the fields: top_k ≥ 1; for a RAG
// that owns its chunks, chunk_size ≥ 1 and chunk_overlap < chunk_size; a
// driver among drivers (nil means BuiltinDrivers) that can do what the
// file asks (attach, or own). Every problem is reported, each a *FileError
// naming the file and the field.
func (f *File) Validate(drivers Drivers) error {
	if drivers == nil {
		drivers = BuiltinDrivers
	}
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, &FileError{Path: f.Path, Line: f.lines[field], Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	driver := f.driver()
	if d, ok := drivers[driver]; !ok {
		fail("driver", "unknown driver %q (known: %s)", driver, strings.Join(drivers.names(nil), ", "))
	} else if f.Attached && !d.Attach {
		fail("attached", "the %s driver cannot attach to an external collection%s", driver, drivers.which("attach", func(d Driver) bool { return d.Attach }))
	} else if !f.Attached && !d.Owned {
		fail("attached", "the %s driver only attaches to an external collection: set attached: true%s", driver, drivers.which("index documents", func(d Driver) bool { return d.Owned }))
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

// names lists the drivers keep accepts (nil: all), sorted.
func (ds Drivers) names(keep func(Driver) bool) []string {
	var out []string
	for n, d := range ds {
		if keep == nil || keep(d) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func (ds Drivers) which(can string, keep func(Driver) bool) string {
	names := ds.names(keep)
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(" (drivers that %s: %s)", can, strings.Join(names, ", "))
}
