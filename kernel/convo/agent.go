package convo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/coyote-cli/coyote/kernel/agent"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/kernel/session"
	"github.com/coyote-cli/coyote/kernel/supervisor"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// AgentStart is how a caller (-a, .agent) starts an agent.
type AgentStart struct {
	Name string
	// Vars are the variables given (--agent-variable, .agent's k=v).
	Vars map[string]string
	// Session is the session to start in ("" takes the agent's
	// agent_session, else the global one, else none); NoSession ignores
	// every agent_session.
	Session   string
	NoSession bool
	// Ask asks the user for a variable the agent needs; nil when there
	// is no terminal.
	Ask func(v agent.Variable) (string, error)
	// Tools builds the functions the agent may call: the built-ins, the
	// agent's own tools (whose calls get env: its variables), and the
	// global tool files it names. The caller knows the terminal and how
	// tools run.
	Tools func(a *agent.Agent, env []string) (*tools.Registry, error)
	// Environ is the environment of a dynamic_instructions script.
	Environ []string
}

// StartAgent loads an agent and makes it the conversation's: its
// instructions become the system prompt, its settings a level of the
// precedence, its tools the ones offered. It opens the agent's session
// (agents/<name>/sessions/) when one is asked for or configured. Nothing
// changes when it fails.
func (s *State) StartAgent(ctx context.Context, st AgentStart) error {
	a, err := agent.Load(s.d.Paths.AgentsDir, st.Name, s.d.Env)
	if errors.Is(err, agent.ErrNotFound) {
		return fmt.Errorf("%w (coyote --list-agents lists them)", err)
	}
	if err != nil {
		return err
	}
	for _, w := range a.Warnings {
		s.d.Warn(w)
	}
	if a.Graph != nil {
		return s.startGraph(ctx, a, st) // graph.go
	}
	name := st.Session
	if name == "" && !st.NoSession && s.d.Config != nil {
		name = a.Session(s.d.Config.String("agent_session"))
	}
	var sess *session.Session
	saved := map[string]string{}
	if name != "" {
		if sess, err = s.openSessionIn(a.SessionsDir(), name); err != nil {
			return fmt.Errorf("agent %q: %w", a.Name, err)
		}
		for _, v := range sess.Settings().AgentVariables {
			saved[v.Name] = v.Value
		}
	}
	if err := a.Resolve(st.Vars, saved, st.Ask); err != nil {
		return err
	}
	reg := tools.NewRegistry()
	if st.Tools != nil {
		if reg, err = st.Tools(a, a.VarEnv()); err != nil {
			return err
		}
	}
	if e, ok := s.Asker.(*escalator); ok {
		// A sub-agent's questions go up the tree (subagents.go).
		reg.Remove("user__")
		for _, f := range tools.UserFuncs(e) {
			reg.Add(f)
		}
	}
	var list []string
	for _, f := range reg.All() {
		if !f.Builtin {
			list = append(list, f.Name+": "+f.Description)
		}
	}
	prompt, err := a.Instructions(ctx, list, st.Environ)
	if err != nil {
		return err
	}
	if sess != nil {
		vars := make([]session.Variable, 0, len(a.Config.Variables))
		for _, v := range a.Config.Variables {
			vars = append(vars, session.Variable{Name: v.Name, Value: a.Vars[v.Name]})
		}
		sess.Update(func(ss *session.Settings) {
			ss.AgentVariables = vars
			if ss.AgentInstructions == "" {
				ss.AgentInstructions = prompt
			}
		})
		s.Session = sess
	}
	s.Agent, s.AgentPrompt, s.Role, s.Tools = a, prompt, nil, reg
	s.sub.tools, s.sub.environ = st.Tools, st.Environ
	if s.sub.termMu == nil {
		s.sub.termMu = &sync.Mutex{}
	}
	if s.sub.sup == nil {
		// Made before any turn: the functions of one tool round run at
		// once, and two agent__spawn calls must find the same tree.
		s.sub.sup = supervisor.New(context.Background())
	}
	return nil
}

// openSessionIn opens a session of an agent's sessions directory.
func (s *State) openSessionIn(dir, name string) (*session.Session, error) {
	var settings session.Settings
	if s.d.Config != nil {
		if b, ok := s.d.Config.Get("save_session").V.(bool); ok && !s.d.Config.Get("save_session").Null {
			settings.SaveSession = &b
		}
	}
	sess, err := (&session.Store{Dir: dir}).Open(name, settings)
	if err != nil {
		return nil, fmt.Errorf("open session %q: %w", name, err)
	}
	return sess, nil
}

// SessionStore is where the sessions of this conversation live: the
// agent's when an agent is active.
func (s *State) SessionStore() *session.Store {
	if s.Agent != nil {
		return &session.Store{Dir: s.Agent.SessionsDir()}
	}
	return &session.Store{Dir: s.d.Paths.SessionsDir}
}

// AgentRAGState says whether the agent's documents have a RAG.
type AgentRAGState int

// The states of an agent's RAG.
const (
	AgentRAGNone    AgentRAGState = iota // the agent has no documents
	AgentRAGReady                        // rag.yaml exists
	AgentRAGMissing                      // documents, but no RAG built yet
)

// AgentRAG says what the active agent's documents need.
func (s *State) AgentRAG() AgentRAGState {
	a := s.Agent
	switch {
	case a == nil || len(a.Config.Documents) == 0:
		return AgentRAGNone
	case fileExists(a.RAGFile()):
		return AgentRAGReady
	}
	return AgentRAGMissing
}

// AgentRAGQuestion is the question put before the active agent's
// documents are indexed (they may be many, or URLs).
func (s *State) AgentRAGQuestion() string {
	a := s.Agent
	return fmt.Sprintf("Agent %s has %d document source(s). Build its RAG now (%s)? [y/N] ", a.Name, len(a.Config.Documents), a.RAGFile())
}

// UseAgentRAG opens the active agent's RAG (agents/<name>/rag.yaml),
// building it first from the agent's documents when build is set and it
// does not exist yet, and makes it the conversation's RAG. progress shows
// the indexing (nil: nothing).
func (s *State) UseAgentRAG(ctx context.Context, progress func(rag.Progress)) error {
	a := s.Agent
	if a == nil || len(a.Config.Documents) == 0 {
		return nil
	}
	name := "agent-" + a.Name
	f, err := rag.LoadSettings(a.RAGFile())
	if errors.Is(err, fs.ErrNotExist) {
		if f, err = s.agentRAGFile(a); err != nil {
			return err
		}
		_, err = s.IndexRAG(ctx, f, name, true, progress)
		return err
	}
	if err != nil {
		return err
	}
	r, err := s.OpenRAG(ctx, f, name, ragstore.ReadOnly)
	if err != nil {
		return err
	}
	s.UseRAG(r)
	return nil
}

// graphHops is rag_graph_hops as a RAG file's graph_hops.
func graphHops(n int64, ok bool) *int {
	h := 1
	if ok && n >= 0 {
		h = int(n)
	}
	return &h
}

// agentRAGFile describes the RAG of an agent's documents with the
// configured defaults (rag_embedding_model, rag_chunk_size, …), paths
// relative to the agent's directory.
func (s *State) agentRAGFile(a *agent.Agent) (*rag.File, error) {
	cfg := s.d.Config
	model := cfg.String("rag_embedding_model")
	if model == "" {
		model = s.FirstEmbeddingModel()
	}
	if model == "" {
		return nil, fmt.Errorf("agent %q has documents, but no embedding model is configured: set rag_embedding_model in config.yaml", a.Name)
	}
	size := int64(1500)
	if n, ok := cfg.Int("rag_chunk_size"); ok && n > 0 {
		size = n
	}
	overlap := size / 20
	if n, ok := cfg.Int("rag_chunk_overlap"); ok && n >= 0 && n < size {
		overlap = n
	}
	topK, _ := cfg.Int("rag_top_k")
	if err := os.MkdirAll(filepath.Dir(a.RAGFile()), 0o755); err != nil {
		return nil, err
	}
	return &rag.File{
		Path: a.RAGFile(), Driver: s.DefaultRAGDriver(), EmbeddingModel: model, ChunkSize: int(size), ChunkOverlap: int(overlap),
		TopK: int(max(topK, 1)), RerankerModel: cfg.String("rag_reranker_model"),
		ExtractorModel: cfg.String("rag_extractor_model"), ExtractorPrompt: cfg.String("rag_extractor_prompt"), GraphHops: graphHops(cfg.Int("rag_graph_hops")),
		DocumentPaths: rag.AbsDocumentPaths(a.Config.Documents, a.Dir, cfg.StringMap("document_loaders")),
	}, nil
}

// IndexRAG indexes f's documents (all of them when full, else the changed
// ones) with its store open read-write, then reopens the store read-only
// and makes it the active RAG: a DuckDB file held read-write locks every
// other coyote out, so it is held so only while indexing. When indexing
// fails, the RAG that was active stays so, reopened read-only.
// It returns the indexing's plan (what was added, removed, completed).
func (s *State) IndexRAG(ctx context.Context, f *rag.File, name string, full bool, progress func(rag.Progress)) (*rag.Plan, error) {
	wasActive := s.RAG != nil && s.RAG.Name == name
	rw, err := s.OpenRAG(ctx, f, name, ragstore.ReadWrite)
	if err != nil {
		return nil, err
	}
	if progress == nil {
		progress = func(rag.Progress) {}
	}
	plan, indexErr := rw.Index(ctx, full, progress)
	CloseRAG(rw)
	if indexErr != nil && !wasActive {
		return plan, indexErr
	}
	// Reopened even after Ctrl+C, which ends ctx but must not end the RAG;
	// after a failed run, as that run left it (and said so).
	ro, err := s.ReopenRAG(context.WithoutCancel(ctx), f, name, indexErr == nil)
	if err != nil {
		if wasActive {
			s.UseRAG(nil)
		}
		if indexErr != nil {
			return plan, indexErr
		}
		return plan, err
	}
	s.UseRAG(ro)
	return plan, indexErr
}

// Starters are the active agent's conversation starters, numbered.
func (s *State) Starters() []string {
	if s.Agent == nil {
		return nil
	}
	out := make([]string, len(s.Agent.Config.ConversationStarters))
	for i, st := range s.Agent.Config.ConversationStarters {
		out[i] = strconv.Itoa(i+1) + ". " + st
	}
	return out
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// FirstEmbeddingModel is the first embedding model any client offers, as
// client:model ("" when none does).
func (s *State) FirstEmbeddingModel() string {
	cfg := s.d.Config
	for i := range cfg.Clients {
		for _, m := range llm.ClientModels(&cfg.Clients[i]) {
			if m.Type == "embedding" {
				return cfg.Clients[i].Name + ":" + m.Name
			}
		}
	}
	return ""
}
