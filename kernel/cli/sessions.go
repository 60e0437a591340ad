package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/coyote-cli/coyote/kernel/session"
)

// saveOneShotSession saves the session of a one-shot prompt as
// save_session and --save-session (force) say. A failed turn was
// checkpointed; it is kept when the session is always saved.
func saveOneShotSession(s *session.Session, turnErr error, force bool) error {
	if turnErr != nil {
		if force || s.SaveMode() == session.SaveAlways {
			_ = s.Save()
		}
		return turnErr
	}
	switch s.OnExit(force) {
	case session.ExitSave:
		return s.Save()
	case session.ExitAsk:
		// One-shot mode cannot ask: a named session is kept, the
		// temporary one is not (it would need a name).
		if !s.IsTemp() {
			return s.Save()
		}
	}
	return nil
}

// runListSessions prints the saved sessions, one per line.
func runListSessions(f *Factory) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	names, err := session.List(p.SessionsDir)
	if err != nil {
		return err
	}
	for _, n := range names {
		fmt.Fprintln(f.IO.Out, n)
	}
	return nil
}

// optionalValueFlags take a value only when one follows: `-s` alone is the
// temporary session, `-s work` the session "work" (clap's optional values,
// which the original uses and pflag lacks).
var optionalValueFlags = map[string]string{"-s": "--session", "--session": "--session", "--sandbox": "--sandbox", "--authenticate": "--authenticate", "--update": "--update"}

// joinOptionalValues rewrites `-s NAME` as `--session=NAME` before the
// first word of text, so that pflag reads the name as the flag's value;
// flags tells which other flags consume the next argument.
// joined reports whether a separate word became the session's name, which
// may have been meant as the question (coyote -s "what is a monad").
func joinOptionalValues(flags *pflag.FlagSet, args []string) (out []string, joined bool) {
	out = make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return append(out, args[i:]...), joined
		}
		if long := optionalValueFlags[a]; long != "" && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, long+"="+args[i+1])
			joined = joined || long == "--session"
			i++
			continue
		}
		if a == "--agent-variable" && i+2 < len(args) {
			// NAME VALUE: two words, which pflag cannot take; passed on
			// as one (--agent-variable=NAME=VALUE).
			out = append(out, "--agent-variable="+args[i+1]+"="+args[i+2])
			i += 2
			continue
		}
		out = append(out, a)
		if flagTakesValue(flags, a) && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out, joined
}

// flagTakesValue reports whether a flag given without "=" consumes the
// next argument: it is defined, not a boolean, and has no value of its
// own when given alone.
func flagTakesValue(flags *pflag.FlagSet, a string) bool {
	if strings.Contains(a, "=") {
		return false
	}
	var f *pflag.Flag
	if name, ok := strings.CutPrefix(a, "--"); ok {
		f = flags.Lookup(name)
	} else if len(a) == 2 {
		f = flags.ShorthandLookup(a[1:])
	}
	return f != nil && f.Value.Type() != "bool" && f.NoOptDefVal == ""
}
