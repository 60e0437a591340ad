// Package jsonscan reads JSON by hand, for the one part of a provider's
// replies that encoding/json decodes too slowly: the numbers of embedding
// vectors. A batch of vectors is almost all numbers, which encoding/json
// turns into float32 values about ten times slower than this package (see
// BenchmarkFloats and BenchmarkFloatsEncodingJSON), slower than the whole
// round trip of a call through a plugin. Coyote's provider plugins read
// embeddings with it and everything else with encoding/json; a third
// party's provider plugin can do the same.
//
//	s := jsonscan.New(body)
//	// {"data": [{"embedding": [0.1, …]}, …]}, other keys skipped
//	err := s.Object(func(key []byte) error {
//		if string(key) != "data" {
//			_, err := s.Skip()
//			return err
//		}
//		return s.Array(func() error {
//			return s.Object(func(key []byte) error {
//				if string(key) != "embedding" {
//					_, err := s.Skip()
//					return err
//				}
//				v, err := s.Floats(nil)
//				vectors = append(vectors, v)
//				return err
//			})
//		})
//	})
//
// A Scanner walks one document front to back. The caller describes the
// shape it expects with Object and Array, reads the values it wants with
// String, Float32, Float64 or Floats, and passes over the rest with Skip,
// which still checks that they are JSON; End checks that nothing follows.
// Every number read equals what strconv.ParseFloat returns for its text,
// and only text that JSON's grammar allows is read as a number.
package jsonscan

import (
	"encoding/json"
	"errors"
	"fmt"
)

// maxDepth bounds how deep the values Skip passes over may nest.
const maxDepth = 64

// Scanner reads a JSON document. Its zero value reads an empty document;
// New makes one for data. A Scanner is not safe for concurrent use.
type Scanner struct {
	data []byte
	pos  int
}

// New returns a Scanner at the start of data. The strings and values it
// returns may share data's memory, so data must not change while they are
// in use.
func New(data []byte) *Scanner {
	return &Scanner{data: data}
}

// Next skips whitespace and returns the byte that starts the next value or
// token, without reading it, or 0 at the end of the document (or at a NUL
// byte, which is never JSON).
func (s *Scanner) Next() byte {
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return c
		}
	}
	return 0
}

// unexpected reports the byte at the cursor, or the end of the document,
// where want should be.
func (s *Scanner) unexpected(want string) error {
	if s.pos >= len(s.data) {
		return fmt.Errorf("the JSON ends where %s should be", want)
	}
	return fmt.Errorf("found %q at offset %d where %s should be", s.data[s.pos], s.pos, want)
}

// consume reads the byte c after any whitespace.
func (s *Scanner) consume(c byte, want string) error {
	if s.Next() != c {
		return s.unexpected(want)
	}
	s.pos++
	return nil
}

// End checks that only whitespace follows the value read last.
func (s *Scanner) End() error {
	if s.Next(); s.pos == len(s.data) {
		return nil
	}
	return fmt.Errorf("found %q at offset %d after the JSON document, where the end should be", s.data[s.pos], s.pos)
}

// Object reads an object, calling member with each key in turn (escapes
// decoded, see String). member must read the key's value, with any method
// of the Scanner; its error stops the reading and is returned.
func (s *Scanner) Object(member func(key []byte) error) error {
	if err := s.consume('{', "an object"); err != nil {
		return err
	}
	if s.Next() == '}' {
		s.pos++
		return nil
	}
	for {
		key, err := s.String()
		if err != nil {
			return err
		}
		if err := s.consume(':', `":"`); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		switch s.Next() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.unexpected(`"," or "}"`)
		}
	}
}

// Array reads an array, calling elem for each element; elem must read the
// element, with any method of the Scanner, and its error stops the reading
// and is returned.
func (s *Scanner) Array(elem func() error) error {
	if err := s.consume('[', "an array"); err != nil {
		return err
	}
	if s.Next() == ']' {
		s.pos++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch s.Next() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.unexpected(`"," or "]"`)
		}
	}
}

// Null reads a null if one comes next, and reports whether it did.
func (s *Scanner) Null() bool {
	if s.Next() == 'n' && len(s.data)-s.pos >= 4 && string(s.data[s.pos:s.pos+4]) == "null" {
		s.pos += 4
		return true
	}
	return false
}

// String reads a string and returns its contents. Without escapes they
// are a slice of the document; with them they are decoded, as
// encoding/json decodes them, into new memory.
func (s *Scanner) String() ([]byte, error) {
	if s.Next() != '"' {
		return nil, s.unexpected("a string")
	}
	start := s.pos
	escaped, err := s.skipString()
	if err != nil {
		return nil, err
	}
	if !escaped {
		return s.data[start+1 : s.pos-1], nil
	}
	var out string
	if err := json.Unmarshal(s.data[start:s.pos], &out); err != nil {
		s.pos = start
		return nil, fmt.Errorf("bad string at offset %d: %v", start, err)
	}
	return []byte(out), nil
}

// skipString moves the cursor from the quote that opens a string past the
// quote that closes it, and reports whether the string holds escapes. It
// checks for control characters but leaves escapes to its callers.
func (s *Scanner) skipString() (escaped bool, err error) {
	for i := s.pos + 1; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.pos = i + 1
			return escaped, nil
		case c == '\\':
			escaped = true
			i++
		case c < 0x20:
			s.pos = i
			return false, fmt.Errorf("found control character %q at offset %d where a string character should be", c, i)
		}
	}
	s.pos = len(s.data)
	return false, errors.New("the JSON ends inside a string")
}

// Skip reads the next value, whatever it is, checks that it is JSON (nested
// no more than 64 deep) and returns its text.
func (s *Scanner) Skip() ([]byte, error) {
	c := s.Next()
	start := s.pos
	if err := s.skip(0); err != nil {
		if s.pos >= len(s.data) && (c == '{' || c == '[') {
			return nil, fmt.Errorf("the JSON ends inside a JSON value that starts at offset %d", start)
		}
		return nil, err
	}
	return s.data[start:s.pos], nil
}

func (s *Scanner) skip(depth int) error {
	switch c := s.Next(); c {
	case '{', '[':
		if depth == maxDepth {
			return fmt.Errorf("JSON nested too deep at offset %d", s.pos)
		}
		if c == '{' {
			return s.Object(func([]byte) error { return s.skip(depth + 1) })
		}
		return s.Array(func() error { return s.skip(depth + 1) })
	case '"':
		start := s.pos
		escaped, err := s.skipString()
		if err == nil && escaped && !json.Valid(s.data[start:s.pos]) {
			s.pos = start
			err = fmt.Errorf("bad escape in the string at offset %d", start)
		}
		return err
	case 't', 'f', 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(s.data)-s.pos >= len(lit) && string(s.data[s.pos:s.pos+len(lit)]) == lit {
				s.pos += len(lit)
				return nil
			}
		}
		return s.unexpected("a JSON value")
	default:
		if c == '-' || '0' <= c && c <= '9' {
			_, err := s.number()
			return err
		}
		return s.unexpected("a JSON value")
	}
}
