package logging

import (
	"bytes"
	"io"
	"strings"
)

// Filter is COYOTE_LOG_FILTER parsed: the modules whose lines are kept.
// A line's module is its logger's name: "coyote" for the kernel,
// "coyote.acp" for the ACP server, "coyote.<plugin binary>" for a plugin's
// stderr (coyote.coyote-provider-openai). A name matches a module that
// contains it, case aside, so "openai" keeps that plugin's lines. Several
// names are separated by commas; nil keeps every line.
type Filter []string

// ParseFilter reads COYOTE_LOG_FILTER; "" is no filter.
func ParseFilter(s string) Filter {
	var f Filter
	for _, n := range strings.Split(s, ",") {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
			f = append(f, n)
		}
	}
	return f
}

// Keeps reports whether the line, as the log writes it, is kept. A line
// without a module (a continuation of a multi-line entry) is kept when
// the filter is empty only.
func (f Filter) Keeps(line []byte) bool {
	if len(f) == 0 {
		return true
	}
	_, module, _ := Fields(line)
	module = strings.ToLower(module)
	for _, n := range f {
		if module != "" && strings.Contains(module, n) {
			return true
		}
	}
	return false
}

// Fields splits a log line as hclog writes it — "2026-01-02T15:04:05.000Z
// [INFO]  coyote.acp: message: k=v" — into its level ("INFO"), its
// module ("coyote.acp") and where the message starts; ok is false for a
// line of another shape.
func Fields(line []byte) (level, module string, msgAt int) {
	open := bytes.IndexByte(line, '[')
	if open < 0 {
		return "", "", 0
	}
	end := bytes.IndexByte(line[open:], ']')
	if end < 0 {
		return "", "", 0
	}
	level = string(line[open+1 : open+end])
	rest := open + end + 1
	for rest < len(line) && line[rest] == ' ' {
		rest++
	}
	colon := bytes.Index(line[rest:], []byte(": "))
	if colon < 0 || bytes.IndexByte(line[rest:rest+colon], ' ') >= 0 {
		return level, "", rest
	}
	return level, string(line[rest : rest+colon]), rest
}

// filterWriter drops the entries of the modules the filter leaves out
// (hclog writes one entry per Write).
type filterWriter struct {
	w io.Writer
	f Filter
}

func (fw filterWriter) Write(p []byte) (int, error) {
	if !fw.f.Keeps(p) {
		return len(p), nil
	}
	return fw.w.Write(p)
}
