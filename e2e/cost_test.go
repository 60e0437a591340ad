package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// Each turn's tokens and price land in the session file, --info shows the
// session's running total, an unpriced model's cost is unknown, and
// max_session_cost stops a request before it is sent.
func TestCostIsRecordedShownAndCapped(t *testing.T) {
	fake := &fakellm.OpenAI{Models: []string{"priced", "unpriced"}, Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "Fine.", Usage: &fakellm.Usage{PromptTokens: 10000, CompletionTokens: 2000, CachedTokens: 4000, ReasoningTokens: 500}}
	}}
	url := fakellm.StartOpenAI(t, fake)
	cfg := fmt.Sprintf(`save_session: true
model: fake:priced
clients:
  - type: openai-compatible
    name: fake
    api_base: %s
    models:
      - {name: priced, input_price: 2.5, output_price: 10}
      - {name: unpriced}
`, url)
	e := newEnv(t, cfg)
	e.mustSucceed(e.run("", "-s", "paid", "hello"))
	e.mustSucceed(e.run("", "-s", "paid", "again"))
	b := string(mustRead(t, filepath.Join(e.configDir, "sessions", "paid.yaml")))
	// 10000 × $2.5/M + 2000 × $10/M = $0.045 a turn.
	want := "  usage:\n    model: fake:priced\n    input_tokens: 10000\n    output_tokens: 2000\n    cached_tokens: 4000\n    reasoning_tokens: 500\n    context_tokens: 12000\n    cost: 0.045\n"
	if strings.Count(b, want) != 2 {
		t.Fatalf("session file:\n%s", b)
	}

	r := e.run("", "-s", "paid", "--info")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "$0.0900 (20000 in (8000 cached)") {
		t.Fatalf("--info:\n%s", r.stdout)
	}

	// $0.00003 are left: the next request (about 30 input tokens, $0.00007)
	// would go over.
	before := len(fake.Requests())
	r = e.set("COYOTE_MAX_SESSION_COST=0.09003").run("", "-s", "paid", "one more")
	if r.code == 0 || len(fake.Requests()) != before {
		t.Fatalf("over the limit: exit %d, %d requests sent", r.code, len(fake.Requests())-before)
	}
	msg := oneLineError(t, r)
	if !strings.Contains(msg, "stopped before asking fake:priced") || !strings.Contains(msg, "max_session_cost $0.0900") {
		t.Fatalf("error %q", msg)
	}
	if b2 := string(mustRead(t, filepath.Join(e.configDir, "sessions", "paid.yaml"))); b2 != b {
		t.Fatalf("a request that was not sent changed the session:\n%s", b2)
	}

	// A model without prices: its cost is unknown, never $0.
	e2 := newEnv(t, cfg)
	e2.mustSucceed(e2.run("", "-m", "fake:unpriced", "-s", "free", "hello"))
	b = string(mustRead(t, filepath.Join(e2.configDir, "sessions", "free.yaml")))
	if !strings.Contains(b, "    context_tokens: 12000\n") || strings.Contains(b, "cost:") {
		t.Fatalf("session file of an unpriced model:\n%s", b)
	}
	r = e2.run("", "-s", "free", "--info")
	e2.mustSucceed(r)
	if !strings.Contains(r.stdout, "unknown (10000 in") {
		t.Fatalf("--info of an unpriced session:\n%s", r.stdout)
	}
}

// A headless run stops before a request that would take it past
// max_cost_per_run, with one line, and sends nothing.
func TestHeadlessStopsAtMaxCostPerRun(t *testing.T) {
	fake := &fakellm.OpenAI{Models: []string{"priced"}}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fmt.Sprintf("model: fake:priced\nmax_cost_per_run: 0.00001\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: %s\n    models: [{name: priced, input_price: 2.5, output_price: 10}]\n", url))
	r := e.run("", "--headless", strings.Repeat("a long question ", 100))
	// stderr: headless's note on auto-confirmed tools, then the error.
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	msg := lines[len(lines)-1]
	if r.code != 1 || len(lines) != 2 || !strings.Contains(msg, "stopped before asking fake:priced") ||
		!strings.Contains(msg, "this run has spent $0.00 of max_cost_per_run $0.0000100") || len(fake.Requests()) != 0 {
		t.Fatalf("exit %d, stderr %q, %d requests sent", r.code, r.stderr, len(fake.Requests()))
	}
}

// --output-format json reports what the run cost: a number when every
// call was priced, null (and "unknown") when one was not.
func TestHeadlessJSONReportsTheRunsCost(t *testing.T) {
	fake := &fakellm.OpenAI{Models: []string{"priced", "unpriced"}, Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "Fine.", Usage: &fakellm.Usage{PromptTokens: 10000, CompletionTokens: 2000, CachedTokens: 4000, ReasoningTokens: 500}}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fmt.Sprintf("model: fake:priced\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: %s\n    models: [{name: priced, input_price: 2.5, output_price: 10}, {name: unpriced}]\n", url))
	for _, tc := range []struct {
		model string
		cost  *float64
		text  string
	}{
		{"fake:priced", ptr(0.045), "$0.045"},
		{"fake:unpriced", nil, "unknown"},
	} {
		r := e.run("", "--headless", "--output-format", "json", "-m", tc.model, "hello")
		e.mustSucceed(r)
		var out struct {
			Usage struct {
				Cached    int64    `json:"cached_tokens"`
				Reasoning int64    `json:"reasoning_tokens"`
				CostUSD   *float64 `json:"cost_usd"`
				Cost      string
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("stdout %q: %v", r.stdout, err)
		}
		u := out.Usage
		priceOK := (u.CostUSD == nil) == (tc.cost == nil) && (tc.cost == nil || math.Abs(*u.CostUSD-*tc.cost) < 1e-9)
		if !priceOK || !strings.HasPrefix(u.Cost, tc.text) || u.Cached != 4000 || u.Reasoning != 500 {
			t.Fatalf("%s: usage %+v (cost_usd %v), want %v %q", tc.model, u, u.CostUSD, tc.cost, tc.text)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// The summary a compression asks for is part of what the turn that
// triggered it cost: the session file records both calls' tokens and
// price on that turn, and --info counts them.
func TestCompressionCountsInTheTurnsCost(t *testing.T) {
	fake := &fakellm.OpenAI{Models: []string{"priced"}, Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "Fine.", Usage: &fakellm.Usage{PromptTokens: 10000, CompletionTokens: 2000}}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fmt.Sprintf(`save_session: true
compression_threshold: 100
model: fake:priced
clients:
  - type: openai-compatible
    name: fake
    api_base: %s
    models:
      - {name: priced, input_price: 2.5, output_price: 10}
`, url))
	e.mustSucceed(e.run("", "-s", "long", strings.Repeat("a long question ", 100)))
	if n := len(fake.Requests()); n != 2 {
		t.Fatalf("%d requests, want the turn and its compression", n)
	}
	b := string(mustRead(t, filepath.Join(e.configDir, "sessions", "long.yaml")))
	// Two calls of 10000 × $2.5/M + 2000 × $10/M; the context is the turn's.
	want := "    input_tokens: 20000\n    output_tokens: 4000\n    cached_tokens: 0\n    reasoning_tokens: 0\n    context_tokens: 12000\n    cost: 0.09\n"
	if !strings.Contains(b, want) {
		t.Fatalf("session file:\n%s", b)
	}
	r := e.run("", "-s", "long", "--info")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "$0.0900 (20000 in") {
		t.Fatalf("--info:\n%s", r.stdout)
	}
}
