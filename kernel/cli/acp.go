package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/kernel/acp"
	"github.com/coyote-cli/coyote/kernel/buildinfo"
	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/todo"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// runACPServer serves the Agent Client Protocol on stdin and stdout
// (--acp-server) until the client closes stdin. Standard output carries
// the protocol's messages only: whatever else would be printed (warnings,
// the log) goes to stderr, which editors show as the agent's log. Each
// session is a conversation of its own, built as a one-shot's is (-m, -r,
// --prompt, -a, --rag apply to every session), and saved after each
// prompt so that session/load finds it.
func runACPServer(ctx context.Context, f *Factory, opts *rootOptions) error {
	protoIn, protoOut := f.IO.In, f.IO.Out
	f.IO.Out = f.IO.ErrOut
	f.IO.SetTTY(false, false, false)
	f.headless, f.logStderr = true, true
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if opts.Session != "" || opts.Macro != "" || opts.Execute || opts.Code || opts.DryRun {
		return &UsageError{Err: errors.New("--acp-server: the client opens the sessions; -s, --macro, -e, -c and --dry-run do not apply")}
	}
	// Tools that ask before changing files or running commands ask the
	// client (session/request_permission), unless the user said not to.
	agent := &acpAgent{f: f, cfg: cfg, opts: *opts}
	return acp.Serve(ctx, protoIn, protoOut, agent, acp.Options{
		Name: "coyote", Title: "Coyote", Version: buildinfo.Version, Log: f.Logger().Named("acp"),
	})
}

// acpAgent makes the conversations of an ACP connection.
type acpAgent struct {
	f    *Factory
	cfg  *config.Config
	opts rootOptions
	mu   sync.Mutex // one session is set up at a time (the factory's lazy parts)
}

// newSessionID names a new session's file: acp-<time>-<random>, sortable
// and unique.
func newSessionID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "acp-" + time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// conversation starts a conversation with the session name (its file is
// created at the first save, or read when it exists).
func (a *acpAgent) conversation(ctx context.Context, name string) (*convo.State, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	opts := a.opts
	opts.Session = name
	st, err := newConversation(ctx, a.f, a.cfg, &opts)
	if err != nil {
		return nil, err
	}
	switch {
	case st.Agent != nil:
		err = useAgentDocuments(ctx, a.f, st)
	case opts.RAG != "":
		err = useRAG(ctx, a.f, st, &opts)
	}
	if err != nil {
		return nil, err
	}
	if st.Session == nil {
		return nil, fmt.Errorf("session %q could not be opened", name)
	}
	return st, nil
}

// NewSession implements acp.Agent.
func (a *acpAgent) NewSession(ctx context.Context, cwd string, servers []acp.MCPServer) (acp.Session, error) {
	a.warnServers(servers)
	id := newSessionID()
	st, err := a.conversation(ctx, id)
	if err != nil {
		return nil, err
	}
	st.WorkDir = cwd
	return &acpSession{id: id, cwd: cwd, st: st, plan: st.Todos().Version(), ask: !a.opts.SkipPermissions}, nil
}

// LoadSession implements acp.Agent: the sessions a client may load are
// the saved ones (of the agent, with -a), ACP's or not.
func (a *acpAgent) LoadSession(ctx context.Context, id, cwd string, servers []acp.MCPServer) (acp.Session, error) {
	a.warnServers(servers)
	if !validSessionID(id) {
		return nil, acp.ErrNoSession
	}
	st, err := a.conversation(ctx, id)
	if err != nil {
		return nil, err
	}
	if !st.SessionStore().Exists(id) {
		return nil, acp.ErrNoSession
	}
	st.WorkDir = cwd
	return &acpSession{id: id, cwd: cwd, st: st, plan: st.Todos().Version(), ask: !a.opts.SkipPermissions}, nil
}

func validSessionID(id string) bool {
	return id != "temp" && !strings.ContainsAny(id, "\\:") && !strings.HasPrefix(id, "/") && !strings.Contains(id, "..")
}

// warnServers says that the client's MCP servers are not used: Coyote's
// own (functions/mcp.json, the workspace's) are.
func (a *acpAgent) warnServers(servers []acp.MCPServer) {
	if len(servers) == 0 {
		return
	}
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	a.f.Logger().Named("acp").Warn("the client's MCP servers are not used; configure them in functions/mcp.json", "servers", strings.Join(names, ", "))
}

// acpSession is one conversation of the connection.
type acpSession struct {
	id   string
	cwd  string
	st   *convo.State
	plan uint64 // the todo list's version last sent as the plan
	// ask: guarded tools ask the client first (not under
	// --dangerously-skip-permissions, whose tools run confirmed).
	ask bool
}

// ID implements acp.Session.
func (s *acpSession) ID() string { return s.id }

// Close implements acp.Session: the session was saved after each prompt;
// its RAG's store is closed (the plugins stop with the process).
func (s *acpSession) Close() {
	if s.st.RAG != nil && s.st.Agent == nil {
		convo.CloseRAG(s.st.RAG)
	}
}

// Replay implements acp.Session: the session's messages as the updates a
// prompt would have sent, and its plan.
func (s *acpSession) Replay(c *acp.Client) error {
	for i, m := range s.st.Session.Messages() {
		msgID := fmt.Sprintf("%s-%d", s.id, i)
		for _, p := range m.Parts {
			var u *acp.Update
			switch {
			case p.Text != "" && m.Role == provider.RoleUser:
				x := acp.UserChunk(p.Text, msgID)
				u = &x
			case p.Text != "" && m.Role == provider.RoleAssistant:
				x := acp.AgentChunk(p.Text, msgID)
				u = &x
			case p.ToolCall != nil:
				x := acp.ToolCallStarted(p.ToolCall.ID, p.ToolCall.Name, toolKind(p.ToolCall.Name), acp.StatusCompleted, rawArgs(p.ToolCall.Arguments))
				u = &x
			case p.ToolResult != nil:
				status := acp.StatusCompleted
				if p.ToolResult.IsError {
					status = acp.StatusFailed
				}
				block := acp.TextBlock(p.ToolResult.Content)
				x := acp.ToolCallStatus(p.ToolResult.CallID, status, &block)
				u = &x
			}
			if u != nil {
				if err := c.Update(*u); err != nil {
					return err
				}
			}
		}
	}
	if !s.st.Todos().Empty() {
		return c.Update(acp.Plan(planEntries(s.st.Todos())))
	}
	return nil
}

// Prompt implements acp.Session: one turn through convo.State.Run, as
// every caller runs one, with what happens sent as session/update
// notifications.
func (s *acpSession) Prompt(ctx context.Context, prompt []acp.ContentBlock, c *acp.Client) (string, error) {
	text := promptText(prompt)
	t := &acpTurn{s: s, c: c}
	s.st.Watch, s.st.OnReply = t, t.reply
	defer func() { s.st.Watch, s.st.OnReply = nil, nil }()
	if s.ask {
		ctx = tools.WithConfirm(ctx, t.confirm)
	}
	ctx = tools.WithWorkDir(ctx, s.cwd)
	ask := convo.Ask{Parts: []provider.Part{{Text: text}}, Text: text, Stream: true, Display: t.display}
	reply, err := s.st.Run(ctx, ask)
	t.sendPlan()
	if serr := saveOneShotSession(s.st.Session, err, true); err == nil {
		err = serr
	}
	if err != nil {
		return "", err
	}
	if reply != nil && (reply.FinishReason == "length" || reply.FinishReason == "max_tokens") {
		return acp.StopMaxTokens, nil
	}
	return acp.StopEndTurn, nil
}

// promptText is a prompt's content as the text the model reads: text
// blocks as they are, an embedded file in a fence under its URI, a link
// as its URI.
func promptText(blocks []acp.ContentBlock) string {
	var b strings.Builder
	for _, bl := range blocks {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		switch {
		case bl.Type == "text":
			b.WriteString(bl.Text)
		case bl.Type == "resource_link":
			fmt.Fprintf(&b, "%s (%s)", bl.URI, bl.Name)
		case bl.Type == "resource" && bl.Resource != nil && bl.Resource.Text != nil:
			fmt.Fprintf(&b, "%s:\n```\n%s\n```", bl.Resource.URI, *bl.Resource.Text)
		case bl.Type == "resource" && bl.Resource != nil:
			fmt.Fprintf(&b, "%s (binary content left out)", bl.Resource.URI)
		}
	}
	return b.String()
}

// acpTurn reports a prompt turn to the client.
type acpTurn struct {
	s  *acpSession
	c  *acp.Client
	mu sync.Mutex
	n  int // model calls so far, for the message ids
}

// display is a reply's display: its text as agent_message_chunk
// notifications, its reasoning as agent_thought_chunk ones.
func (t *acpTurn) display() chat.Display {
	t.mu.Lock()
	t.n++
	id := fmt.Sprintf("%s-%d-%d", t.s.id, time.Now().UnixNano(), t.n)
	t.mu.Unlock()
	return &acpDisplay{c: t.c, id: id}
}

func (t *acpTurn) reply(*chat.Reply) { t.sendPlan() }

// sendPlan sends the todo list as the plan when it changed.
func (t *acpTurn) sendPlan() {
	list := t.s.st.Todos()
	t.mu.Lock()
	defer t.mu.Unlock()
	if v := list.Version(); v != t.s.plan {
		t.s.plan = v
		_ = t.c.Update(acp.Plan(planEntries(list)))
	}
}

// CallStarted implements tools.Watcher: the call is announced, pending
// when it will ask for permission, else running.
func (t *acpTurn) CallStarted(c provider.ToolCall, f *tools.Func, args json.RawMessage) {
	status := acp.StatusInProgress
	if f != nil && f.Guarded {
		status = acp.StatusPending
	}
	if args == nil {
		args = rawArgs(c.Arguments)
	}
	_ = t.c.Update(acp.ToolCallStarted(c.ID, c.Name, toolKind(c.Name), status, args))
}

// CallEnded implements tools.Watcher.
func (t *acpTurn) CallEnded(c provider.ToolCall, r provider.ToolResult) {
	status := acp.StatusCompleted
	if r.IsError {
		status = acp.StatusFailed
	}
	block := acp.TextBlock(r.Content)
	_ = t.c.Update(acp.ToolCallStatus(c.ID, status, &block))
	if strings.HasPrefix(c.Name, "todo__") {
		t.sendPlan()
	}
}

// The permission options of a guarded call.
var permissionOptions = []acp.PermissionOption{
	{OptionID: "allow-once", Name: "Allow", Kind: "allow_once"},
	{OptionID: "reject-once", Name: "Reject", Kind: "reject_once"},
}

// confirm asks the client before a guarded tool runs.
func (t *acpTurn) confirm(ctx context.Context, name string, args json.RawMessage) error {
	id := tools.CallID(ctx)
	ref := acp.ToolCallRef{ToolCallID: id, Title: name, Kind: toolKind(name), Status: acp.StatusPending, RawInput: args}
	choice, err := t.c.RequestPermission(ctx, ref, permissionOptions)
	switch {
	case errors.Is(err, acp.ErrCancelled) || ctx.Err() != nil:
		return errors.New("the user cancelled the turn; the tool did not run")
	case err != nil:
		return fmt.Errorf("permission to run %s could not be asked (%v); the tool did not run", name, err)
	case choice != "allow-once":
		return errors.New("the user refused to let this tool run; do not try it again, ask the user or do without")
	}
	_ = t.c.Update(acp.ToolCallStatus(id, acp.StatusInProgress, nil))
	return nil
}

// acpDisplay sends a reply as it streams.
type acpDisplay struct {
	c  *acp.Client
	id string
}

func (d *acpDisplay) Write(s string) error {
	if s == "" {
		return nil
	}
	return d.c.Update(acp.AgentChunk(s, d.id))
}

func (d *acpDisplay) Thought(s string) error {
	if s == "" {
		return nil
	}
	return d.c.Update(acp.ThoughtChunk(s, d.id))
}

func (d *acpDisplay) Close() error { return nil }

// planEntries is the todo list as a plan: done items completed, the
// first open one in progress, the others pending.
func planEntries(l *todo.List) []acp.PlanEntry {
	items := l.Items()
	out := make([]acp.PlanEntry, 0, len(items))
	current := false
	for _, it := range items {
		e := acp.PlanEntry{Content: it.Task, Priority: "medium", Status: "pending"}
		switch {
		case it.Done:
			e.Status = "completed"
		case !current:
			e.Status, current = "in_progress", true
		}
		out = append(out, e)
	}
	return out
}

// toolKind is the kind of tool a function looks like by its name, for
// the client's icon; other when nothing fits.
func toolKind(name string) string {
	n := strings.ToLower(name)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(n, w) {
				return true
			}
		}
		return false
	}
	switch {
	case strings.HasPrefix(n, "todo__"):
		return acp.KindThink
	case has("delete", "remove", "_rm"):
		return acp.KindDelete
	case has("write", "patch", "edit", "create", "mkdir"):
		return acp.KindEdit
	case has("search", "grep", "find", "query"):
		return acp.KindSearch
	case has("fetch", "http", "web", "url"):
		return acp.KindFetch
	case has("exec", "shell", "run", "command"):
		return acp.KindExecute
	case has("read", "cat", "ls", "list", "get", "view"):
		return acp.KindRead
	}
	return acp.KindOther
}

// rawArgs is a call's arguments as JSON (a string when they are not).
func rawArgs(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
