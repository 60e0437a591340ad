package mcpconf

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// Get returns the file's server of that name, or nil.
func (f *File) Get(name string) *Server {
	for _, s := range f.Servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Put adds s, or replaces the server of the same name where it stands, and
// reports whether it replaced one. s is written from its fields.
func (f *File) Put(s *Server) (replaced bool) {
	f.edits = append(f.edits, func(g *File) { g.put(s) })
	return f.put(s)
}

func (f *File) put(s *Server) (replaced bool) {
	s.raw = nil
	for i, old := range f.Servers {
		if old.Name == s.Name {
			f.Servers[i] = s
			return true
		}
	}
	f.Servers = append(f.Servers, s)
	return false
}

// Remove removes the server of that name and reports whether there was
// one.
func (f *File) Remove(name string) bool {
	f.edits = append(f.edits, func(g *File) { g.remove(name) })
	return f.remove(name)
}

func (f *File) remove(name string) bool {
	for i, s := range f.Servers {
		if s.Name == name {
			f.Servers = append(f.Servers[:i], f.Servers[i+1:]...)
			return true
		}
	}
	return false
}

// Encode is the file's content: pretty JSON (two-space indent) with the
// servers in order. A server read from a file and not replaced is written
// as it was read (same fields, order and values; only the spacing may
// change).
func (f *File) Encode() []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"mcpServers\": {")
	for i, s := range f.Servers {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		b.WriteString(jsonString(s.Name))
		b.WriteString(": ")
		b.Write(indent(s.compact(), "    "))
	}
	if len(f.Servers) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("}\n}\n")
	return b.Bytes()
}

// Save writes the file atomically (a temporary file renamed over it),
// creating its directory when needed, mode 0600 (see fsx).
//
// A File that was read (ReadFile, Parse) is saved under the file's lock
// (fsx.LockFile): when another process changed the file since it was
// read, the Puts and Removes made since are made again on the file as it
// is now, so that both changes are kept (two coyote --mcp-add at once);
// a file that is no longer valid is left alone, with an error. The File
// then holds what was written.
func (f *File) Save() error {
	if !f.read {
		return fsx.WriteFileAtomic(f.Path, f.Encode(), 0o600)
	}
	var data []byte
	err := fsx.Update(f.Path, fsx.DefaultLockWait, func(now []byte, _ bool) ([]byte, error) {
		if !bytes.Equal(now, f.loaded) {
			cur, err := Parse(f.Path, now)
			if err != nil {
				return nil, fmt.Errorf("%s was changed since coyote read it and is no longer valid, so nothing was saved: %w", f.Path, err)
			}
			for _, edit := range f.edits {
				edit(cur)
			}
			f.Servers = cur.Servers
		}
		data = f.Encode()
		return data, nil
	})
	if err != nil {
		return err
	}
	f.loaded, f.edits = data, nil
	return nil
}

// indent re-indents compact or spaced JSON by two spaces per level, each
// line after the first starting with prefix.
func indent(data []byte, prefix string) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, data, prefix, "  "); err != nil {
		return data // unreachable: data was read or made as valid JSON
	}
	return b.Bytes()
}
