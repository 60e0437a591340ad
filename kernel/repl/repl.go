// Package repl owns the interactive loop: line editing (readline), the
// one registry of dot-commands with the states they need, argument
// parsing, completion, the prompt, and Ctrl-C that cancels a reply without
// leaving. A turn itself is convo's; the REPL decides what to send.
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/chzyer/readline"
	"github.com/hashicorp/go-hclog"

	"github.com/coyote-cli/coyote/kernel/agent"
	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/iostreams"
	"github.com/coyote-cli/coyote/kernel/macro"
	"github.com/coyote-cli/coyote/kernel/redact"
	"github.com/coyote-cli/coyote/kernel/repl/prompt"
	"github.com/coyote-cli/coyote/kernel/termtext"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/kernel/trust"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Options are what the REPL needs from the program around it.
type Options struct {
	IO   *iostreams.IOStreams
	Conv *convo.State
	Env  config.Env
	Log  hclog.Logger
	// Display returns how the next reply is shown.
	Display func() chat.Display
	// Vault runs a vault operation: "add", "get", "update", "delete" with
	// a name, or "list".
	Vault func(op, name string) error
	// OnInterrupt makes fn the handler of Ctrl-C (SIGINT) while a reply
	// streams; remove restores the previous handler.
	OnInterrupt func(fn func()) (remove func())
	// SaveSession is --save-session: save the session on exit whatever
	// save_session says.
	SaveSession bool
	// HistoryFile is where the input history is kept ("" keeps none).
	HistoryFile string
	// MacroDirs are the global and workspace macro directories (Workspace
	// "" under --no-workspace-macros).
	MacroDirs macro.Dirs
	// Trust decides whether a workspace file that can run commands or use
	// secrets may be used; the REPL asks its questions on the input line.
	// nil refuses every such file.
	Trust *trust.Gate
	// AgentTools builds an agent's functions (see convo.AgentStart.Tools);
	// Environ is the environment of its dynamic_instructions script.
	AgentTools func(a *agent.Agent, env []string) (*tools.Registry, error)
	Environ    []string
	// Tools builds the functions of a conversation without an agent, for
	// .exit agent of an agent started with -a.
	Tools func() *tools.Registry
	// Authenticate logs a client in with OAuth (.authenticate), talking
	// to the user through out and reading a pasted code with readCode.
	Authenticate func(ctx context.Context, client string, out io.Writer, readCode func(prompt string) (string, error)) error
}

// REPL is one interactive session of the program.
type REPL struct {
	o    Options
	conv *convo.State
	reg  *Registry
	rl   *readline.Instance
	out  io.Writer

	left, right *prompt.Template
	color       bool
	countUsers  bool // a prompt shows user_messages_len

	prefill  string // text put back on the input line (.undo, Ctrl+O)
	editNext bool   // Ctrl+O was pressed: edit the line in $EDITOR
	// newlineNext: Ctrl+J ended the line, the input goes on (newline.go);
	// typedAhead is how many bytes waiting to be read were typed before
	// the line editor's raw mode began; knowsAhead, whether that is known.
	// strayRead: a line ended by Ctrl+O left readline's reader reading.
	newlineNext bool
	typedAhead  int
	knowsAhead  bool
	strayRead   bool
	asking      bool // a question is on the input line: no right prompt
	drawn       drawnPrompt
	exit        bool

	macros        *macro.Catalog
	inMacro       bool // a macro's steps are running
	macroIsolated bool // ... on a fork of the conversation
	macroDepth    int

	tempDirs []string // removed when the REPL ends (the temporary RAG's)

	beforeAgent *beforeAgent // what .agent replaced
}

// New builds a REPL; Run starts it.
func New(o Options) *REPL {
	r := &REPL{o: o, conv: o.Conv, out: o.IO.Out}
	r.reg = newRegistry(commands())
	r.macros = macro.NewCatalog()
	cfg := o.Conv.Config()
	r.left = prompt.Left(cfg.String("left_prompt"))
	r.right = prompt.Right(cfg.String("right_prompt"))
	r.countUsers = r.left.Uses("user_messages_len") || r.right.Uses("user_messages_len")
	r.color = o.IO.IsStdoutTTY() && o.Env("NO_COLOR") == ""
	return r
}

// Run reads and runs lines until .exit or Ctrl-D.
func (r *REPL) Run(ctx context.Context) error {
	if r.o.HistoryFile != "" {
		_ = prepareHistory(r.o.HistoryFile, historyLimit)
	}
	raw := &rawTerm{fd: readline.GetStdin(), r: r}
	rl, err := readline.NewEx(&readline.Config{
		HistoryFile:            r.o.HistoryFile,
		HistoryLimit:           historyLimit,
		DisableAutoSaveHistory: true,
		AutoComplete:           readlineCompleter{r},
		VimMode:                r.conv.Config().String("keybindings") == "vi",
		Painter:                rightPrompt{r},
		FuncFilterInputRune:    r.filterKey,
		FuncMakeRaw:            raw.enter,
		FuncExitRaw:            raw.exit,
		Stdout:                 r.o.IO.Out,
		Stderr:                 r.o.IO.ErrOut,
	})
	if err != nil {
		return fmt.Errorf("start the line editor: %w", err)
	}
	r.rl = rl
	defer rl.Close()
	defer r.trust().SetAsker(r.askTrust)()
	defer r.removeTempDirs()
	// A signal (SIGTERM, SIGHUP) cancels ctx: the line being read ends at
	// once instead of at the next Enter.
	stop := context.AfterFunc(ctx, func() { _ = rl.Close() })
	defer stop()

	r.announceRecovered()
	if r.conv.Agent != nil {
		r.agentBanner()
	}
	if s := r.conv.Session; s != nil {
		r.replay()
	}
	if prelude := r.conv.Config().String("repl_prelude"); prelude != "" {
		r.runPrelude(ctx, prelude)
	}
	for !r.exit {
		if ctx.Err() != nil {
			r.ended(ctx)
			return nil
		}
		line, err := r.readInput()
		if ctx.Err() != nil {
			continue
		}
		if err != nil && r.o.IO.StdinHungUp() {
			// The read failed because the terminal closed; SIGHUP is on
			// its way, but may come after this.
			r.endedBy(hangUpCause)
			return ErrHangUp
		}
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			continue // Ctrl-C on the input line clears it
		case errors.Is(err, io.EOF):
			r.leave(ctx)
			continue
		case err != nil:
			return err
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := r.Handle(ctx, line); err != nil && ctx.Err() == nil {
			r.printError(err) // (a signal's end is told by ended)
		}
	}
	return nil
}

// readInput reads one input: a line, or the lines between ::: and :::,
// or the buffer after editing it in $EDITOR (Ctrl+O).
func (r *REPL) readInput() (string, error) {
	r.rl.SetPrompt(r.renderPrompts())
	def := r.prefill
	r.prefill = ""
	line, err := r.readLine(def)
	if err != nil {
		return line, err
	}
	if r.newlineNext {
		return r.readContinued(line)
	}
	if r.editNext {
		r.editNext = false
		edited, err := r.editText(line, ".md")
		if err != nil {
			r.printError(err)
			r.prefill = line
			return "", nil
		}
		r.prefill = strings.TrimRight(edited, "\n")
		return "", nil
	}
	if strings.HasPrefix(strings.TrimSpace(line), ":::") {
		return r.readMultiline(line)
	}
	_ = r.rl.SaveHistory(line)
	return line, nil
}

// readMultiline gathers lines from a ":::" line to the line ending with
// ":::".
func (r *REPL) readMultiline(first string) (string, error) {
	text := strings.TrimPrefix(strings.TrimSpace(first), ":::")
	if rest, done := strings.CutSuffix(text, ":::"); done && strings.TrimSpace(first) != ":::" {
		_ = r.rl.SaveHistory(first)
		return rest, nil
	}
	lines := []string{}
	if text != "" {
		lines = append(lines, text)
	}
	r.rl.SetPrompt(".. ")
	r.drawn = drawnPrompt{} // no right prompt on continuation lines
	for {
		l, err := r.rl.Readline()
		if err != nil {
			return "", err
		}
		if body, done := strings.CutSuffix(strings.TrimRight(l, " "), ":::"); done {
			if body != "" {
				lines = append(lines, body)
			}
			break
		}
		lines = append(lines, l)
	}
	text = strings.Join(lines, "\n")
	_ = r.rl.SaveHistory(":::" + text + ":::")
	return text, nil
}

// filterKey turns Ctrl+O into "submit the line for editing", and makes
// Ctrl+L clear the screen: readline's own Ctrl+L only moves the cursor to
// the top and redraws the line over what was there.
func (r *REPL) filterKey(key rune) (rune, bool) {
	key = r.filterNewline(key)
	switch key {
	case readline.CharCtrlL:
		if r.o.IO.IsStdoutTTY() {
			_, _ = io.WriteString(r.o.IO.Out, "\x1b[2J") // then readline homes and redraws
		}
	case 15: // Ctrl+O
		r.editNext = true
		r.strayRead = true // readline reads on past this "Enter" (newline.go)
		return readline.CharEnter, true
	}
	return key, true
}

// Handle runs one input: a shell command (!), a dot-command, or text for
// the model.
func (r *REPL) Handle(ctx context.Context, line string) error {
	trimmed := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(trimmed, "!"):
		return r.shell(ctx, strings.TrimSpace(trimmed[1:]))
	case strings.HasPrefix(trimmed, ".") && len(trimmed) > 1 && trimmed[1] != '.' && trimmed[1] != '/':
		return r.dispatch(ctx, trimmed)
	}
	return r.ask(ctx, []provider.Part{{Text: line}}, line)
}

// dispatch runs a dot-command.
func (r *REPL) dispatch(ctx context.Context, line string) error {
	cmd, rest, ok := r.reg.Lookup(line)
	if !ok {
		return r.unknownCommand(ctx, line)
	}
	if err := cmd.guard(r.state()); err != nil {
		return err
	}
	args, err := splitArgs(rest)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd.Name, err)
	}
	return cmd.run(r, &call{ctx: ctx, args: args, raw: rest})
}

// unknownCommand is where a line that names no built-in command ends: the
// one place where a macro of that name is tried before the error.
func (r *REPL) unknownCommand(ctx context.Context, line string) error {
	return r.macroFallback(ctx, line)
}

// state is what is active now.
func (r *REPL) state() State {
	var s State
	if r.conv.Role != nil {
		s |= StRole
	}
	if sess := r.conv.Session; sess != nil {
		s |= StSession
		if !sess.IsEmpty() {
			s |= StNonEmpty
		}
	}
	if r.conv.RAG != nil {
		s |= StRAG
	}
	if r.conv.Agent != nil {
		s |= StAgent
	}
	if t, err := r.conv.Target(); err == nil {
		if len(t.Model.ReasoningLevels) > 0 {
			s |= StReasoning
		}
		if t.Model.SupportsFunctionCalling && r.conv.Tools != nil && r.conv.Config().Bool("function_calling_support") {
			s |= StFunctionCall
		}
	}
	return s
}

// shell runs a command line through the user's shell; a failure shows
// its exit status.
func (r *REPL) shell(ctx context.Context, command string) error {
	if command == "" {
		return errors.New("nothing to run: type a command after !")
	}
	sh := r.o.Env("COYOTE_SHELL")
	if sh == "" {
		sh = r.o.Env("SHELL")
	}
	if sh == "" {
		sh = "/bin/sh"
	}
	cmd := exec.CommandContext(ctx, sh, "-c", command)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, r.out, r.o.IO.ErrOut
	err := r.whileInterruptible(ctx, func(context.Context) error { return cmd.Run() })
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		fmt.Fprintf(r.out, "[exit %d]\n", exit.ExitCode())
		return nil
	}
	return err
}

// whileInterruptible runs fn with a context that Ctrl-C cancels.
func (r *REPL) whileInterruptible(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if r.o.OnInterrupt != nil {
		remove := r.o.OnInterrupt(cancel)
		defer remove()
	}
	return fn(ctx)
}

func (r *REPL) printError(err error) {
	if err == nil {
		return
	}
	// An error may quote a server's text: shown, never acted on, and with
	// no vault secret in it.
	msg := termtext.Strip(redact.String(err.Error()))
	if r.o.IO.ColorErr() {
		fmt.Fprintf(r.o.IO.ErrOut, "\x1b[31mError: %s\x1b[0m\n", msg)
		return
	}
	fmt.Fprintf(r.o.IO.ErrOut, "Error: %s\n", msg)
}

func (r *REPL) println(a ...any) { fmt.Fprintln(r.out, a...) }

func (r *REPL) printf(format string, a ...any) { fmt.Fprintf(r.out, format, a...) }

// runPrelude applies repl_prelude: "role:NAME" or "session:NAME" (or
// "session:ROLE:NAME" in the original's form, read as role then session).
func (r *REPL) runPrelude(ctx context.Context, prelude string) {
	kind, name, _ := strings.Cut(prelude, ":")
	var err error
	switch kind {
	case "role":
		err = r.dispatch(ctx, ".role "+name)
	case "session":
		if roleName, sess, ok := strings.Cut(name, ":"); ok {
			if err = r.dispatch(ctx, ".role "+roleName); err == nil {
				err = r.dispatch(ctx, ".session "+sess)
			}
		} else {
			err = r.dispatch(ctx, ".session "+name)
		}
	default:
		err = fmt.Errorf("repl_prelude %q: want role:NAME or session:NAME", prelude)
	}
	r.printError(err)
}

// removeTempDirs closes the RAG (its store may hold files open) and
// removes what temporary RAGs left.
func (r *REPL) removeTempDirs() {
	if len(r.tempDirs) == 0 {
		return
	}
	r.conv.UseRAG(nil)
	for _, d := range r.tempDirs {
		_ = os.RemoveAll(d)
	}
}

// dim shows a quiet note (dim when colour is on).
func (r *REPL) dim(s string) string {
	if !r.color {
		return s
	}
	return "\x1b[2m" + s + "\x1b[0m"
}
