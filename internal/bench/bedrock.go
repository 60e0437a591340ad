package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// bedrockBench measures the Bedrock plugin next to the OpenAI plugin in
// one run (issue 23): each plugin binary's package initialisation
// (GODEBUG=inittrace=1, the sum of its packages' init clocks), its start
// to exit outside a host (loading the binary as well as its inits), a
// one-shot prompt's first byte through coyote, and the cost of one more
// chunk of a streamed reply, each against its fake server (the Bedrock
// one signs nothing but checks SigV4 and writes event-stream frames). The
// runs of the two plugins are interleaved.
func bedrockBench(bin string, runs int) ([]row, error) {
	coyote := filepath.Join(bin, "coyote")
	for _, p := range []string{"coyote-provider-bedrock", "coyote-provider-openai"} {
		if _, err := os.Stat(filepath.Join(bin, "plugins", p)); err != nil {
			return nil, fmt.Errorf("bedrock: %w (run make build)", err)
		}
	}
	work, err := os.MkdirTemp("", "coyote-bench-bedrock-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	var chunks atomic.Int64
	respond := func(*fakellm.ChatRequest) fakellm.Reply {
		n := int(chunks.Load())
		return fakellm.Reply{Text: strings.Repeat("word ", n), Chunks: n}
	}
	oa := httptest.NewServer((&fakellm.OpenAI{Respond: respond}).Handler())
	defer oa.Close()
	const key, secret = "AKIABENCHBEDROCK0001", "bench-secret-key-0123456789abcdefghijklm"
	br := httptest.NewServer((&fakellm.Bedrock{AccessKeyID: key, SecretAccessKey: secret, Region: "us-east-1", Respond: respond}).Handler())
	defer br.Close()
	const model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	cfg := "model: openai:gpt-4o-mini\nclients:\n" +
		"  - type: openai\n    name: openai\n    api_base: " + oa.URL + "/v1\n    api_key: sk-bench\n    models: [{name: gpt-4o-mini}]\n" +
		"  - type: bedrock\n    api_base: " + br.URL + "\n    access_key_id: " + key + "\n    secret_access_key: " + secret +
		"\n    region: us-east-1\n    models: [{name: " + model + "}]\n"
	configDir := filepath.Join(work, "config")
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(configDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work,
		"COYOTE_CONFIG_DIR=" + configDir, "COYOTE_CACHE_DIR=" + filepath.Join(work, "cache")}

	plugin := func(name string) string { return filepath.Join(bin, "plugins", name) }
	const oaPlugin, brPlugin = "coyote-provider-openai", "coyote-provider-bedrock"
	// Every measure takes the two plugins in turn, run after run, so that
	// a change of the machine's load (other builds, other benches) falls
	// on both alike; each is the median of its runs.
	var failed error
	check := func(err error) {
		if err != nil && failed == nil {
			failed = err
		}
	}
	initOf := func(name string) func() time.Duration {
		return func() time.Duration {
			d, err := initClock(plugin(name))
			check(err)
			return d
		}
	}
	startOf := func(name string) func() time.Duration {
		return func() time.Duration { return runAlone(plugin(name)) }
	}
	launchOf := func(clientType string) func() time.Duration {
		return func() time.Duration {
			d, err := launchProvider(filepath.Join(bin, "plugins"), clientType)
			check(err)
			return d
		}
	}
	inits := interleaved(runs, initOf(oaPlugin), initOf(brPlugin))
	starts := interleaved(runs, startOf(oaPlugin), startOf(brPlugin))
	launches := interleaved(runs, launchOf("openai"), launchOf("bedrock"))
	if failed != nil {
		return nil, fmt.Errorf("bedrock bench: %w", failed)
	}
	oneShot := func(modelArg string, which func(first, all time.Duration) time.Duration) func() time.Duration {
		return func() time.Duration {
			c := exec.Command(coyote, "-m", modelArg, "hi")
			c.Env = env
			first, all, err := firstByte(c)
			check(err)
			return which(first, all)
		}
	}
	timed := func(n int, which func(first, all time.Duration) time.Duration) []time.Duration {
		chunks.Store(int64(n))
		return interleaved(runs, oneShot("openai:gpt-4o-mini", which), oneShot("bedrock:"+model, which))
	}
	ttfb := timed(20, func(first, _ time.Duration) time.Duration { return first })
	one := timed(1, func(_, all time.Duration) time.Duration { return all })
	many := timed(2000, func(_, all time.Duration) time.Duration { return all })
	if failed != nil {
		return nil, fmt.Errorf("bedrock bench: %w", failed)
	}
	type measured struct{ init, start, launch, ttfb, perChunk time.Duration }
	var o, b measured
	for i, m := range []*measured{&o, &b} {
		*m = measured{init: inits[i], start: starts[i], launch: launches[i], ttfb: ttfb[i], perChunk: (many[i] - one[i]) / 1999}
	}
	us := func(d time.Duration) string { return fmt.Sprintf("%.4f ms", float64(d)/float64(time.Millisecond)) }
	return []row{
		{"bedrock plugin: package init (inittrace)", ms(b.init), "report", "openai plugin " + ms(o.init) + " in the same run", fmt.Sprintf("+%s", ms(b.init-o.init))},
		{"bedrock plugin: process start to exit, outside a host", ms(b.start), "report", "openai plugin " + ms(o.start) + " in the same run", fmt.Sprintf("+%s", ms(b.start-o.start))},
		{"bedrock plugin: launch + handshake + first call", ms(b.launch), "report", "openai plugin " + ms(o.launch) + " in the same run", fmt.Sprintf("+%s", ms(b.launch-o.launch))},
		{"bedrock: one-shot time to first byte", ms(b.ttfb), "≤ openai + 5 ms", "openai " + ms(o.ttfb) + " in the same run",
			verdict(b.ttfb-o.ttfb <= 5*time.Millisecond, "%+.2f ms", float64(b.ttfb-o.ttfb)/float64(time.Millisecond))},
		{"bedrock: per-chunk cost (event-stream frames)", us(b.perChunk), "report", "openai " + us(o.perChunk) + " in the same run", fmt.Sprintf("x%.2f openai", ratio(b.perChunk, o.perChunk))},
	}, nil
}

// interleaved runs each of fs once to warm the page cache, then runs
// times in turn, and returns the median of each one's runs.
func interleaved(runs int, fs ...func() time.Duration) []time.Duration {
	got := make([][]time.Duration, len(fs))
	for i := 0; i <= runs; i++ {
		for j, f := range fs {
			d := f()
			if i > 0 {
				got[j] = append(got[j], d)
			}
		}
	}
	out := make([]time.Duration, len(fs))
	for j := range got {
		out[j] = medianOf(got[j])
	}
	return out
}

// runAlone is how long a plugin binary takes from its start to its exit
// when no host started it (it prints a note and exits after its package
// initialisation): the cost of loading a bigger binary as well as of its
// inits.
func runAlone(path string) time.Duration {
	start := time.Now()
	_ = exec.Command(path).Run() // it exits 1: not started by a host
	return time.Since(start)
}

// initClock is the sum of a binary's package init clocks as
// GODEBUG=inittrace=1 prints them, in one run. The binary runs without
// the plugin handshake, so it exits after its inits with a message.
func initClock(path string) (time.Duration, error) {
	c := exec.Command(path)
	c.Env = []string{"GODEBUG=inittrace=1"}
	out, _ := c.CombinedOutput()
	var sum float64
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		if m := initLine.FindStringSubmatch(l); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("%s printed no inittrace lines", path)
	}
	return time.Duration(sum * float64(time.Millisecond)), nil
}
