package e2e

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// providerCase runs one prompt through one provider plugin binary against
// that provider's fake server.
type providerCase struct {
	name  string // client type and name
	model string
	start func(t *testing.T, respond func(*fakellm.ChatRequest) fakellm.Reply, key string) (url string, requests func() []fakellm.ChatRequest)
}

var providerCases = []providerCase{
	{"openai", "gpt-4o-mini", func(t *testing.T, r func(*fakellm.ChatRequest) fakellm.Reply, key string) (string, func() []fakellm.ChatRequest) {
		f := &fakellm.OpenAI{APIKey: key, Respond: r}
		return fakellm.StartOpenAI(t, f), f.Requests
	}},
	{"claude", "claude-sonnet-4-5", func(t *testing.T, r func(*fakellm.ChatRequest) fakellm.Reply, key string) (string, func() []fakellm.ChatRequest) {
		f := &fakellm.Anthropic{APIKey: key, Respond: r}
		return fakellm.StartAnthropic(t, f), f.Requests
	}},
	{"gemini", "gemini-2.5-flash", func(t *testing.T, r func(*fakellm.ChatRequest) fakellm.Reply, key string) (string, func() []fakellm.ChatRequest) {
		f := &fakellm.Gemini{APIKey: key, Respond: r}
		return fakellm.StartGemini(t, f), f.Requests
	}},
	{"cohere", "command-a-03-2025", func(t *testing.T, r func(*fakellm.ChatRequest) fakellm.Reply, key string) (string, func() []fakellm.ChatRequest) {
		f := &fakellm.Cohere{APIKey: key, Respond: r}
		return fakellm.StartCohere(t, f), f.Requests
	}},
	{"azure-openai", "my-gpt-4o", func(t *testing.T, r func(*fakellm.ChatRequest) fakellm.Reply, key string) (string, func() []fakellm.ChatRequest) {
		inner := &fakellm.OpenAI{Respond: r}
		if r == nil {
			inner = nil
		}
		f := &fakellm.Azure{APIKey: key, OpenAI: inner}
		url := fakellm.StartAzure(t, f)
		return url, f.OpenAI.Requests
	}},
}

func providerConfig(p providerCase, url, key string) string {
	return fmt.Sprintf("model: %s:%s\nclients:\n  - type: %s\n    api_base: %s\n    api_key: %s\n    models: [{name: %s}]\n",
		p.name, p.model, p.name, url, key, p.model)
}

func TestOneShotThroughEachProviderPlugin(t *testing.T) {
	for _, p := range providerCases {
		t.Run(p.name, func(t *testing.T) {
			url, requests := p.start(t, func(*fakellm.ChatRequest) fakellm.Reply {
				return fakellm.Reply{Reasoning: "Let me think.", Text: "Coyotes howl at dusk.", Chunks: 4}
			}, "k-"+p.name)
			e := newEnv(t, providerConfig(p, url, "k-"+p.name))
			r := e.run("", "why", "do", "coyotes", "howl?")
			e.mustSucceed(r)
			want := "<think>\nLet me think.\n</think>\n\nCoyotes howl at dusk.\n"
			if r.stdout != want {
				t.Fatalf("stdout %q, want %q", r.stdout, want)
			}
			reqs := requests()
			if len(reqs) != 1 || reqs[0].Model != p.model || !reqs[0].Stream {
				t.Fatalf("requests = %+v", reqs)
			}
		})
	}
}

func TestProviderErrorsNameTheKeySource(t *testing.T) {
	for _, p := range providerCases {
		t.Run(p.name, func(t *testing.T) {
			url, _ := p.start(t, nil, "right-key")
			e := newEnv(t, providerConfig(p, url, "wrong-key"))
			line := oneLineError(t, e.run("", "hi"))
			if !strings.Contains(line, "comes from") || !strings.Contains(line, "config.yaml line") || strings.Contains(line, "wrong-key") {
				t.Fatalf("stderr %q", line)
			}
		})
	}
}

// A 429 with Retry-After is retried by the kernel, waiting what the server
// asked; the second answer succeeds.
func TestRateLimitIsRetriedHonouringRetryAfter(t *testing.T) {
	for _, p := range providerCases {
		t.Run(p.name, func(t *testing.T) {
			var calls atomic.Int32
			url, requests := p.start(t, func(*fakellm.ChatRequest) fakellm.Reply {
				if calls.Add(1) == 1 {
					return fakellm.Reply{Status: 429, RetryAfter: "0.1"}
				}
				return fakellm.Reply{Text: "ok now"}
			}, "k")
			e := newEnv(t, providerConfig(p, url, "k"))
			r := e.run("", "hi")
			e.mustSucceed(r)
			if r.stdout != "ok now\n" || len(requests()) != 2 {
				t.Fatalf("stdout %q after %d requests", r.stdout, len(requests()))
			}
		})
	}
}

// The key never reaches the log, even at trace level, nor an error, nor a
// plugin's command line.
func TestAPIKeyNeverInLogsOrErrors(t *testing.T) {
	const key = "sk-secret-4f9a2c"
	for _, p := range providerCases {
		t.Run(p.name, func(t *testing.T) {
			url, _ := p.start(t, nil, "another-key")
			e := newEnv(t, providerConfig(p, url, key)).set("COYOTE_LOG_LEVEL=trace")
			r := e.run("", "hi")
			if r.code != 1 {
				t.Fatalf("exit %d", r.code)
			}
			log := e.log()
			if !strings.Contains(log, "coyote-provider-"+p.name) {
				t.Fatalf("the trace log has no plugin lines; the test would prove nothing:\n%s", log)
			}
			for where, text := range map[string]string{"log": log, "stderr": r.stderr, "stdout": r.stdout} {
				if strings.Contains(text, key) {
					t.Fatalf("the key appears in the %s", where)
				}
			}
		})
	}
}
