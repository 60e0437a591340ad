package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/termtext"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/kernel/tools/script"
)

// toolsFor builds the functions a conversation may offer (the built-ins,
// user__* only with a terminal to ask on, and, when function calling is
// on, the visible tool scripts, installing the bundled ones that are
// missing, both on first use), and how a call is shown: on a terminal each
// call is printed as it runs; elsewhere nothing is (results are never
// dumped).
func toolsFor(f *Factory, cfg *config.Config, skipPermissions bool) (*tools.Registry, func(name, args string)) {
	reg := tools.NewRegistry()
	terminal := f.IO.IsStdinTTY() && f.IO.IsStdoutTTY()
	// The user__* questions need someone to answer: without a terminal
	// they could only say that no one is there, so they are not offered.
	switch {
	case terminal:
		for _, fn := range tools.UserFuncs(tools.TerminalAsker{In: os.Stdin, Out: f.IO.Out}) {
			reg.Add(fn)
		}
	case f.headless:
		// --headless and --acp-server: the model is told no one can
		// answer, so it can carry on (or say what it needs).
		for _, fn := range tools.UserFuncs(nil) {
			reg.Add(fn)
		}
	}
	warn := func(msg string) { fmt.Fprintln(f.IO.ErrOut, "warning: "+msg) }
	if cfg != nil && cfg.Bool("function_calling_support") {
		// Installed and parsed only when a turn offers user tools.
		reg.AddLazy(func(reg *tools.Registry) {
			if s, err := scriptsFor(f, cfg, terminal, skipPermissions); err != nil {
				warn(err.Error())
			} else {
				autoConfirmNote(f, s.Runner.PassEnv, skipPermissions, warn)
				s.Load(reg, warn)
			}
		})
	}
	var show func(name, args string)
	if f.IO.IsStdoutTTY() {
		dim, reset := "\x1b[2m", "\x1b[0m"
		if f.Env("NO_COLOR") != "" {
			dim, reset = "", ""
		}
		// The model wrote the name and the arguments: their control
		// characters must not act on the terminal.
		show = func(name, args string) {
			fmt.Fprintf(f.IO.Out, "%sCall %s %s%s\n", dim, termtext.Strip(name), termtext.Strip(args), reset)
		}
	}
	return reg, show
}

// scriptsFor describes the tool scripts of the functions directory and
// how they run: COYOTE_TOOL_TIMEOUT, an allow-listed environment (plus
// tool_env_passthrough) without the clients' keys, AUTO_CONFIRM under
// --dangerously-skip-permissions only, and the terminal for tools that ask
// for confirmation.
func scriptsFor(f *Factory, cfg *config.Config, terminal, skipPermissions bool) (*tools.Scripts, error) {
	p, err := f.Paths()
	if err != nil {
		return nil, err
	}
	ensureBundled(f)
	timeout, err := script.ParseTimeout(f.Env("COYOTE_TOOL_TIMEOUT"))
	if err != nil {
		return nil, fmt.Errorf("COYOTE_TOOL_TIMEOUT: %w", err)
	}
	var secrets []string
	for _, c := range cfg.Clients {
		if c.APIKey != "" {
			secrets = append(secrets, c.APIKey)
		}
	}
	pass, _ := cfg.List("tool_env_passthrough")
	runner := &script.Runner{FunctionsDir: p.FunctionsDir, Timeout: timeout, Env: f.Environ, PassEnv: pass,
		Secrets: secrets, AutoConfirm: skipPermissions}
	if backend := cfg.String("tool_sandbox"); backend != "" {
		sb, err := newToolSandbox(f, p, backend)
		if err != nil {
			return nil, err
		}
		runner.Sandbox = sb
	}
	guarded := *runner
	guarded.Terminal = terminal
	s := &tools.Scripts{Dir: p.FunctionsDir, Runner: runner, Guarded: &guarded}
	if v := cfg.Get("visible_tools"); !v.Null && v.V != nil {
		if l, ok := v.V.([]string); ok {
			s.Visible = l
		}
	}
	return s, nil
}

// autoConfirmNote says, once, when the user's own AUTO_CONFIRM (in the
// environment or pass, the tool_env_passthrough list scriptsFor read) is
// ignored. The original lets tools inherit the whole environment, so an
// AUTO_CONFIRM exported in a shell for some other program silently
// turned every confirmation off; only --dangerously-skip-permissions,
// which says what it does, does that here.
func autoConfirmNote(f *Factory, pass []string, skipPermissions bool, warn func(string)) {
	if skipPermissions {
		return
	}
	named := false
	for _, n := range pass {
		named = named || strings.TrimSpace(n) == "AUTO_CONFIRM"
	}
	if f.Env("AUTO_CONFIRM") != "" || named {
		warn("AUTO_CONFIRM from the environment is ignored: tools still ask before they change files or run commands " +
			"(and refuse without a terminal); --dangerously-skip-permissions lets them go ahead without asking")
	}
}

// buildGlobalTools writes the wrappers of every visible tool into
// functions/bin (--build-tools).
func buildGlobalTools(f *Factory, cfg *config.Config) error {
	s, err := scriptsFor(f, cfg, false, false)
	if err != nil {
		return err
	}
	names, err := s.Build(func(msg string) { fmt.Fprintln(f.IO.ErrOut, "warning: "+msg) })
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.Out, "Built %d tools in %s/bin: %s\n", len(names), s.Dir, strings.Join(names, ", "))
	return nil
}
