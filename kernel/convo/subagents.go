package convo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/kernel/agent"
	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/supervisor"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Sub-agents. An agent with can_spawn_agents gets functions to start other
// agents in the background (agent__spawn), follow and collect them, share
// a task queue and answer their questions; every agent can message the
// others. The children of a conversation and of its children share one
// supervisor.Supervisor; each child is a conversation of its own (New with
// the same dependencies and connections), started like -a starts an
// agent, and run with Run. A child's user__* questions go to the root's
// user at the terminal, or, without one, to its parent agent; nobody
// answering within the child's escalation_timeout gives it an answer it can
// act on.

// maxEndReminders is how many times a turn that ends with its children
// still running is sent back to collect them, before they are cancelled.
const maxEndReminders = 3

// subagents is what a conversation knows of the sub-agent tree it is in.
type subagents struct {
	sup   *supervisor.Supervisor
	id    string // this agent's id; "" for the root
	depth int    // 0 for the root agent
	// tools builds an agent's functions (AgentStart.Tools), for children.
	tools   func(a *agent.Agent, env []string) (*tools.Registry, error)
	environ []string
	// termMu serialises questions put to the root's user.
	termMu *sync.Mutex
}

// Supervisor is the sub-agent tree of the conversation (nil until an
// agent spawns one).
func (s *State) Supervisor() *supervisor.Supervisor { return s.sub.sup }

// supervisorTree returns the tree (StartAgent makes it; this makes one
// for a conversation that has none, which no concurrent call reaches).
func (s *State) supervisorTree() *supervisor.Supervisor {
	if s.sub.sup == nil {
		s.sub.sup = supervisor.New(context.Background())
	}
	return s.sub.sup
}

// CancelSubagents cancels every sub-agent of the tree (Ctrl-C, leaving
// the agent).
func (s *State) CancelSubagents() {
	if s.sub.sup != nil {
		s.sub.sup.CancelAll()
	}
}

// CloseSubagents cancels the tree and waits (at most a few seconds) for
// every child to end, so that none outlives the program.
func (s *State) CloseSubagents() {
	if s.sub.sup != nil {
		s.sub.sup.Close(5 * time.Second)
	}
}

// selfID is this agent's id in the tree.
func (s *State) selfID() string {
	if s.sub.id == "" {
		return supervisor.Root
	}
	return s.sub.id
}

// limits are the active agent's spawning limits.
func (s *State) limits() supervisor.Limits {
	c := s.Agent.Config
	l := supervisor.Limits{MaxConcurrent: c.MaxConcurrentAgents, MaxDepth: c.MaxAgentDepth}
	if c.SpawnableAgents.Set {
		l.Spawnable = append([]string{}, c.SpawnableAgents.Items...)
	}
	return l
}

// agentFuncs are the sub-agent functions the active agent gets: messaging
// for every agent, the rest with can_spawn_agents.
func (s *State) agentFuncs() []*tools.Func {
	if s.Agent == nil {
		return nil
	}
	fs := []*tools.Func{
		s.fn("agent__send_message", "Send a message to another agent of this task: a sub-agent by its id, or \"parent\" for the agent that started you.",
			`{"type":"object","properties":{"to":{"type":"string","description":"A sub-agent's id, or \"parent\"."},"message":{"type":"string"}},"required":["to","message"]}`,
			func(_ context.Context, a args) (any, error) {
				to, err := s.supervisorTree().Send(s.selfID(), a.To, a.Message)
				return map[string]any{"sent_to": to}, err
			}),
		s.fn("agent__check_inbox", "Read the messages other agents sent you (each is returned once).", `{"type":"object","properties":{}}`,
			func(context.Context, args) (any, error) {
				msgs := s.supervisorTree().Inbox(s.selfID())
				return map[string]any{"messages": msgs, "count": len(msgs)}, nil
			}),
	}
	if !s.Agent.Config.CanSpawnAgents {
		return fs
	}
	id := `{"type":"object","properties":{"id":{"type":"string","description":"The sub-agent's id, as agent__spawn returned it."}},"required":["id"]}`
	fs = append(fs,
		s.fn("agent__spawn", "Start another agent in the background on a task; returns its id at once. Collect its result later with agent__collect.",
			`{"type":"object","properties":{"agent":{"type":"string","description":"The agent's name (agent__list_available lists them)."},"prompt":{"type":"string","description":"The task, complete: the sub-agent sees nothing else of this conversation."},"variables":{"type":"object","additionalProperties":{"type":"string"},"description":"Values of the agent's variables."}},"required":["agent","prompt"]}`,
			func(_ context.Context, a args) (any, error) {
				cid, err := s.spawn(a.Agent, a.Prompt, a.Variables)
				if err != nil {
					return nil, err
				}
				return map[string]any{"id": cid, "state": supervisor.Running}, nil
			}),
		s.fn("agent__check", "See how a sub-agent is doing, without waiting: its state, how long it has run, and its result when it has ended.", id,
			func(ctx context.Context, a args) (any, error) {
				c, err := s.supervisorTree().Get(a.ID)
				if err != nil {
					return nil, err
				}
				return s.statusResult(ctx, c.Status())
			}),
		s.fn("agent__collect", "Wait for a sub-agent to end and return its result (long results are summarised).", id,
			func(ctx context.Context, a args) (any, error) {
				st, err := s.supervisorTree().Collect(ctx, a.ID)
				if err != nil {
					return nil, err
				}
				return s.statusResult(ctx, st)
			}),
		s.fn("agent__cancel", "Stop a sub-agent.", id,
			func(_ context.Context, a args) (any, error) {
				was, err := s.supervisorTree().Cancel(a.ID)
				return map[string]any{"cancelled": was}, err
			}),
		s.fn("agent__list_running", "List the sub-agents you started that are still running.", `{"type":"object","properties":{}}`,
			func(context.Context, args) (any, error) {
				var out []map[string]any
				for _, st := range s.supervisorTree().Running(s.selfID()) {
					out = append(out, map[string]any{"id": st.ID, "agent": st.Agent, "task": st.Task, "elapsed_s": int(st.Elapsed.Seconds())})
				}
				return map[string]any{"running": out, "count": len(out)}, nil
			}),
		s.fn("agent__list_available", "List the agents you may start, with what each does.", `{"type":"object","properties":{}}`,
			func(context.Context, args) (any, error) { return s.availableAgents(), nil }),
		s.fn("agent__task_create", "Add a task to the task queue the agents share; blocked_by names tasks that must be done first.",
			`{"type":"object","properties":{"title":{"type":"string"},"description":{"type":"string"},"blocked_by":{"type":"array","items":{"type":"string"}}},"required":["title"]}`,
			func(_ context.Context, a args) (any, error) {
				return s.supervisorTree().CreateTask(s.selfID(), a.Title, a.Description, a.BlockedBy)
			}),
		s.fn("agent__task_list", "List the tasks of the queue: ready, blocked (and on what), done or failed.", `{"type":"object","properties":{}}`,
			func(context.Context, args) (any, error) {
				return map[string]any{"tasks": s.supervisorTree().Tasks()}, nil
			}),
		s.fn("agent__task_complete", "Mark a task done, with its result.",
			`{"type":"object","properties":{"id":{"type":"string"},"result":{"type":"string"}},"required":["id"]}`,
			func(_ context.Context, a args) (any, error) { return s.supervisorTree().EndTask(a.ID, true, a.Result) }),
		s.fn("agent__task_fail", "Mark a task failed, with the reason.",
			`{"type":"object","properties":{"id":{"type":"string"},"reason":{"type":"string"}},"required":["id","reason"]}`,
			func(_ context.Context, a args) (any, error) { return s.supervisorTree().EndTask(a.ID, false, a.Reason) }),
		s.fn("agent__reply_escalation", "Answer a question a sub-agent escalated (its id is in the message in your inbox).",
			`{"type":"object","properties":{"id":{"type":"string"},"answer":{"type":"string"}},"required":["id","answer"]}`,
			func(_ context.Context, a args) (any, error) {
				return map[string]any{"answered": a.ID}, s.supervisorTree().Reply(a.ID, a.Answer)
			}),
	)
	return fs
}

// args are the arguments of every sub-agent function.
type args struct {
	To, Message, Agent, Prompt, ID, Title, Description, Result, Reason, Answer string
	BlockedBy                                                                  []string `json:"blocked_by"`
	Variables                                                                  map[string]string
}

// fn builds a built-in function whose result is JSON.
func (s *State) fn(name, desc, schema string, call func(context.Context, args) (any, error)) *tools.Func {
	return &tools.Func{Name: name, Description: desc, Parameters: json.RawMessage(schema), Source: "builtin", Builtin: true,
		Call: func(ctx context.Context, raw json.RawMessage) (string, error) {
			var a args
			if len(raw) > 0 {
				if err := json.Unmarshal(raw, &a); err != nil {
					return "", fmt.Errorf("invalid arguments: %v", err)
				}
			}
			v, err := call(ctx, a)
			if err != nil {
				return "", err
			}
			b, err := json.Marshal(v)
			return string(b), err
		}}
}

// statusResult is what check and collect return; a long result is
// summarised.
func (s *State) statusResult(ctx context.Context, st supervisor.Status) (any, error) {
	out := map[string]any{"id": st.ID, "agent": st.Agent, "state": st.State, "elapsed_s": int(st.Elapsed.Seconds())}
	if st.Err != "" {
		out["error"] = st.Err
	}
	if st.State == supervisor.Running {
		return out, nil
	}
	result := st.Result
	if limit := s.Agent.Config.SummarizationThreshold; limit > 0 && len(result) > limit {
		if sum, err := s.summarize(ctx, result); err == nil {
			out["summarized"] = true
			out["original_chars"] = len(result)
			result = sum
		} else {
			out["summary_error"] = err.Error()
		}
	}
	out["result"] = result
	return out, nil
}

// summarize asks summarization_model (else the conversation's model) to
// shorten a sub-agent's result.
func (s *State) summarize(ctx context.Context, text string) (string, error) {
	f := s.Fork()
	if m := s.Agent.Config.SummarizationModel; m != "" {
		f.Model = m
	}
	b, err := f.Connect(ctx)
	if err != nil {
		return "", err
	}
	req := &provider.ChatRequest{Messages: []provider.Message{
		provider.TextMessage(provider.RoleSystem, "Summarise the report of a sub-agent for the agent that delegated the task. Keep every fact, decision, file path, number and open problem it states; drop narration and repetition."),
		provider.TextMessage(provider.RoleUser, text),
	}}
	reply, err := chat.Stream(ctx, b, req, io.Discard)
	f.countedAside(b, reply)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(reply.Text), nil
}

// availableAgents lists the agents the active agent may spawn.
func (s *State) availableAgents() map[string]any {
	lim := s.limits()
	var out []map[string]string
	for _, e := range agent.List(s.d.Paths.AgentsDir, s.d.Env) {
		if e.Err != nil || (lim.Spawnable != nil && !slices.Contains(lim.Spawnable, e.Name)) {
			continue
		}
		out = append(out, map[string]string{"name": e.Name, "description": e.Description})
	}
	return map[string]any{"agents": out, "count": len(out)}
}

// spawn starts agent name as a child of this agent on prompt.
func (s *State) spawn(name, prompt string, vars map[string]string) (string, error) {
	if strings.TrimSpace(prompt) == "" {
		return "", errors.New("the prompt is empty: give the sub-agent its whole task")
	}
	if s.sub.tools == nil {
		return "", errors.New("sub-agents cannot be started from this conversation: it was not started as an agent with its tools (-a or .agent)")
	}
	sup := s.supervisorTree()
	parent := s
	return sup.Spawn(s.selfID(), s.sub.depth, s.limits(), name, prompt, func(ctx context.Context, id string) (string, error) {
		child := New(parent.d)
		child.pool = parent.pool // one connection per client for the whole tree
		child.NoWorkspaceInstructions, child.InstructionNames = parent.NoWorkspaceInstructions, parent.InstructionNames
		child.sub = subagents{sup: sup, id: id, depth: parent.sub.depth + 1, tools: parent.sub.tools, environ: parent.sub.environ, termMu: parent.sub.termMu}
		child.Asker = &escalator{child: child, root: parent.rootAsker()}
		start := AgentStart{Name: name, Vars: vars, NoSession: true, Tools: parent.sub.tools, Environ: parent.sub.environ}
		if err := child.StartAgent(ctx, start); err != nil {
			return "", err
		}
		if child.Agent.Graph != nil {
			// A graph agent runs its graph on the task; nobody is there to
			// answer its approval and input nodes (their defaults apply).
			return child.RunGraph(ctx, prompt, GraphUI{Environ: parent.sub.environ})
		}
		reply, err := child.Run(ctx, Ask{Parts: []provider.Part{{Text: prompt}}, Display: func() chat.Display { return chat.Plain(io.Discard) }})
		if reply == nil {
			return "", err
		}
		return reply.Text, err
	})
}

// rootAsker is the root user's terminal, for a child's questions: nil
// when there is none (the questions go to the parent agent then).
func (s *State) rootAsker() tools.Asker {
	if e, ok := s.Asker.(*escalator); ok {
		return e.root
	}
	return s.Asker
}

// escalator is a child's Asker: its user__* questions go to the root's
// user (one at a time) or to its parent agent, within the child's
// escalation_timeout.
type escalator struct {
	child *State
	root  tools.Asker
}

func (e *escalator) Line(string) (string, error) {
	return "", errors.New("a sub-agent has no terminal")
}
func (e *escalator) Say(string) {}

// Question implements tools.Questioner.
func (e *escalator) Question(ctx context.Context, action, question string, options []string, ask func(tools.Asker) (any, error)) (any, error) {
	c := e.child
	timeout := time.Duration(c.Agent.Config.EscalationTimeout) * time.Second
	guidance := fmt.Sprintf("Nobody answered within %s. Go on with the most reasonable choice, and say in your result which one you made and why.", timeout)
	if e.root == nil {
		ans, err := c.supervisorTree().Escalate(ctx, c.selfID(), question, options, timeout)
		if errors.Is(err, supervisor.ErrNoAnswer) {
			return nil, &tools.NoAnswer{Guidance: guidance}
		}
		return ans, err
	}
	mu := c.sub.termMu
	if mu == nil {
		mu = &sync.Mutex{}
	}
	mu.Lock()
	defer mu.Unlock()
	e.root.Say(fmt.Sprintf("\n[sub-agent %s asks]\n", c.selfID()))
	type answer struct {
		v   any
		err error
	}
	got := make(chan answer, 1)
	go func() { v, err := ask(e.root); got <- answer{v, err} }()
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case a := <-got:
		return a.v, a.err
	case <-timer:
		e.root.Say(fmt.Sprintf("\n(no answer within %s: the sub-agent goes on without one)\n", timeout))
		return nil, &tools.NoAnswer{Guidance: guidance}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// spawnInstructions tell an agent that can spawn how to delegate, unless
// inject_spawn_instructions is false.
func (s *State) spawnInstructions() string {
	if s.Agent == nil || !s.Agent.Config.CanSpawnAgents || !s.d.Config.Bool("function_calling_support") {
		return ""
	}
	if in := s.Agent.Config.InjectSpawnInstructions; in != nil && !*in {
		return ""
	}
	return `# Sub-agents

You can hand work to other agents that run in the background while you go on:
- agent__list_available shows which agents you may start and what each does.
- agent__spawn starts one with a complete task description (it sees nothing else of this conversation) and returns its id at once; start independent tasks together so they run in parallel.
- agent__collect waits for a sub-agent's result; agent__check looks without waiting; agent__cancel stops one.
- agent__task_create / agent__task_list / agent__task_complete / agent__task_fail keep a shared task queue (blocked_by orders tasks).
- Sub-agents may message you (agent__check_inbox) or ask questions you can answer with agent__reply_escalation.
Collect every sub-agent you start before you give your final answer.`
}

// superviseEnd is the end-of-turn guard: while sub-agents this agent
// started are still running, the model is reminded to collect them (at
// most maxEndReminders times); after that they are cancelled.
func (s *State) superviseEnd(ctx context.Context, a Ask, p chat.Chatter, m models.Model, req *provider.ChatRequest, reply *chat.Reply, err error) (*chat.Reply, error) {
	sup := s.sub.sup
	if sup == nil || a.DryRun != nil {
		return reply, err
	}
	if err != nil {
		if ctx.Err() != nil && s.sub.id == "" {
			sup.CancelAll() // Ctrl-C cancels the whole tree
		}
		return reply, err
	}
	var history []provider.Message
	if s.Session == nil {
		history = turnHistory(req.Messages, a.Prefix, reply)
	}
	for n := 1; ; n++ {
		running := sup.Running(s.selfID())
		if len(running) == 0 {
			return reply, nil
		}
		ids := make([]string, len(running))
		for i, r := range running {
			ids[i] = r.ID
		}
		if n > maxEndReminders || ctx.Err() != nil {
			for _, id := range ids {
				_, _ = sup.Cancel(id)
			}
			s.d.Warn(fmt.Sprintf("cancelled %d sub-agent(s) still running at the end of the turn: %s", len(ids), strings.Join(ids, ", ")))
			return reply, ctx.Err()
		}
		text := fmt.Sprintf("[SUB-AGENTS STILL RUNNING]\nThese sub-agents you started have not been collected: %s. Collect their results with agent__collect (or stop them with agent__cancel), then give your final answer.", strings.Join(ids, ", "))
		next, hist, err := s.continuation(ctx, a, p, m, history, text)
		if err != nil {
			return next, err
		}
		history, reply = hist, next
	}
}
