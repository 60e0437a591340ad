package trust

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/kernel/termtext"
)

// Command is a command line as a shell would read it back: each word bare
// when it holds only safe characters, else single-quoted, and in $'…'
// with escapes when it holds a character that is not printable. What is
// shown is exactly the words the command gets, and nothing in them can
// change how the line looks on a terminal.
func Command(argv ...string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = quoteWord(a)
	}
	return strings.Join(words, " ")
}

// quoteWord quotes one word for Command.
func quoteWord(w string) string {
	switch {
	case w == "":
		return "''"
	case strings.IndexFunc(w, func(r rune) bool { return !safeRune(r) }) < 0:
		return w
	case termtext.Printable(w):
		return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(w); {
		r, size := utf8.DecodeRuneInString(w[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, w[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

// safeRune is a character a shell word may hold unquoted.
func safeRune(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("@%+=:,./-_", r)
}

// Prompt is the question's last line, which the answer follows.
const Prompt = "Trust this file as it is now? [y/N] "

// Describe is what the user reads before answering: which file, what it
// would run or reach, the secrets it names, and that the answer is kept.
// Every line ends with a newline.
func (s Subject) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The workspace file %s (%s) can run commands on this machine or use your secrets:\n", termtext.Quote(s.Path), s.Kind)
	for _, l := range s.Lines {
		b.WriteString("  " + termtext.Quote(l) + "\n")
	}
	if len(s.Secrets) > 0 {
		names := make([]string, len(s.Secrets))
		for i, n := range s.Secrets {
			names[i] = termtext.Quote(n)
		}
		fmt.Fprintf(&b, "  Vault secrets it names: %s\n", strings.Join(names, ", "))
	}
	b.WriteString("Your answer is remembered until the file changes (.workspace untrust or coyote --untrust-workspace forgets it).\n")
	return b.String()
}

// ParseAnswer reads a typed answer: y or yes (any case) is Yes, anything
// else No.
func ParseAnswer(line string) Answer {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return Yes
	}
	return No
}
