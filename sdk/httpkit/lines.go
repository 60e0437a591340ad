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
}

// NewSSE reads events from r.
func NewSSE(r io.Reader) *SSE { return &SSE{lines: NewLineReader(r)} }

// Next returns the next event with data. At the end of the stream it
// returns io.EOF (after a last event not followed by a blank line); any
// other error is the body's.
func (s *SSE) Next() (*Event, error) {
	s.ev = Event{}
	s.data = s.data[:0]
	has := false
	for {
		line, err := s.lines.Next()
		if len(line) == 0 && err == nil {
			if has {
				s.ev.Data = s.data
				return &s.ev, nil
			}
			s.ev.Name = ""
			continue
		}
		if len(line) > 0 && line[0] != ':' {
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
				s.ev.Name = string(value)
			case "id":
				s.ev.ID = string(value)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) && has {
				s.ev.Data = s.data
				return &s.ev, nil
			}
			return nil, err
		}
	}
}
