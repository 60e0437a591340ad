// Package convo owns the conversation state of a run, as the one-shot
// command and the REPL share it: the model, role and session in use, the
// settings changed at run time, the last exchange, and one turn through
// them (the messages to send, the call, and what the session keeps
// afterwards). It does not read the command line or the terminal.
package convo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/agent"
	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/input"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/mcp"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/session"
	"github.com/coyote-cli/coyote/kernel/skill"
	"github.com/coyote-cli/coyote/kernel/todo"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Deps is what a conversation needs from the program around it.
type Deps struct {
	Paths  config.Paths
	Config *config.Config
	// Env reads the environment (an agent's <AGENT>_* overrides); nil
	// reads none.
	Env config.Env
	// Host returns the plugin host; it is called on the first request.
	Host func() (*plugins.Host, error)
	// Warn reports something the user should know that does not stop the
	// turn (a failed compression, a role file warning).
	Warn func(msg string)
	// Secret looks up a vault secret for a {{NAME}} placeholder (a RAG's
	// driver_config, a document loader's command); nil when there is no
	// vault.
	Secret func(name string) (string, error)
	// MCP is the process's MCP servers; nil when there are none to use.
	MCP *mcp.Manager
	// Retrying, when set, is told each time a request waits to be tried
	// again ("retrying in 1 s (2/3)…"); a terminal shows it.
	Retrying func(msg string)
}

// State is a conversation in progress.
type State struct {
	d Deps

	// Model is the model chosen for this run (-m or .model); "" means the
	// session's, the role's or the configured one.
	Model string
	// MaxOutputTokens caps each reply for this run (.set
	// max_output_tokens); 0 leaves it to the model.
	MaxOutputTokens int64
	Role            *role.Role
	Session         *session.Session
	// Agent is the active agent (nil: none); AgentPrompt its
	// instructions as rendered when it started (StartAgent).
	Agent       *agent.Agent
	AgentPrompt string

	// NoWorkspaceInstructions is --no-workspace-instructions;
	// InstructionNames the --workspace-instructions-file names, in order
	// (none: workspace_instructions_files). See InstructionFiles.
	NoWorkspaceInstructions bool
	InstructionNames        []string
	// WorkDir is the directory the conversation works in ("": the
	// process's): an ACP session's own cwd. The workspace instructions,
	// the workspace memory and the workspace skills are found from it.
	WorkDir string
	// NoMemory is --no-memory: no memory for this run (MemoryStores).
	NoMemory bool

	// Asker is the user at the terminal, for the questions of sub-agents
	// (nil: none; a sub-agent's own is its escalator).
	Asker tools.Asker
	// sub is the sub-agent tree the conversation belongs to.
	sub subagents

	// Tools are the functions the model may call (nil: none).
	Tools *tools.Registry
	// ShowCall, when set, shows each tool call as it runs.
	ShowCall func(name, args string)
	// Watch, when set, follows each tool call as it starts and ends;
	// OnReply, when set, is told each reply of the model (a turn with
	// tool calls has several), usage included. The ACP server and
	// --output-format json report a turn with them.
	Watch   tools.Watcher
	OnReply func(*chat.Reply)
	// RAG is the active RAG (nil: none); see UseRAG.
	RAG *rag.RAG
	// LastSources are the sources of the RAG chunks the last question
	// was given.
	LastSources []string
	// ragBorrowed: RAG is the parent's (a fork's), so it is not closed
	// here.
	ragBorrowed bool

	// Last is the last exchange: its input and reply.
	LastInput []provider.Part
	LastReply *chat.Reply

	pool *pool // connections by client name, shared with forks

	todos *todo.List // the todo list while no session is active (Todos)

	skills *skill.Loaded // the loaded skills (skill.go)
	// systemAdded is the text addSystemText last added (system.go), for
	// a turn that must replace it.
	systemAdded string
	turnSkills  *turnSkills // the available skills during a turn (skill.go)

	// MaxToolRounds caps a turn's tool-call rounds below the built-in 50
	// (a graph's llm node's max_iterations); 0: no cap of its own.
	MaxToolRounds int

	graphStart *AgentStart // how a graph agent was started: its agent nodes start the same way (graph.go)

	// turn is what the turn in progress has used, and turnModel the
	// model it asked (cost.go); Finish records them in the session.
	turn      Spend
	turnModel string
	// aside is what calls the conversation made for itself used since
	// the last turn was recorded; asideModel prices those not sent
	// through an llm.Bound: the last turn's model (cost.go).
	aside      Spend
	asideModel *models.Model
}

// pool is the connections of a conversation and its forks.
type pool struct {
	mu     sync.Mutex
	conns  map[string]*llm.Conn
	warned map[string]bool // warnOnce's
	skills *skill.Catalog  // SkillCatalog's
	spent  Spend           // what the run (this conversation and its forks) has spent, for max_cost_per_run (cost.go)
}

// New returns an empty conversation.
func New(d Deps) *State {
	if d.Warn == nil {
		d.Warn = func(string) {}
	}
	return &State{d: d, pool: &pool{conns: map[string]*llm.Conn{}}}
}

// Fork returns a conversation that starts where s stands (its model, a
// copy of its role, its tools and last exchange) without its session, and
// shares its connections. What happens in the fork does not flow back: an
// isolated macro runs on one.
func (s *State) Fork() *State {
	f := &State{d: s.d, pool: s.pool, Model: s.Model, MaxOutputTokens: s.MaxOutputTokens, Tools: s.Tools.Clone(), ShowCall: s.ShowCall, LastInput: s.LastInput, LastReply: s.LastReply,
		RAG: s.RAG, ragBorrowed: s.RAG != nil}
	if s.Role != nil {
		r := *s.Role
		r.Settings = s.Role.Settings.Clone()
		f.Role = &r
	}
	f.Agent, f.AgentPrompt = s.Agent, s.AgentPrompt
	f.NoWorkspaceInstructions, f.InstructionNames = s.NoWorkspaceInstructions, s.InstructionNames
	f.NoMemory, f.WorkDir = s.NoMemory, s.WorkDir
	if s.Model == "" && s.Session != nil {
		f.Model = s.Session.Settings().Model // the session's model, which the fork no longer has
	}
	f.todos = s.Todos().Clone() // the fork starts with the list, and changes its own
	f.skills = s.skills.Clone() // and with the loaded skills
	return f
}

// Config is the configuration the conversation runs with.
func (s *State) Config() *config.Config { return s.d.Config }

// InputOptions are how -f and .file sources are read in this
// conversation: the document_loaders, and the vault for their secrets.
func (s *State) InputOptions() input.Options {
	o := input.Options{Secret: s.d.Secret}
	if s.d.Config != nil {
		o.Loaders = s.d.Config.StringMap("document_loaders")
	}
	return o
}

// Paths are Coyote's directories.
func (s *State) Paths() config.Paths { return s.d.Paths }

// Layers are the precedence levels above the global config: session,
// agent, then role.
func (s *State) Layers() config.Layers {
	l := config.Layers{Session: SessionLayer(s.Session), Role: RoleLayer(s.Role)}
	if s.Agent != nil {
		l.Agent = s.Agent.Layer()
	}
	return l
}

// ModelID is the model a request goes to: the one chosen for the run, else
// the session's, else the agent's, else the role's, else the configured
// one.
func (s *State) ModelID() string {
	switch {
	case s.Model != "":
		return s.Model
	case s.Session != nil && s.Session.Settings().Model != "":
		return s.Session.Settings().Model
	case s.Agent != nil && s.Agent.Config.Settings.Model != "":
		return s.Agent.Config.Settings.Model
	case s.Role != nil && s.Role.Settings.Model != "":
		return s.Role.Settings.Model
	case s.d.Config == nil:
		return ""
	}
	return s.d.Config.Model
}

// Target resolves the model a request goes to, without starting anything.
func (s *State) Target() (llm.Target, error) {
	t, err := llm.Resolve(s.d.Config, s.ModelID())
	var none *llm.NoModelsError
	if errors.As(err, &none) {
		return t, nil // the server is asked when connecting
	}
	return t, err
}

// Connect returns the model of the conversation bound to its client's
// plugin, started and configured. Connections are kept per client, so a
// REPL pays the start once.
func (s *State) Connect(ctx context.Context) (llm.Bound, error) {
	t, err := llm.Resolve(s.d.Config, s.ModelID())
	var none *llm.NoModelsError
	if err != nil && !errors.As(err, &none) {
		return llm.Bound{}, err
	}
	conn, err := s.conn(ctx, t)
	if err != nil {
		return llm.Bound{}, err
	}
	if none != nil {
		// Nothing listed anywhere: ask the server what it has.
		live, lerr := conn.LiveModels(ctx)
		m, ok := llm.FirstChat(live)
		if lerr != nil || !ok {
			return llm.Bound{}, none
		}
		t.Model = m
	}
	return llm.Bound{Conn: conn, Model: t.Model}, nil
}

func (s *State) conn(ctx context.Context, t llm.Target) (*llm.Conn, error) {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	if c, ok := s.pool.conns[t.Client.Name]; ok {
		return c, nil
	}
	host, err := s.d.Host()
	if err != nil {
		return nil, err
	}
	c, err := llm.Connect(ctx, host, t.Client)
	if err != nil {
		return nil, err
	}
	if err := c.Prepare(ctx); err != nil {
		return nil, err
	}
	if say := s.d.Retrying; say != nil {
		c.OnRetry = func(wait time.Duration, next, of int, err error) {
			say(fmt.Sprintf("%s; retrying in %s (%d/%d)…", retryReason(err), roundWait(wait), next, of))
		}
	}
	s.pool.conns[t.Client.Name] = c
	return c, nil
}

// Request builds what to send for new input: the session's conversation
// (or, for an empty session or none, the role's messages) and the input,
// with the resolved sampling settings. It also returns the messages that
// are new in this turn, which the session records.
func (s *State) Request(parts []provider.Part, stream bool) (req *provider.ChatRequest, added []provider.Message) {
	user := provider.Message{Role: provider.RoleUser, Parts: parts}
	var msgs []provider.Message
	switch {
	case s.Session != nil && !s.Session.IsEmpty():
		msgs, added = append(s.Session.Messages(), user), []provider.Message{user}
	case s.Agent != nil:
		msgs = []provider.Message{user}
		if strings.TrimSpace(s.AgentPrompt) != "" {
			msgs = []provider.Message{provider.TextMessage(provider.RoleSystem, s.AgentPrompt), user}
		}
		added = msgs
	case s.Role != nil:
		msgs = s.Role.Build(parts, nil)
		added = msgs
	default:
		msgs = []provider.Message{user}
		added = msgs
	}
	req = &provider.ChatRequest{Messages: msgs, Stream: stream}
	s.applySampling(req)
	s.addSystemText(req) // system.go: workspace instructions, memory, todo instructions, skills
	return req, added
}

// applySampling fills the request's sampling options from the resolved
// settings.
func (s *State) applySampling(req *provider.ChatRequest) {
	layers := s.Layers()
	cfg := s.d.Config
	if cfg == nil {
		return // a dry run without a config file
	}
	if f, ok := cfg.Resolve("temperature", layers).V.(float64); ok {
		req.Temperature = &f
	}
	if f, ok := cfg.Resolve("top_p", layers).V.(float64); ok {
		req.TopP = &f
	}
	if v, ok := cfg.Resolve("reasoning_effort", layers).V.(string); ok {
		req.ReasoningEffort = v
	}
	if s.MaxOutputTokens > 0 {
		req.MaxOutputTokens = s.MaxOutputTokens
	}
}

// Finish records a turn: in the session (compressing it when it grew past
// its threshold and naming a temporary one that will be saved), or it
// remembers the exchange for .continue, .regenerate and .copy. A failed
// turn is checkpointed so that .recover can continue it. The session is
// saved when save says so.
func (s *State) Finish(ctx context.Context, p chat.Chatter, parts []provider.Part, added []provider.Message, reply *chat.Reply, turnErr error) error {
	if turnErr == nil {
		s.LastInput, s.LastReply = parts, reply
	}
	usage, used := s.takeTurnUsage()
	sess := s.Session
	if sess == nil {
		return turnErr
	}
	if b, ok := p.(llm.Bound); ok && sess.Settings().Model == "" {
		id := b.Conn.Client.Name + ":" + b.Model.Name
		sess.Update(func(st *session.Settings) { st.Model = id })
	}
	var budget *BudgetError
	if errors.As(turnErr, &budget) && !used {
		return turnErr // nothing was sent: nothing to recover
	}
	if turnErr != nil {
		partial := ""
		if reply != nil {
			partial = reply.Text
		}
		if err := sess.Checkpoint(partial, added...); err != nil {
			s.d.Warn("could not checkpoint the session: " + err.Error())
		} else if used {
			_ = sess.RecordUsage(usage) // the checkpoint ends with a reply
		}
		return turnErr
	}
	if err := sess.Append(append(added, reply.Message())...); err != nil {
		return err
	}
	recorded := false
	if used {
		if err := sess.RecordUsage(usage); err != nil {
			s.d.Warn(err.Error())
		} else {
			recorded = true
		}
	}
	if n, ok := s.d.Config.Resolve("compression_threshold", s.Layers()).V.(int64); ok && sess.NeedsCompression(n) {
		if err := s.Compress(ctx, p); err != nil {
			s.d.Warn("could not compress the session: " + err.Error())
		}
	}
	if sess.NeedsTitle() {
		if title, err := s.QuietAsk(ctx, p, role.CreateTitle, sess.TitleContext()); err == nil {
			sess.SetTitle(title)
		}
	}
	if recorded && s.aside.Calls > 0 {
		// The title and the summary are part of what the turn cost.
		if err := sess.ReplaceLastUsage(s.withAside(usage)); err != nil {
			s.d.Warn(err.Error())
		}
	}
	return nil
}

// Compress replaces the session's older messages with a summary the model
// writes.
func (s *State) Compress(ctx context.Context, p chat.Chatter) error {
	if s.Session == nil {
		return errors.New("no session is active")
	}
	cfg := s.d.Config
	prompt := cfg.String("summarization_prompt")
	if prompt == "" {
		prompt = session.DefaultSummarizationPrompt
	}
	req := &provider.ChatRequest{Messages: s.Session.SummaryRequest(prompt)}
	reply, err := chat.Stream(ctx, p, req, io.Discard)
	s.countedAside(p, reply)
	if err != nil {
		return err
	}
	keep, _ := cfg.Resolve("compression_keep_last", s.Layers()).V.(int64)
	contextPrompt := cfg.String("summary_context_prompt")
	if contextPrompt == "" {
		contextPrompt = session.DefaultSummaryContextPrompt
	}
	s.Session.Compress(reply.Text, int(keep), contextPrompt)
	return nil
}

// QuietAsk runs a role (a user's file, or a built-in one) on input and
// returns the reply, showing nothing.
func (s *State) QuietAsk(ctx context.Context, p chat.Chatter, name, input string) (string, error) {
	r, err := s.LoadRole(name)
	if err != nil {
		return "", err
	}
	reply, err := chat.Stream(ctx, p, &provider.ChatRequest{Messages: r.Messages(input)}, io.Discard)
	s.countedAside(p, reply)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(reply.Text), nil
}

// LoadRole reads a role by name, a user's file before a built-in one; its
// warnings go to Warn.
func (s *State) LoadRole(name string) (*role.Role, error) {
	r, warnings, err := role.Load(name, s.d.Paths.RolesDir, assets.Roles())
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		s.d.Warn(w.String())
	}
	return r, nil
}

// OpenSession loads a saved session or starts a new one ("temp" is the
// unsaved temporary session) and makes it the conversation's. An agent's
// sessions are its own (SessionStore).
func (s *State) OpenSession(name string) (*session.Session, error) {
	sess, err := s.openSessionIn(s.SessionStore().Dir, name)
	if err != nil {
		return nil, err
	}
	s.Session = sess
	return sess, nil
}

// SessionLayer is a session's settings as a precedence level.
func SessionLayer(s *session.Session) config.Layer {
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

// RoleLayer is a role's settings as a precedence level.
func RoleLayer(r *role.Role) config.Layer {
	if r == nil {
		return nil
	}
	src := config.Source{Kind: "role", Where: r.Name}
	l := config.MapLayer{}
	set := func(key string, v any) { l[key] = &config.Value{V: v, Src: src} }
	rs := r.Settings
	if rs.Model != "" {
		set("model", rs.Model)
	}
	if rs.Temperature != nil {
		set("temperature", *rs.Temperature)
	}
	if rs.TopP != nil {
		set("top_p", *rs.TopP)
	}
	if rs.ReasoningEffort != "" {
		set("reasoning_effort", rs.ReasoningEffort)
	}
	lists := map[string]role.StringList{
		"enabled_tools": rs.EnabledTools, "enabled_mcp_servers": rs.EnabledMCPServers,
		"enabled_skills": rs.EnabledSkills, "enabled_macros": rs.EnabledMacros,
	}
	for k, v := range lists {
		if v.Set {
			set(k, append([]string{}, v.Items...))
		}
	}
	bools := map[string]*bool{
		"skills_enabled": rs.SkillsEnabled, "auto_continue": rs.AutoContinue, "inject_todo_instructions": rs.InjectTodoInstructions,
		"inject_skill_instructions": rs.InjectSkillInstructions, "memory": rs.Memory,
	}
	for k, v := range bools {
		if v != nil {
			set(k, *v)
		}
	}
	if rs.MaxAutoContinues != nil {
		set("max_auto_continues", int64(*rs.MaxAutoContinues))
	}
	if rs.ContinuationPrompt != nil {
		set("continuation_prompt", *rs.ContinuationPrompt)
	}
	if rs.SkillInstructions != nil {
		set("skill_instructions", *rs.SkillInstructions)
	}
	return l
}

// retryReason is the short cause of a retry: "rate limited" or the
// failure's message on one line of about 80 bytes.
func retryReason(err error) string {
	if errors.Is(err, sdk.ErrRateLimited) {
		return "rate limited"
	}
	return httpkit.OneLine(err.Error(), 80)
}

// roundWait shows a wait in whole seconds ("1 s"), or in milliseconds
// under a second.
func roundWait(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds()))
}

// Warn tells the user something that does not stop the run.
func (s *State) Warn(msg string) { s.d.Warn(msg) }

// workDir is the directory the conversation works in.
func (s *State) workDir() (string, error) {
	if s.WorkDir != "" {
		return s.WorkDir, nil
	}
	return os.Getwd()
}
