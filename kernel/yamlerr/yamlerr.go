// Package yamlerr places a yaml.v3 syntax error in its file: it owns the
// one rule, shared by config.yaml, session, role and RAG files, for turning
// "yaml: line 12: did not find expected key" into a line and a column, and
// the parsing those files share (a parser panic made an error, a node
// named in messages, a repeated key found).
package yamlerr

import (
	"bytes"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Locate returns the 1-based line and column of a yaml.v3 syntax error in
// data, and its message without the "yaml: line N:" prefix. yaml.v3
// reports a line but no column, and its line is where the construct that
// failed starts, which may be many lines before the problem: the line is
// found again by cutting the file (problemLine), and the column is that
// line's first non-blank character. A tab in the indentation, the
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
	if p := problemLine(data, msg, line); p > 0 {
		line = p
	}
	col = 1
	if line <= len(lines) {
		text := lines[line-1]
		col = len(text) - len(bytes.TrimLeft(text, " \t")) + 1
	}
	return line, col, msg
}

// problemLine finds the line where data stops being YAML: the first line
// from `from` on such that the file cut after it fails with the same
// message as the whole file. yaml.v3 reports the line where the enclosing
// construct starts (a `clients:` forty lines above a bad indent), not the
// line where the parser met the problem, and does not export the latter;
// cutting the file finds it. It returns 0 when no cut fails the same way.
// It runs only for a file that failed to parse, once, and gives up (0)
// after parsing 16 MiB in all, so a huge broken session file costs a
// bounded time.
func problemLine(data []byte, msg string, from int) int {
	if from > 1 {
		from-- // yaml.v3 counts a parser error's line from 0
	}
	const budget = 16 << 20
	end, parsed := 0, 0
	for n := 1; end < len(data) && parsed < budget; n++ {
		next := bytes.IndexByte(data[end:], '\n')
		if next < 0 {
			end = len(data)
		} else {
			end += next + 1
		}
		if n < from {
			continue
		}
		var node yaml.Node
		parsed += end
		err := Unmarshal(data[:end], &node)
		if err == nil {
			continue
		}
		got := strings.TrimPrefix(err.Error(), "yaml: ")
		if rest, ok := strings.CutPrefix(got, "line "); ok {
			_, got, _ = strings.Cut(rest, ": ")
		}
		if got == msg {
			return n
		}
	}
	return 0
}
