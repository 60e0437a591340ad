// Package graph owns graph agents: agents/<name>/graph.yaml read with
// file:line errors, the validator that reports every problem of a graph at
// once, the state reducers, and the engine that runs a graph step by step
// (a list in `next` is one bulk-synchronous parallel step whose writes merge
// through the reducers).
//
// The engine does not talk to models, agents, RAGs or the terminal itself:
// it goes through Runtime, which the kernel implements with kernel/convo and
// tests implement with fakes. Script nodes are the engine's own (a process
// with the state in GRAPH_STATE). This package must not import the rest of
// the kernel beyond kernel/yamlerr.
package graph

import (
	"time"
)

// Version is the only graph schema version accepted.
const Version = "1.0"

// The defaults of the settings and of the nodes.
const (
	DefaultMaxLoopIterations = 100
	DefaultMaxConcurrency    = 4
	DefaultMaxIterations     = 10
	DefaultScriptTimeout     = 30 * time.Second
	DefaultAgentTimeout      = 300 * time.Second
	DefaultRAGTimeout        = 120 * time.Second
	// StateInlineLimit is the size of the state JSON above which a script
	// gets it in a file (GRAPH_STATE_FILE) rather than GRAPH_STATE.
	StateInlineLimit = 32 << 10
)

// Kind is a node's type.
type Kind string

// The node kinds.
const (
	KindLLM      Kind = "llm"
	KindRAG      Kind = "rag"
	KindScript   Kind = "script"
	KindAgent    Kind = "agent"
	KindApproval Kind = "approval"
	KindInput    Kind = "input"
	KindMap      Kind = "map"
	KindEnd      Kind = "end"
)

// Kinds are the node kinds this build runs.
var Kinds = []Kind{KindLLM, KindRAG, KindScript, KindAgent, KindApproval, KindInput, KindMap, KindEnd}

// Graph is a graph.yaml, parsed.
type Graph struct {
	// File is the graph.yaml read; Dir the agent directory scripts and
	// documents are relative to.
	File, Dir string

	Name, Description, Version string

	Settings     Settings
	Reducers     map[string]string
	InitialState map[string]any
	Start        string
	// Nodes by id; Order is the ids in file order.
	Nodes map[string]*Node
	Order []string

	// The agent-level lists nodes draw from: global_tools (a node's tools
	// whitelist), mcp_servers (mcp:<server> entries), enabled_skills (a
	// node's enabled_skills must be a subset; nil: not set).
	GlobalTools   []string
	MCPServers    []string
	EnabledSkills []string
	SkillsEnabled *bool

	// lines are the lines of top-level keys ("start", "reducers.x", …),
	// for the validator's messages.
	lines map[string]int
}

// Settings are graph.yaml's settings block.
type Settings struct {
	MaxLoopIterations int
	// Timeout caps the whole run (0: none).
	Timeout           time.Duration
	LogStateSnapshots bool
	ValidateBeforeRun bool
	MaxConcurrency    int
}

// Update is one entry of a node's state_updates: a state key and its value
// (a string is a template; {{output}}, {{choice}} or {{input}} name what
// the node produced).
type Update struct {
	Key   string
	Value any
	Line  int
}

// Route is one entry of an approval node's routes.
type Route struct {
	Option, Target string
	Line           int
}

// Node is one node of a graph. Which fields matter depends on Kind.
type Node struct {
	ID          string
	Kind        Kind
	Description string
	// Line is the line of the node's key; lines the lines of its fields.
	Line  int
	lines map[string]int

	// Next are the routes on success: one id, or several run as one
	// parallel step (Parallel: `next` was a list).
	Next     []string
	Parallel bool
	Fallback string
	Updates  []Update
	// Timeout caps the node (0: the kind's default, none for llm).
	Timeout time.Duration

	// llm (and agent: Prompt, OutputSchema).
	Prompt, Instructions string
	// Tools is the whitelist (nil or empty: no tools).
	Tools                   []string
	Model                   string
	Temperature, TopP       *float64
	ReasoningEffort         string
	OutputSchema            map[string]any
	MaxAttempts             int
	MaxIterations           int
	SkillsEnabled           *bool
	EnabledSkills           []string
	InjectSkillInstructions *bool
	SkillInstructions       *string

	// rag
	Documents                       []string
	Query                           string
	TopK                            int
	EmbeddingModel, RerankerModel   string
	ExtractorModel, ExtractorPrompt string
	ChunkSize, ChunkOverlap         int
	GraphHops                       *int
	BatchSize                       int

	// script
	Script string

	// agent
	Agent string

	// approval and input
	Question   string
	Options    []string
	Routes     []Route
	OnOther    string
	Default    *string
	Validation string

	// map
	Over, As, Branch, CollectInto, OutputKey string
	MaxConcurrency                           int

	// end
	Output string
}

// LineOf is the line of a field of the node ("" or an unknown field: the
// node's own line).
func (n *Node) LineOf(field string) int {
	if l, ok := n.lines[field]; ok {
		return l
	}
	return n.Line
}

// lineOf is the line of a top-level key of the graph (1 when absent).
func (g *Graph) lineOf(key string) int {
	if l, ok := g.lines[key]; ok {
		return l
	}
	return 1
}

// timeout is the node's timeout, or its kind's default.
func (n *Node) timeout() time.Duration {
	if n.Timeout > 0 {
		return n.Timeout
	}
	switch n.Kind {
	case KindScript:
		return DefaultScriptTimeout
	case KindAgent:
		return DefaultAgentTimeout
	case KindRAG:
		return DefaultRAGTimeout
	}
	return 0
}
