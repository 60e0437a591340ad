// Package supervisor owns the sub-agents of one root conversation: the
// children an agent spawns (each a goroutine running a conversation the
// caller builds), the limits on them (which agents, how many at once, how
// deep), their results, the task queue agents share, the messages between
// agents, and the questions a child escalates to the root's user. It knows
// nothing of conversations or models: the caller gives each child a run
// function, and builds the functions the model calls on top (kernel/convo).
package supervisor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"
)

// The states of a child.
const (
	Running   = "running"
	Done      = "done"
	Failed    = "failed"
	Cancelled = "cancelled"
)

// Child is one spawned sub-agent.
type Child struct {
	ID     string
	Agent  string
	Parent string // the spawning agent's id ("" for the root)
	Depth  int    // 1 for a child of the root agent
	Task   string // what it was asked
	Start  time.Time

	mu     sync.Mutex
	state  string
	result string
	err    error
	ended  time.Time
	done   chan struct{}
	cancel context.CancelFunc
}

// Status is a child as seen at one moment.
type Status struct {
	ID, Agent, Parent, State, Task string
	Depth                          int
	Elapsed                        time.Duration
	Result                         string
	Err                            string
}

// Status reports the child's state now.
func (c *Child) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	end := c.ended
	if end.IsZero() {
		end = time.Now()
	}
	st := Status{ID: c.ID, Agent: c.Agent, Parent: c.Parent, State: c.state, Task: c.Task, Depth: c.Depth,
		Elapsed: end.Sub(c.Start), Result: c.result}
	if c.err != nil {
		st.Err = c.err.Error()
	}
	return st
}

// Limits are what a spawning agent may do: its config's spawnable_agents
// (Spawnable nil: every agent; empty: none), max_concurrent_agents and
// max_agent_depth.
type Limits struct {
	Spawnable     []string
	MaxConcurrent int
	MaxDepth      int
}

// Supervisor is the sub-agents of one root conversation. Its zero value
// is not usable: call New.
type Supervisor struct {
	base   context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	children map[string]*Child
	order    []string
	tasks    taskQueue
	inboxes  map[string][]Message
	escal    map[string]*Escalation
	escOrder []string
	wg       sync.WaitGroup
}

// New returns a supervisor whose children live at most as long as ctx.
func New(ctx context.Context) *Supervisor {
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &Supervisor{base: base, cancel: cancel, children: map[string]*Child{}, inboxes: map[string][]Message{}, escal: map[string]*Escalation{}}
}

// ErrRefused is the class of a spawn the limits refuse; the message says
// which limit and what to do instead.
var ErrRefused = errors.New("spawn refused")

// NewID is a child's id: agent_<name>_<8 hex digits>.
func NewID(agent string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "agent_" + agent + "_" + hex.EncodeToString(b[:])
}

// Spawn starts a child of parent (at parentDepth; the root agent is 0)
// running run with its own context, and returns its id at once. The
// limits are checked first: the agent must be spawnable, the child no
// deeper than MaxDepth, and fewer than MaxConcurrent children of this
// parent running. run's result is kept for Collect; a panic in it fails
// the child, not the process.
func (s *Supervisor) Spawn(parent string, parentDepth int, lim Limits, agent, task string,
	run func(ctx context.Context, id string) (string, error)) (string, error) {
	if lim.Spawnable != nil && !slices.Contains(lim.Spawnable, agent) {
		if len(lim.Spawnable) == 0 {
			return "", fmt.Errorf("%w: this agent may not spawn any agent (spawnable_agents is empty)", ErrRefused)
		}
		return "", fmt.Errorf("%w: %q is not one of the agents this agent may spawn (%v); use agent__list_available", ErrRefused, agent, lim.Spawnable)
	}
	depth := parentDepth + 1
	if lim.MaxDepth > 0 && depth > lim.MaxDepth {
		return "", fmt.Errorf("%w: a sub-agent here would be %d levels deep and max_agent_depth is %d; do the work yourself", ErrRefused, depth, lim.MaxDepth)
	}
	s.mu.Lock()
	if s.base.Err() != nil {
		s.mu.Unlock()
		return "", fmt.Errorf("%w: the conversation is ending", ErrRefused)
	}
	running := 0
	for _, c := range s.children {
		if c.Parent == parent && c.Status().State == Running {
			running++
		}
	}
	if lim.MaxConcurrent > 0 && running >= lim.MaxConcurrent {
		s.mu.Unlock()
		return "", fmt.Errorf("%w: %d sub-agents are running, as many as max_concurrent_agents allows; collect or cancel one first", ErrRefused, running)
	}
	ctx, cancel := context.WithCancel(s.base)
	c := &Child{ID: NewID(agent), Agent: agent, Parent: parent, Depth: depth, Task: task, Start: time.Now(),
		state: Running, done: make(chan struct{}), cancel: cancel}
	s.children[c.ID] = c
	s.order = append(s.order, c.ID)
	s.wg.Add(1)
	s.mu.Unlock()

	go func() {
		defer s.wg.Done()
		defer cancel()
		var (
			result string
			err    error
		)
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("the sub-agent crashed: %v\n%s", r, debug.Stack())
				}
			}()
			result, err = run(ctx, c.ID)
		}()
		c.mu.Lock()
		switch {
		case c.state == Cancelled:
		case err != nil && ctx.Err() != nil:
			c.state = Cancelled
		case err != nil:
			c.state, c.err = Failed, err
		default:
			c.state = Done
		}
		c.result, c.ended = result, time.Now()
		c.mu.Unlock()
		close(c.done)
	}()
	return c.ID, nil
}

// Get returns a child by id.
func (s *Supervisor) Get(id string) (*Child, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.children[id]
	if !ok {
		return nil, fmt.Errorf("there is no sub-agent %q (agent__list_running lists them)", id)
	}
	return c, nil
}

// Collect waits for a child to end (or ctx to end) and returns its
// status, with its result.
func (s *Supervisor) Collect(ctx context.Context, id string) (Status, error) {
	c, err := s.Get(id)
	if err != nil {
		return Status{}, err
	}
	select {
	case <-c.done:
		return c.Status(), nil
	case <-ctx.Done():
		return c.Status(), ctx.Err()
	}
}

// Cancel stops a child (and what it runs); it reports whether it was
// running.
func (s *Supervisor) Cancel(id string) (bool, error) {
	c, err := s.Get(id)
	if err != nil {
		return false, err
	}
	c.mu.Lock()
	running := c.state == Running
	if running {
		c.state = Cancelled
	}
	c.mu.Unlock()
	c.cancel()
	return running, nil
}

// List returns every child, of every parent, in the order spawned.
func (s *Supervisor) List() []Status {
	s.mu.Lock()
	ids := slices.Clone(s.order)
	s.mu.Unlock()
	out := make([]Status, 0, len(ids))
	for _, id := range ids {
		if c, err := s.Get(id); err == nil {
			out = append(out, c.Status())
		}
	}
	return out
}

// Running lists the running children of parent.
func (s *Supervisor) Running(parent string) []Status {
	var out []Status
	for _, st := range s.List() {
		if st.Parent == parent && st.State == Running {
			out = append(out, st)
		}
	}
	return out
}

// CancelAll cancels every running child (Ctrl-C, leaving the agent).
func (s *Supervisor) CancelAll() {
	for _, st := range s.List() {
		if st.State == Running {
			_, _ = s.Cancel(st.ID)
		}
	}
}

// Close cancels every child and waits for them to end, at most wait.
func (s *Supervisor) Close(wait time.Duration) {
	s.CancelAll()
	s.cancel()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
	}
}
