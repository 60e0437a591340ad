package httpkit

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLine bounds one line of a stream; a data line may carry a large tool
// call, but not an unbounded one.
const maxLine = 16 << 20

// ErrLineTooLong is returned for a stream line longer than 16 MiB.
var ErrLineTooLong = errors.New("a stream line is longer than 16 MiB")

// LineReader splits a body into lines without their "\n" or "\r\n", as
// server-sent events (and newline-delimited JSON) need.
type LineReader struct {
	br   *bufio.Reader
	long []byte
}

// NewLineReader reads lines from r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 32<<10)}
}

// Next returns the next line and the error that ended it, if any. At the
// end of the body it returns a last unterminated line with io.EOF. The line
// is valid until the next call.
func (l *LineReader) Next() ([]byte, error) {
	line, err := l.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		l.long = append(l.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = l.br.ReadSlice('\n')
			l.long = append(l.long, line...)
			if len(l.long) > maxLine {
				return nil, ErrLineTooLong
			}
		}
		line = l.long
	}
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, err
}

// Event is one server-sent event.
type Event struct {
	// Name is the event's "event:" field; empty for the default event.
	Name string
	// Data is its "data:" lines joined with "\n". It is valid until the
	// next call of Next.
	Data []byte
	// ID is its "id:" field.
	ID string
}

// SSE reads the events of a server-sent event stream (the WHATWG
// EventSource format): fields up to a blank line make an event, data lines
// are joined, comments (": …") are skipped.
//
// One line outside the format is read too: a line that starts with "{" is
// an event of its own, with no name, its data the line. Proxies and API
// gateways answer that way in the middle of a stream, a bare JSON error
// object where an event was expected; the format itself would ignore the
// line as an unknown field, and the error with it.
//
//	sse := httpkit.NewSSE(x) // x is the *Exchange of a streamed request
//	for {
//		ev, err := sse.Next()
//		if err == io.EOF {
//			break // the server ended the stream
//		}
//		if err != nil {
//			return x.ReadError(err)
//		}
//		if string(ev.Data) == "[DONE]" {
//			break
//		}
//		// decode ev.Data
//	}
type SSE struct {
	lines *LineReader
	data  []byte
	ev    Event
	// name and id are the last values read, reused while a stream repeats
	// them so that an event costs no allocation for its name.
	name, id string
	// bare holds a bare JSON line read while an event was pending: the
	// pending event is returned first, this one at the next call.
	bare    []byte
	hasBare bool
	// err ended the stream after a last event was returned; the next call
	// returns it.
	err error
}

// NewSSE reads events from r.
func NewSSE(r io.Reader) *SSE { return &SSE{lines: NewLineReader(r)} }

// Next returns the next event with data. At the end of the stream it
// returns io.EOF (after a last event not followed by a blank line); any
// other error is the body's. A body cut short (io.ErrUnexpectedEOF) also
// returns its last event first, then the error.
func (s *SSE) Next() (*Event, error) {
	s.ev = Event{}
	if s.hasBare {
		s.hasBare = false
		s.ev.Data = s.bare
		return &s.ev, nil
	}
	if s.err != nil {
		return nil, s.err
	}
	s.data = s.data[:0]
	has := false
	for {
		line, err := s.lines.Next()
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, err
		}
		switch {
		case len(line) == 0:
			if err == nil {
				if has {
					s.ev.Data = s.data
					return &s.ev, nil
				}
				s.ev.Name = ""
			}
		case line[0] == ':': // a comment
		case line[0] == '{': // bare JSON, see the type's comment
			s.err = err
			if has {
				s.bare, s.hasBare = append(s.bare[:0], line...), true
				s.ev.Data = s.data
				return &s.ev, nil
			}
			s.data = append(s.data, line...)
			s.ev = Event{Data: s.data}
			return &s.ev, nil
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "data":
				if has {
					s.data = append(s.data, '\n')
				}
				s.data = append(s.data, value...)
				has = true
			case "event":
				if s.name != string(value) {
					s.name = string(value)
				}
				s.ev.Name = s.name
			case "id":
				if s.id != string(value) {
					s.id = string(value)
				}
				s.ev.ID = s.id
			}
		}
		if err != nil {
			// The end of the body: the last event may lack its blank line.
			if has {
				s.err = err
				s.ev.Data = s.data
				return &s.ev, nil
			}
			return nil, err
		}
	}
}
