package httpx

import (
	"bufio"
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
