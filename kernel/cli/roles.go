package cli

import (
	"io"
	"strings"

	"github.com/coyote-cli/coyote/kernel/textutil"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/role"
)

// activeRole picks the role of a one-shot prompt, as the original orders
// them: --prompt, then -r, then -e (the shell role), then -c (the code
// role); nil when none applies.
func activeRole(st *convo.State, opts *rootOptions) (*role.Role, error) {
	switch {
	case opts.Prompt != "":
		prompt, changed := textutil.Valid(opts.Prompt)
		if changed {
			st.Warn("--prompt had bytes that are not UTF-8 text; each was replaced by " + textutil.Replacement)
		}
		return role.Temp(prompt), nil
	case opts.Role != "":
		return st.LoadRole(opts.Role)
	case opts.Execute:
		return st.LoadRole(role.Shell)
	case opts.Code:
		return st.LoadRole(role.Code)
	}
	return nil, nil
}

// runListRoles prints every role, user and built-in, one per line.
func runListRoles(f *Factory) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	names := role.List(p.RolesDir, assets.Roles())
	if len(names) == 0 {
		return nil
	}
	_, err = io.WriteString(f.IO.Out, strings.Join(names, "\n")+"\n")
	return err
}

// codeOnly returns the code of a reply: the contents of its fenced code
// blocks, joined, or the whole reply trimmed when it has none. It is the
// text as the model wrote it, control characters included: writeCode
// makes it safe to print.
func codeOnly(reply string) string {
	blocks := codeBlocks(reply)
	if len(blocks) == 0 {
		return strings.TrimSpace(reply)
	}
	return strings.Join(blocks, "\n\n")
}

// codeBlocks returns the contents of the fenced code blocks of a reply, in
// order; a block left open at the end of the reply counts.
func codeBlocks(reply string) []string {
	var blocks []string
	lines := strings.SplitAfter(reply, "\n")
	inside := false
	var cur strings.Builder
	fence := ""
	for _, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch {
		case !inside && strings.HasPrefix(trimmed, "```"):
			inside, fence = true, trimmed[:strings.IndexFunc(trimmed+"x", func(r rune) bool { return r != '`' })]
			cur.Reset()
		case inside && strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, "`") == "":
			inside = false
			blocks = append(blocks, strings.TrimRight(cur.String(), "\n"))
		case inside:
			cur.WriteString(l)
		}
	}
	if inside { // an unclosed block at the end of the reply
		blocks = append(blocks, strings.TrimRight(cur.String(), "\n"))
	}
	return blocks
}
