package convo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/kernel/agent"
	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/graph"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// startGraph makes a graph agent the conversation's: its variables
// resolved and the tools its llm nodes draw from built. A graph agent has
// no session, no instructions of its own and no memory.
func (s *State) startGraph(ctx context.Context, a *agent.Agent, st AgentStart) error {
	if st.Session != "" {
		return fmt.Errorf("agent %q is a graph agent, which has no sessions: start it without -s", a.Name)
	}
	if err := a.Resolve(st.Vars, nil, st.Ask); err != nil {
		return err
	}
	reg := tools.NewRegistry()
	if st.Tools != nil {
		var err error
		if reg, err = st.Tools(a, a.VarEnv()); err != nil {
			return err
		}
	}
	start := st
	s.Agent, s.AgentPrompt, s.Role, s.Tools, s.graphStart = a, "", nil, reg, &start
	return nil
}

// GraphUI is how a graph run meets the user: the questions of approval and
// input nodes (nil: there is no one to ask) and each node's progress.
type GraphUI struct {
	Ask      func(ctx context.Context, q graph.Question) (string, error)
	Progress func(e graph.Event)
	// Environ is the environment script nodes start from (filtered by the
	// caller as tools' is).
	Environ []string
}

// RunGraph runs the active graph agent's graph with input as its
// {{initial_prompt}} and returns the end node's output.
func (s *State) RunGraph(ctx context.Context, input string, ui GraphUI) (string, error) {
	if s.Agent == nil || s.Agent.Graph == nil {
		return "", errors.New("no graph agent is active")
	}
	// The tools are read once here: a parallel step's llm nodes clone them
	// at once, and a registry reads its tool scripts on first use.
	rt := &graphRuntime{s: s, ui: ui, tools: s.Tools.Clone(), run: time.Now().UTC().Format("20060102T150405.000000000")}
	return graph.Run(ctx, s.Agent.Graph, input, rt)
}

// graphRuntime is graph.Runtime on a conversation: every llm node a fresh
// conversation with the same program around it.
type graphRuntime struct {
	s     *State
	ui    GraphUI
	tools *tools.Registry // the agent's functions, loaded (RunGraph)
	run   string          // the run's id, the name of its snapshots' folder
}

func (r *graphRuntime) fresh() *State {
	f := New(r.s.d)
	f.pool = r.s.pool
	f.NoMemory, f.NoWorkspaceInstructions = true, true
	return f
}

// LLM runs an llm node: a fresh conversation whose system prompt is the
// node's instructions, whose model and sampling are the node's (else the
// agent's), offering only the node's tools whitelist.
func (r *graphRuntime) LLM(ctx context.Context, c graph.LLMCall) (string, error) {
	a, n := r.s.Agent, c.Node
	f := r.fresh()
	f.Model = r.s.Model
	rs := role.Settings{Model: a.Config.Settings.Model, Temperature: a.Config.Settings.Temperature,
		TopP: a.Config.Settings.TopP, ReasoningEffort: a.Config.Settings.ReasoningEffort}
	if n.Model != "" {
		rs.Model, f.Model = n.Model, ""
	}
	if n.Temperature != nil {
		rs.Temperature = n.Temperature
	}
	if n.TopP != nil {
		rs.TopP = n.TopP
	}
	if n.ReasoningEffort != "" {
		rs.ReasoningEffort = n.ReasoningEffort
	}
	var names, servers []string
	for _, t := range n.Tools {
		if srv, ok := strings.CutPrefix(t, "mcp:"); ok {
			servers = append(servers, srv)
		} else {
			names = append(names, strings.TrimSuffix(t, filepath.Ext(t)))
		}
	}
	rs.EnabledTools, rs.EnabledMCPServers = role.ListOf(names...), role.ListOf(servers...)
	// Skills: the graph's settings, narrowed by the node's (the model loads
	// them itself with skill__load, as elsewhere).
	as := a.Config.Settings
	rs.SkillsEnabled, rs.EnabledSkills, rs.InjectSkillInstructions, rs.SkillInstructions =
		as.SkillsEnabled, as.EnabledSkills, as.InjectSkillInstructions, as.SkillInstructions
	if n.SkillsEnabled != nil && (rs.SkillsEnabled == nil || *rs.SkillsEnabled) {
		rs.SkillsEnabled = n.SkillsEnabled
	}
	if n.EnabledSkills != nil {
		rs.EnabledSkills = role.ListOf(n.EnabledSkills...)
	}
	if n.InjectSkillInstructions != nil {
		rs.InjectSkillInstructions = n.InjectSkillInstructions
	}
	if n.SkillInstructions != nil {
		rs.SkillInstructions = n.SkillInstructions
	}
	f.Role = &role.Role{Name: "graph:" + a.Name + ":" + n.ID, Prompt: c.Instructions, Settings: rs}
	f.Tools = r.tools.Clone()
	f.ShowCall = r.s.ShowCall
	f.MaxToolRounds = n.MaxIterations
	if f.MaxToolRounds == 0 {
		f.MaxToolRounds = graph.DefaultMaxIterations
	}
	reply, err := f.Run(ctx, Ask{Parts: []provider.Part{{Text: c.Prompt}}, Display: quiet})
	if err != nil {
		return "", err
	}
	return reply.Text, nil
}

// Agent runs a turn of a config agent on a fresh conversation, started
// as the graph agent was (its tools builder), without a session.
func (r *graphRuntime) Agent(ctx context.Context, n *graph.Node, name, prompt string) (string, error) {
	f := r.fresh()
	st := AgentStart{Name: name, NoSession: true}
	if r.s.graphStart != nil {
		st.Tools, st.Environ = r.s.graphStart.Tools, r.s.graphStart.Environ
	}
	if err := f.StartAgent(ctx, st); err != nil {
		return "", err
	}
	if f.Agent.Graph != nil {
		return f.RunGraph(ctx, prompt, r.ui)
	}
	f.ShowCall = r.s.ShowCall
	reply, err := f.Run(ctx, Ask{Parts: []provider.Part{{Text: prompt}}, Display: quiet})
	if err != nil {
		return "", err
	}
	return reply.Text, nil
}

// RAG queries a rag node's knowledge base, <agent data dir>/<node>.yaml,
// built from the node's documents the first time.
func (r *graphRuntime) RAG(ctx context.Context, n *graph.Node, query string) (graph.RAGResult, error) {
	a := r.s.Agent
	f := r.fresh()
	file := filepath.Join(a.DataDir, n.ID+".yaml")
	name := "graph-" + a.Name + "-" + n.ID
	rf, err := rag.LoadSettings(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if rf, err = r.ragFile(a, n, file); err != nil {
			return graph.RAGResult{}, err
		}
		if _, err := f.IndexRAG(ctx, rf, name, true, nil); err != nil {
			return graph.RAGResult{}, fmt.Errorf("build the knowledge base %s: %w", file, err)
		}
	case err != nil:
		return graph.RAGResult{}, err
	default:
		ro, err := f.OpenRAG(ctx, rf, name, ragstore.ReadOnly)
		if err != nil {
			return graph.RAGResult{}, err
		}
		f.UseRAG(ro)
	}
	defer f.UseRAG(nil)
	chunks, err := f.RAG.Search(ctx, query, n.TopK)
	if err != nil {
		return graph.RAGResult{}, err
	}
	var res graph.RAGResult
	var blocks []string
	seen := map[string]bool{}
	for _, c := range chunks {
		blocks = append(blocks, "[Source: "+c.Source+"]\n"+c.Text)
		if !seen[c.Source] {
			seen[c.Source] = true
			res.Sources = append(res.Sources, c.Source)
		}
	}
	res.Context = strings.Join(blocks, "\n\n")
	return res, nil
}

// ragFile describes a rag node's knowledge base: the node's settings over
// the configured defaults, documents relative to the agent directory.
func (r *graphRuntime) ragFile(a *agent.Agent, n *graph.Node, file string) (*rag.File, error) {
	cfg := r.s.d.Config
	model := n.EmbeddingModel
	if model == "" {
		model = cfg.String("rag_embedding_model")
	}
	if model == "" {
		model = r.s.FirstEmbeddingModel()
	}
	if model == "" {
		return nil, fmt.Errorf("node %q: no embedding model: set embedding_model on the node or rag_embedding_model in config.yaml", n.ID)
	}
	size := 1500
	if v, ok := cfg.Int("rag_chunk_size"); ok && v > 0 {
		size = int(v)
	}
	if n.ChunkSize > 0 {
		size = n.ChunkSize
	}
	overlap := size / 20
	if n.ChunkOverlap > 0 && n.ChunkOverlap < size {
		overlap = n.ChunkOverlap
	}
	topK := 5
	if v, ok := cfg.Int("rag_top_k"); ok && v > 0 {
		topK = int(v)
	}
	if n.TopK > 0 {
		topK = n.TopK
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, err
	}
	f := &rag.File{Path: file, Driver: r.s.DefaultRAGDriver(), EmbeddingModel: model, ChunkSize: size, ChunkOverlap: overlap,
		TopK: topK, RerankerModel: n.RerankerModel, ExtractorModel: n.ExtractorModel, ExtractorPrompt: n.ExtractorPrompt,
		DocumentPaths: rag.AbsDocumentPaths(n.Documents, a.Dir, cfg.StringMap("document_loaders"))}
	if n.BatchSize > 0 {
		f.BatchSize = n.BatchSize
	}
	if f.ExtractorModel == "" {
		f.ExtractorModel = cfg.String("rag_extractor_model")
	}
	if f.ExtractorPrompt == "" {
		f.ExtractorPrompt = cfg.String("rag_extractor_prompt")
	}
	f.GraphHops = graphHops(cfg.Int("rag_graph_hops"))
	if n.GraphHops != nil {
		f.GraphHops = n.GraphHops
	}
	return f, nil
}

func (r *graphRuntime) Ask(ctx context.Context, q graph.Question) (string, error) {
	if r.ui.Ask == nil {
		if q.Default != nil {
			return *q.Default, nil
		}
		return "", fmt.Errorf("node %q asks the user, and there is no terminal to ask on: run the agent in a terminal", q.Node.ID)
	}
	return r.ui.Ask(ctx, q)
}

// ScriptEnv is what a script node sees: the environment the caller
// passed, the config directory, the agent's data directory and
// variables, and the functions' bin directory first on PATH.
func (r *graphRuntime) ScriptEnv(*graph.Node) []string {
	p, a := r.s.d.Paths, r.s.Agent
	env := append([]string{}, r.ui.Environ...)
	path := filepath.Join(p.FunctionsDir, "bin")
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + path + string(os.PathListSeparator) + v
			path = ""
		}
	}
	if path != "" {
		env = append(env, "PATH="+path+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	env = append(env, "LLM_ROOT_DIR="+p.ConfigDir, "LLM_AGENT_DATA_DIR="+a.DataDir,
		"LLM_PROMPT_UTILS_FILE="+filepath.Join(p.FunctionsDir, "utils", "prompt-utils.sh"))
	return append(env, a.VarEnv()...)
}

func (r *graphRuntime) Progress(e graph.Event) {
	if r.ui.Progress != nil {
		r.ui.Progress(e)
	}
}

// Snapshot writes the state after a step to
// <cache>/agents/<name>/snapshots/<run>/step-NNN.json (atomically); a
// failure is a warning.
func (r *graphRuntime) Snapshot(step int, state map[string]any) {
	dir := filepath.Join(r.s.d.Paths.CacheDir, "agents", r.s.Agent.Name, "snapshots", r.run)
	b, err := json.MarshalIndent(state, "", "  ")
	if err == nil {
		err = writeAtomic(filepath.Join(dir, fmt.Sprintf("step-%03d.json", step)), append(b, '\n'))
	}
	if err != nil {
		r.s.d.Warn(fmt.Sprintf("graph state snapshot: %v", err))
	}
}

func writeAtomic(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".snapshot-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), file)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// quiet is how a node's reply is shown: not at all (the graph's output is
// its end node's).
func quiet() chat.Display { return chat.Plain(io.Discard) }

var _ graph.Runtime = (*graphRuntime)(nil)
