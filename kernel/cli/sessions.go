package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/session"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// openSession opens the session of -s (nil without -s): a saved one by
// name, or a new one; "temp" is the unsaved temporary session.
func openSession(f *Factory, opts *rootOptions) (*session.Session, error) {
	if opts.Session == "" {
		return nil, nil
	}
	p, err := f.Paths()
	if err != nil {
		return nil, err
	}
	var settings session.Settings
	if cfg, err := f.Config(); err == nil {
		if b, ok := cfg.Get("save_session").V.(bool); ok && !cfg.Get("save_session").Null {
			settings.SaveSession = &b
		}
	}
	store := &session.Store{Dir: p.SessionsDir}
	s, err := store.Open(opts.Session, settings)
	if err != nil {
		return nil, err
	}
	if opts.EmptySession {
		s.Empty()
	}
	return s, nil
}

// sessionLayer is a session's settings as a precedence level.
func sessionLayer(s *session.Session) config.Layer {
	if s == nil {
		return nil
	}
	settings := s.Settings()
	src := config.Source{Kind: "session", Where: s.Name()}
	l := config.MapLayer{}
	for _, k := range config.Keys {
		if v, ok := settings.Lookup(k.Name); ok {
			if n, isInt := v.(int); isInt {
				v = int64(n)
			}
			l[k.Name] = &config.Value{V: v, Src: src}
		}
	}
	return l
}

// turnMessages builds what to send: the session's conversation (or, for
// an empty session or none, the role's messages) and the new input. It
// also returns the messages that are new in this turn, which the session
// records.
func turnMessages(s *session.Session, r *role.Role, parts []provider.Part) (send, added []provider.Message) {
	user := provider.Message{Role: provider.RoleUser, Parts: parts}
	if s != nil && !s.IsEmpty() {
		return append(s.Messages(), user), []provider.Message{user}
	}
	msgs := []provider.Message{user}
	if r != nil {
		msgs = r.Build(parts, nil)
	}
	return msgs, msgs
}

// finishSession records the turn in the session, compresses it when it
// grew past its threshold, names a temporary session that will be saved,
// and saves it as save_session and --save-session say. A failed turn is
// checkpointed so that .recover can continue it.
func finishSession(ctx context.Context, f *Factory, cfg *config.Config, layers config.Layers, p chat.Chatter, s *session.Session,
	added []provider.Message, reply *chat.Reply, turnErr error, force bool) error {
	if turnErr != nil {
		if err := s.Checkpoint(added...); err == nil && (force || s.SaveMode() == session.SaveAlways) {
			_ = s.Save()
		}
		return turnErr
	}
	if err := s.Append(append(added, reply.Message())...); err != nil {
		return err
	}
	if n, ok := cfg.Resolve("compression_threshold", layers).V.(int64); ok && s.NeedsCompression(n) {
		if err := compress(ctx, f, cfg, p, s); err != nil {
			fmt.Fprintln(f.IO.ErrOut, "warning: could not compress the session: "+err.Error())
		}
	}
	if s.NeedsTitle() {
		if title, err := quietAsk(ctx, f, p, role.CreateTitle, s.TitleContext()); err == nil {
			s.SetTitle(title)
		}
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

// compress replaces the session's older messages with a summary the model
// writes.
func compress(ctx context.Context, f *Factory, cfg *config.Config, p chat.Chatter, s *session.Session) error {
	prompt := cfg.String("summarization_prompt")
	if prompt == "" {
		prompt = session.DefaultSummarizationPrompt
	}
	req := &provider.ChatRequest{Messages: s.SummaryRequest(prompt)}
	reply, err := chat.Stream(ctx, p, req, io.Discard)
	if err != nil {
		return err
	}
	keep, _ := cfg.Int("compression_keep_last")
	contextPrompt := cfg.String("summary_context_prompt")
	if contextPrompt == "" {
		contextPrompt = session.DefaultSummaryContextPrompt
	}
	s.Compress(reply.Text, int(keep), contextPrompt)
	return nil
}

// quietAsk runs a built-in role on input and returns the reply, showing
// nothing.
func quietAsk(ctx context.Context, f *Factory, p chat.Chatter, name, input string) (string, error) {
	paths, err := f.Paths()
	if err != nil {
		return "", err
	}
	r, _, err := role.Load(name, paths.RolesDir, assets.Roles())
	if err != nil {
		return "", err
	}
	reply, err := chat.Stream(ctx, p, &provider.ChatRequest{Messages: r.Messages(input)}, io.Discard)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(reply.Text), nil
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
var optionalValueFlags = map[string]bool{"-s": true, "--session": true}

// joinOptionalValues rewrites `-s NAME` as `--session=NAME` before the
// first word of text, so that pflag reads the name as the flag's value.
func joinOptionalValues(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return append(out, args[i:]...)
		}
		if optionalValueFlags[a] && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, "--session="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
		if flagTakesValue(a) && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

// flagTakesValue reports whether a flag given without "=" consumes the
// next argument.
func flagTakesValue(a string) bool {
	if strings.Contains(a, "=") {
		return false
	}
	switch a {
	case "-m", "--model", "-r", "--role", "-f", "--file", "--prompt", "--completions",
		"--add-secret", "--get-secret", "--update-secret", "--delete-secret":
		return true
	}
	return false
}
