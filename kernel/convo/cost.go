package convo

import (
	"fmt"
	"math"
	"strconv"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/session"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Spend adds up what model calls used: their tokens, and their price
// from the catalog. A call whose model has no known price, or whose
// provider reported no usage, makes the total cost partly unknown
// (Unpriced), never smaller.
type Spend struct {
	Calls                                                    int
	InputTokens, OutputTokens, CachedTokens, ReasoningTokens int64
	// ContextTokens is the last call's input and output.
	ContextTokens int64
	// Cost is the price of the priced calls, in USD.
	Cost float64
	// Unpriced counts the calls whose price is unknown.
	Unpriced int
}

// add counts one call of model m that reported u (nil: no usage).
func (sp *Spend) add(m *models.Model, u *provider.Usage) {
	sp.Calls++
	if u == nil {
		sp.Unpriced++
		return
	}
	if m == nil { // not a catalog model: no price
		m = &models.Model{}
	}
	sp.InputTokens += u.InputTokens
	sp.OutputTokens += u.OutputTokens
	sp.CachedTokens += u.CachedTokens
	sp.ReasoningTokens += u.ReasoningTokens
	sp.ContextTokens = u.InputTokens + u.OutputTokens
	if c, ok := m.Cost(u.InputTokens, u.OutputTokens); ok {
		sp.Cost += c
	} else {
		sp.Unpriced++
	}
}

// addTurn counts a turn a session recorded.
func (sp *Spend) addTurn(u session.Usage) {
	sp.Calls++
	sp.InputTokens += u.InputTokens
	sp.OutputTokens += u.OutputTokens
	sp.CachedTokens += u.CachedTokens
	sp.ReasoningTokens += u.ReasoningTokens
	sp.ContextTokens = u.ContextTokens
	if u.Cost != nil {
		sp.Cost += *u.Cost
	} else {
		sp.Unpriced++
	}
}

// CostText is the cost as the user reads it: "$0.0123"; "unknown" when
// no call had a price; "$0.0123 + unknown" when some had none; "" when
// nothing was spent.
func (sp Spend) CostText() string {
	switch {
	case sp.Calls == 0:
		return ""
	case sp.Unpriced == 0:
		return USD(sp.Cost)
	case sp.Unpriced == sp.Calls || sp.Cost == 0:
		return "unknown"
	}
	return USD(sp.Cost) + " + unknown"
}

// TokensText describes the tokens: "1200 in (1000 cached), 300 out (120
// reasoning)".
func (sp Spend) TokensText() string {
	s := strconv.FormatInt(sp.InputTokens, 10) + " in"
	if sp.CachedTokens > 0 {
		s += " (" + strconv.FormatInt(sp.CachedTokens, 10) + " cached)"
	}
	s += ", " + strconv.FormatInt(sp.OutputTokens, 10) + " out"
	if sp.ReasoningTokens > 0 {
		s += " (" + strconv.FormatInt(sp.ReasoningTokens, 10) + " reasoning)"
	}
	return s
}

// USD formats an amount of dollars with three significant digits below
// a dollar (so that a tiny cost never reads as $0.00) and cents above.
func USD(c float64) string {
	if c >= 1 || c <= 0 {
		return fmt.Sprintf("$%.2f", c)
	}
	d := min(2-int(math.Floor(math.Log10(c))), 10)
	return "$" + strconv.FormatFloat(c, 'f', d, 64)
}

// SessionSpend is what the active session's turns have used, as they
// recorded it, with the turn in progress; ok is false without a session.
func (s *State) SessionSpend() (sp Spend, ok bool) {
	if s.Session == nil {
		return Spend{}, false
	}
	for _, u := range s.Session.Usage() {
		sp.addTurn(u)
	}
	sp.merge(s.turn)
	return sp, true
}

// RunSpend is what this run has used: every model call of this
// conversation and its forks since the program started.
func (s *State) RunSpend() Spend {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	return s.pool.spent
}

func (sp *Spend) merge(o Spend) {
	if o.Calls == 0 {
		return
	}
	sp.Calls += o.Calls
	sp.InputTokens += o.InputTokens
	sp.OutputTokens += o.OutputTokens
	sp.CachedTokens += o.CachedTokens
	sp.ReasoningTokens += o.ReasoningTokens
	if o.ContextTokens > 0 {
		sp.ContextTokens = o.ContextTokens
	}
	sp.Cost += o.Cost
	sp.Unpriced += o.Unpriced
}

// counted records one model call of a turn: in the turn's spend (which
// Finish records in the session) and in the run's.
func (s *State) counted(p chat.Chatter, m *models.Model, reply *chat.Reply) {
	if reply == nil {
		return
	}
	if s.turnModel == "" {
		if id := callID(p, m); id != m.Name {
			s.turnModel = id
		}
	}
	s.turn.add(m, reply.Usage)
	s.asideModel = m
	s.pool.mu.Lock()
	s.pool.spent.add(m, reply.Usage)
	s.pool.mu.Unlock()
}

// countedAside records a call the conversation made for itself (a
// session's title, a compression summary, a sub-agent's summary): in the
// run's spend and in s.aside, which Finish adds to the turn it follows.
// Such a call never changes how full the context is.
func (s *State) countedAside(p chat.Chatter, reply *chat.Reply) {
	if reply == nil {
		return
	}
	m := s.asideModel
	if b, ok := p.(llm.Bound); ok {
		m = &b.Model
	}
	var one Spend
	one.add(m, reply.Usage)
	one.ContextTokens = 0
	s.aside.merge(one)
	s.pool.mu.Lock()
	s.pool.spent.merge(one)
	s.pool.mu.Unlock()
}

// withAside adds what s.aside counted to u (a turn's usage as recorded),
// and starts counting afresh.
func (s *State) withAside(u session.Usage) session.Usage {
	a := s.aside
	s.aside = Spend{}
	u.InputTokens += a.InputTokens
	u.OutputTokens += a.OutputTokens
	u.CachedTokens += a.CachedTokens
	u.ReasoningTokens += a.ReasoningTokens
	if a.Unpriced > 0 {
		u.Cost = nil
	} else if u.Cost != nil {
		c := *u.Cost + a.Cost
		u.Cost = &c
	}
	return u
}

// takeTurnUsage returns the turn's spend as a session records it, and
// starts the next turn's.
func (s *State) takeTurnUsage() (session.Usage, bool) {
	sp, model := s.turn, s.turnModel
	s.turn, s.turnModel = Spend{}, ""
	if sp.Calls == 0 {
		return session.Usage{}, false
	}
	u := session.Usage{Model: model, InputTokens: sp.InputTokens, OutputTokens: sp.OutputTokens, CachedTokens: sp.CachedTokens,
		ReasoningTokens: sp.ReasoningTokens, ContextTokens: sp.ContextTokens}
	if sp.Unpriced == 0 {
		c := sp.Cost
		u.Cost = &c
	}
	return u, true
}

// BudgetError is a request that was not sent because it would have
// spent more than max_session_cost or max_cost_per_run allows.
type BudgetError struct {
	Setting  string  // max_session_cost or max_cost_per_run
	Limit    float64 // its value
	Spent    Spend   // what the session or the run has spent
	Estimate float64 // the request's estimated cost
	Tokens   int64   // its estimated input tokens
	Model    string
}

func (e *BudgetError) Error() string {
	scope := "the session has"
	if e.Setting == "max_cost_per_run" {
		scope = "this run has"
	}
	return fmt.Sprintf("stopped before asking %s: the request (about %d input tokens) would cost about %s, and %s spent %s of %s %s (raise %s or start afresh)",
		e.Model, e.Tokens, USD(e.Estimate), scope, USD(e.Spent.Cost), e.Setting, USD(e.Limit), e.Setting)
}

// checkBudget stops a request that would take the session past
// max_session_cost, or the run past max_cost_per_run: what was spent so
// far plus the request's input tokens (estimated) at the model's input
// price. A model without a known price cannot be checked: the user is
// told once, and the request goes.
func (s *State) checkBudget(p chat.Chatter, m *models.Model, req *provider.ChatRequest) error {
	cfg := s.d.Config
	if cfg == nil {
		return nil
	}
	limit := func(key string) (float64, bool) {
		v, ok := cfg.Resolve(key, s.Layers()).V.(float64)
		return v, ok && v > 0
	}
	sessLimit, hasSess := limit("max_session_cost")
	runLimit, hasRun := limit("max_cost_per_run")
	hasSess = hasSess && s.Session != nil
	if !hasSess && !hasRun {
		return nil
	}
	id := callID(p, m)
	if !m.HasPrice() {
		s.warnOnce(fmt.Sprintf("the price of %s is unknown, so spending limits cannot be checked for it (add input_price and output_price to its entry under models:)", id))
		return nil
	}
	tokens := estimateInputTokens(req)
	estimate, _ := m.Cost(tokens, 0)
	if hasSess {
		spent, _ := s.SessionSpend()
		if spent.Cost+estimate > sessLimit {
			return &BudgetError{Setting: "max_session_cost", Limit: sessLimit, Spent: spent, Estimate: estimate, Tokens: tokens, Model: id}
		}
	}
	if hasRun {
		if spent := s.RunSpend(); spent.Cost+estimate > runLimit {
			return &BudgetError{Setting: "max_cost_per_run", Limit: runLimit, Spent: spent, Estimate: estimate, Tokens: tokens, Model: id}
		}
	}
	return nil
}

// callID is the client:model id of a call through p, or the model's name
// when p is not a client's connection (a test's chatter).
func callID(p chat.Chatter, m *models.Model) string {
	if b, ok := p.(llm.Bound); ok {
		return b.Conn.Client.Name + ":" + m.Name
	}
	return m.Name
}

// estimateInputTokens guesses a request's input tokens at four bytes a
// token, as the session's own estimate does.
func estimateInputTokens(req *provider.ChatRequest) int64 {
	n := 0
	for _, m := range req.Messages {
		n += 16
		for _, p := range m.Parts {
			n += len(p.Text)
			if p.ToolCall != nil {
				n += len(p.ToolCall.Name) + len(p.ToolCall.Arguments)
			}
			if p.ToolResult != nil {
				n += len(p.ToolResult.Content)
			}
			if p.Reasoning != nil {
				n += len(p.Reasoning.Text)
			}
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return int64((n + 3) / 4)
}
