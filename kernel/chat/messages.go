package chat

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/sdk/fsx"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// AppendExchange adds one exchange to messages.md (the `save: true` record
// of chats outside sessions): a heading with the time and what was active,
// the input, and the reply, each entry written with one append so that
// concurrent coyote processes do not interleave their entries.
func AppendExchange(path string, when time.Time, scope, input string, reply *Reply) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# CHAT: %s", when.Format("2006-01-02 15:04:05"))
	if scope != "" {
		fmt.Fprintf(&b, " [%s]", scope)
	}
	b.WriteString("\n")
	b.WriteString(strings.TrimRight(input, "\n"))
	b.WriteString("\n--------\n")
	if reply.Reasoning != "" {
		fmt.Fprintf(&b, "<think>\n%s\n</think>\n\n", strings.TrimRight(reply.Reasoning, "\n"))
	}
	b.WriteString(strings.TrimRight(reply.Text, "\n"))
	b.WriteString("\n--------\n\n")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save to %s: %w", path, err)
	}
	f, err := fsx.OpenPrivateAppend(path) // 0600, an older open file included
	if err != nil {
		return fmt.Errorf("save to %s: %w", path, err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		_ = f.Close()
		return fmt.Errorf("save to %s: %w", path, err)
	}
	return f.Close()
}

// PrintMessages shows what would be sent (--dry-run): a single user message as its text
// alone, several messages each under its role.
func PrintMessages(w io.Writer, msgs []provider.Message) error {
	var b strings.Builder
	for _, m := range msgs {
		if len(msgs) > 1 {
			fmt.Fprintf(&b, "--- %s ---\n", m.Role)
		}
		for _, p := range m.Parts {
			switch {
			case p.ImageURL != "":
				fmt.Fprintf(&b, "[image %s]\n", shorten(p.ImageURL, 48))
			default:
				b.WriteString(p.Text)
				if !strings.HasSuffix(p.Text, "\n") {
					b.WriteByte('\n')
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
