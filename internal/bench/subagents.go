package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// subagentBench measures sub-agents against a fake server of their own:
// how long after the parent's spawn call a child's first request arrives,
// against the same gap for a plain built-in call (the time of the request
// itself), and the wall time of 4 children in parallel, each reply taking
// 200 ms, against 1.
func subagentBench(coyote, work string, runs int) ([]row, error) {
	var (
		mu       sync.Mutex
		children = 0
		firstAt  time.Time // the parent's first request
		nextAt   time.Time // the parent's second request, or a child's first
		plain    bool      // the parent calls agent__list_running instead of spawning
	)
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		sys := ""
		for _, m := range req.Messages {
			if m["role"] == "system" {
				sys, _ = m["content"].(string)
			}
		}
		var results []string
		for _, m := range req.Messages {
			if m["role"] == "tool" {
				s, _ := m["content"].(string)
				results = append(results, s)
			}
		}
		if strings.Contains(sys, "You help") {
			if nextAt.IsZero() {
				nextAt = now
			}
			return fakellm.Reply{Text: "helped done", Chunks: 2, Delay: 200 * time.Millisecond}
		}
		switch {
		case len(results) == 0:
			firstAt = now
			if plain {
				return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "l", Name: "agent__list_running", Arguments: `{}`}}}
			}
			var calls []fakellm.ToolCall
			for i := range children {
				calls = append(calls, fakellm.ToolCall{ID: fmt.Sprint("s", i), Name: "agent__spawn", Arguments: `{"agent":"helper","prompt":"help"}`})
			}
			return fakellm.Reply{ToolCalls: calls}
		case plain:
			if nextAt.IsZero() {
				nextAt = now
			}
			return fakellm.Reply{Text: "ok"}
		case len(results) == children:
			var calls []fakellm.ToolCall
			for i, r := range results {
				if j := strings.Index(r, "agent_helper_"); j >= 0 {
					calls = append(calls, fakellm.ToolCall{ID: fmt.Sprint("c", i), Name: "agent__collect", Arguments: `{"id":"` + r[j:j+21] + `"}`})
				}
			}
			return fakellm.Reply{ToolCalls: calls}
		}
		return fakellm.Reply{Text: "all collected"}
	}}
	srv := httptest.NewServer(fake.Handler())
	defer srv.Close()
	dir := filepath.Join(work, "subagents")
	files := map[string]string{
		"config.yaml":               "model: fake:m\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: " + srv.URL + "/v1\n    api_key: k\n    models: [{name: m, supports_function_calling: true}]\n",
		"agents/boss/config.yaml":   "can_spawn_agents: true\nmax_concurrent_agents: 8\ninstructions: You lead.\n",
		"agents/helper/config.yaml": "instructions: You help.\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			return nil, err
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "COYOTE_CONFIG_DIR=" + dir, "COYOTE_CACHE_DIR=" + filepath.Join(dir, "cache")}
	run := func(n int, asPlain bool) (gap, wall time.Duration, err error) {
		mu.Lock()
		children, plain, firstAt, nextAt = n, asPlain, time.Time{}, time.Time{}
		mu.Unlock()
		c := exec.Command(coyote, "-a", "boss", "go")
		c.Env = env
		start := time.Now()
		out, err := c.CombinedOutput()
		wall = time.Since(start)
		if err != nil {
			return 0, 0, fmt.Errorf("sub-agent bench: %v: %s", err, out)
		}
		mu.Lock()
		defer mu.Unlock()
		return nextAt.Sub(firstAt), wall, nil
	}
	var spawnGaps, plainGaps, one, four []time.Duration
	for range max(runs/3, 5) {
		g, w1, err := run(1, false)
		if err != nil {
			return nil, err
		}
		spawnGaps, one = append(spawnGaps, g), append(one, w1)
		pg, _, err := run(0, true)
		if err != nil {
			return nil, err
		}
		plainGaps = append(plainGaps, pg)
		_, w4, err := run(4, false)
		if err != nil {
			return nil, err
		}
		four = append(four, w4)
	}
	sg, pg := middle(spawnGaps), middle(plainGaps)
	w1, w4 := middle(one), middle(four)
	return []row{
		{"sub-agent: spawn to its first request", ms(sg), "≤ 5 ms over the request itself",
			"a built-in call to the next request " + ms(pg), verdict(sg-pg <= 5*time.Millisecond, "+%s", ms(sg-pg))},
		{"sub-agents: 4 in parallel, 200 ms replies, whole run", ms(w4), "≤ 1.2× one",
			"one sub-agent " + ms(w1), verdict(float64(w4) <= 1.2*float64(w1), "x%.2f one", ratio(w4, w1))},
	}, nil
}
