package vault

import (
	"errors"
	"strings"
)

// Interpolate replaces every {{NAME}} placeholder in text (see the package
// comment for what is one) with lookup(NAME), asking lookup once per name.
// Text without placeholders is returned as it is and lookup is never
// called, so a config without secrets never opens the vault.
//
// When lookup reports ErrNotFound for some names, the error names all of
// them, where they were looked for (a *NotFoundIn's Where, else the
// vault) and the command that adds them; any other error from lookup (a
// missing password file, a wrong password) is returned at once, as it is.
func Interpolate(text string, lookup func(name string) (string, error)) (string, error) {
	if !strings.Contains(text, "{{") {
		return text, nil
	}
	var (
		b       strings.Builder
		last    int
		values  = map[string]string{}
		missing []string
		where   string
		failed  error
	)
	scan(text, func(start, end int, name string) bool {
		value, seen := values[name]
		if !seen {
			v, err := lookup(name)
			switch {
			case errors.Is(err, ErrNotFound):
				missing = append(missing, name)
				if nf := (*NotFoundIn)(nil); errors.As(err, &nf) {
					where = nf.Where
				}
			case err != nil:
				failed = err
				return false
			default:
				value = v
			}
			values[name] = value
		}
		if last == 0 {
			b.Grow(len(text))
		}
		b.WriteString(text[last:start])
		b.WriteString(value)
		last = end
		return true
	})
	if failed != nil {
		return "", failed
	}
	if len(missing) > 0 {
		return "", &missingError{names: missing, where: where}
	}
	if last == 0 {
		return text, nil
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

// Placeholders returns the names of text's placeholders, each once, in the
// order they first appear (nil when there are none). It reads no vault:
// the CLI uses it to offer to add the secrets that a new MCP server refers
// to.
func Placeholders(text string) []string {
	if !strings.Contains(text, "{{") {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	scan(text, func(_, _ int, name string) bool {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
		return true
	})
	return names
}

// ValidName reports whether name can be a secret's name: a letter or an
// underscore, then letters, digits and underscores (ASCII only). Only
// such names can be written as placeholders, so Set refuses the others.
func ValidName(name string) bool {
	if name == "" || !nameStart(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !nameChar(name[i]) {
			return false
		}
	}
	return true
}

func nameStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func nameChar(c byte) bool { return nameStart(c) || ('0' <= c && c <= '9') }

func blank(c byte) bool { return c == ' ' || c == '\t' }

// scan calls found with the byte offsets and the name of each placeholder
// of text, left to right, until found returns false. Comment lines (first
// non-blank character "#") are skipped. Only ASCII bytes are compared, and
// no byte of a multi-byte UTF-8 character is ASCII, so offsets always fall
// between characters.
func scan(text string, found func(start, end int, name string) bool) {
	for lineStart := 0; lineStart < len(text); {
		lineEnd := strings.IndexByte(text[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text)
		} else {
			lineEnd += lineStart
		}
		if !comment(text[lineStart:lineEnd]) {
			for i := lineStart; i < lineEnd; {
				j := strings.Index(text[i:lineEnd], "{{")
				if j < 0 {
					break
				}
				start := i + j
				end, name := PlaceholderAt(text[:lineEnd], start)
				if end < 0 {
					i = start + 1
					continue
				}
				if !found(start, end, name) {
					return
				}
				i = end
			}
		}
		lineStart = lineEnd + 1
	}
}

// comment reports whether a line is a "#" comment.
func comment(line string) bool {
	for i := 0; i < len(line); i++ {
		if !blank(line[i]) {
			return line[i] == '#'
		}
	}
	return false
}

// PlaceholderAt matches one placeholder ("{{", blanks, a name, blanks,
// "}}") at text[start:] and returns its end offset and its name, or -1 and
// "" when there is none. It is the one definition of a placeholder: scan
// uses it line by line, and document loaders, whose commands are shell
// scripts without comment lines, call it at each offset of the script.
func PlaceholderAt(text string, start int) (int, string) {
	if !strings.HasPrefix(text[start:], "{{") {
		return -1, ""
	}
	i := start + 2
	for i < len(text) && blank(text[i]) {
		i++
	}
	if i >= len(text) || !nameStart(text[i]) {
		return -1, ""
	}
	from := i
	for i < len(text) && nameChar(text[i]) {
		i++
	}
	name := text[from:i]
	for i < len(text) && blank(text[i]) {
		i++
	}
	if !strings.HasPrefix(text[i:], "}}") {
		return -1, ""
	}
	return i + 2, name
}
