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
// (GODEBUG=inittrace=1, the sum of its packages' init clocks), a
// one-shot prompt's first byte through coyote, and the cost of one more
// chunk of a streamed reply, each against its fake server (the Bedrock
// one signs nothing but checks SigV4 and writes event-stream frames).
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

	type measured struct{ init, launch, ttfb, perChunk time.Duration }
	measure := func(plugin, modelArg string) (measured, error) {
		var m measured
		var err error
		if m.init, err = pluginInit(filepath.Join(bin, "plugins", plugin), runs); err != nil {
			return m, err
		}
		m.launch = median(runs, func() time.Duration {
			d, lerr := launchProvider(filepath.Join(bin, "plugins"), strings.TrimPrefix(plugin, "coyote-provider-"))
			if lerr != nil && err == nil {
				err = lerr
			}
			return d
		})
		if err != nil {
			return m, err
		}
		cmd := func() *exec.Cmd {
			c := exec.Command(coyote, "-m", modelArg, "hi")
			c.Env = env
			return c
		}
		var failed error
		timed := func(n int, which func(first, all time.Duration) time.Duration) time.Duration {
			chunks.Store(int64(n))
			return median(runs, func() time.Duration {
				first, all, err := firstByte(cmd())
				if err != nil && failed == nil {
					failed = err
				}
				return which(first, all)
			})
		}
		m.ttfb = timed(20, func(first, _ time.Duration) time.Duration { return first })
		one := timed(1, func(_, all time.Duration) time.Duration { return all })
		many := timed(2000, func(_, all time.Duration) time.Duration { return all })
		m.perChunk = (many - one) / 1999
		return m, failed
	}
	o, err := measure("coyote-provider-openai", "openai:gpt-4o-mini")
	if err != nil {
		return nil, fmt.Errorf("bedrock bench, openai: %w", err)
	}
	b, err := measure("coyote-provider-bedrock", "bedrock:"+model)
	if err != nil {
		return nil, fmt.Errorf("bedrock bench: %w", err)
	}
	us := func(d time.Duration) string { return fmt.Sprintf("%.4f ms", float64(d)/float64(time.Millisecond)) }
	return []row{
		{"bedrock plugin: package init (inittrace)", ms(b.init), "report", "openai plugin " + ms(o.init) + " in the same run", fmt.Sprintf("+%s", ms(b.init-o.init))},
		{"bedrock plugin: launch + handshake + first call", ms(b.launch), "report", "openai plugin " + ms(o.launch) + " in the same run", fmt.Sprintf("+%s", ms(b.launch-o.launch))},
		{"bedrock: one-shot time to first byte", ms(b.ttfb), "≤ openai + 5 ms", "openai " + ms(o.ttfb) + " in the same run",
			verdict(b.ttfb-o.ttfb <= 5*time.Millisecond, "%+.2f ms", float64(b.ttfb-o.ttfb)/float64(time.Millisecond))},
		{"bedrock: per-chunk cost (event-stream frames)", us(b.perChunk), "report", "openai " + us(o.perChunk) + " in the same run", fmt.Sprintf("x%.2f openai", ratio(b.perChunk, o.perChunk))},
	}, nil
}

// pluginInit is the median, over runs, of the sum of a binary's package
// init clocks as GODEBUG=inittrace=1 prints them. The binary runs without
// the plugin handshake, so it exits after its inits with a message.
func pluginInit(path string, runs int) (time.Duration, error) {
	var failed error
	d := median(runs, func() time.Duration {
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
		if n == 0 && failed == nil {
			failed = fmt.Errorf("%s printed no inittrace lines", path)
		}
		return time.Duration(sum * float64(time.Millisecond))
	})
	return d, failed
}
