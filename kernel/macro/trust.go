package macro

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/kernel/trust"
)

// Subject is the macro's file as the trust gate shows it (a workspace
// macro runs only once its file is approved, when it can run a command or
// use the vault): each step that runs a shell command (`!…`), a `.file`
// step with a backticked command source, and each `.vault` step, with
// the secret it names. A step is judged as written and as it runs with
// the variables' defaults, since a default is the file's text too; what
// the user types as arguments is theirs. A macro of questions and other
// dot-commands needs no approval.
func (m *Macro) Subject() trust.Subject {
	s := trust.Subject{Kind: trust.KindMacro, Path: m.Path, Sum: m.Sum}
	defaults := map[string]string{}
	for _, v := range m.Variables {
		if v.Default != nil {
			defaults[v.Name] = *v.Default
		}
	}
	for i, step := range m.Steps {
		filled := Substitute(step, defaults)
		what, secret := stepRisk(step)
		if what == "" {
			what, secret = stepRisk(filled)
		}
		if what == "" {
			continue
		}
		s.Risky = true
		line := fmt.Sprintf("step %d %s: %s", i+1, what, step)
		if filled != step {
			line += " (with the defaults: " + filled + ")"
		}
		s.Lines = append(s.Lines, line)
		if secret != "" && !slices.Contains(s.Secrets, secret) {
			s.Secrets = append(s.Secrets, secret)
		}
	}
	return s
}

// stepRisk says what a step would do that needs approval ("" for
// nothing), and the vault secret it names.
func stepRisk(step string) (what, secret string) {
	t := strings.TrimSpace(step)
	if strings.HasPrefix(t, "!") {
		return "runs a shell command", ""
	}
	word, rest := splitWord(t)
	switch word {
	case ".file":
		sources, _, _ := strings.Cut(rest, " -- ")
		if strings.Contains(sources, "`") {
			return "runs a command", ""
		}
	case ".vault":
		op, name := splitWord(rest)
		switch op {
		case "add", "get", "update", "delete":
			name, _ = splitWord(name)
			return "uses your vault", name
		}
		return "uses your vault", ""
	}
	return "", ""
}

// splitWord splits the first word off s as the REPL splits a command from
// its arguments.
func splitWord(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t\n")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}
