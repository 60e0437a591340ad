// Package yamlerr places a yaml.v3 syntax error in its file: it owns the
// one rule, shared by config.yaml, session, role and RAG files, for turning
// "yaml: line 12: did not find expected key" into a line and a column, and
// the parsing those files share (a parser panic made an error, a node
// named in messages).
package yamlerr

import (
	"bytes"
	"strconv"
	"strings"
)

// Locate returns the 1-based line and column of a yaml.v3 syntax error in
// data, and its message without the "yaml: line N:" prefix. yaml.v3
// reports a line but no column (and the line is where the construct that
// failed starts, which may be a line before the problem): the column is
// that line's first non-blank character. A tab in the indentation, the
// most common hand-editing mistake, is found and pointed at exactly.
// An error without a line is placed at 1:1.
func Locate(data []byte, err error) (line, col int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, after, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil && n > 0 {
				line, msg = n, after
			}
		}
	}
	if line == 0 {
		return 1, 1, msg
	}
	lines := bytes.Split(data, []byte("\n"))
	last := line // the lines to search for a tab
	if strings.Contains(msg, "tab character") {
		last = len(lines)
	}
	for i := line - 1; i < last && i < len(lines); i++ {
		indent := len(lines[i]) - len(bytes.TrimLeft(lines[i], " \t"))
		if tab := bytes.IndexByte(lines[i][:indent], '\t'); tab >= 0 {
			return i + 1, tab + 1, msg + " (a tab in the indentation: indent with spaces)"
		}
	}
	col = 1
	if line <= len(lines) {
		text := lines[line-1]
		col = len(text) - len(bytes.TrimLeft(text, " \t")) + 1
	}
	return line, col, msg
}
