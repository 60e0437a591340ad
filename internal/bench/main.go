// Command bench measures what the issues set targets for, on this machine,
// in one run: start-up, plugin launch, time to first byte of a streamed
// reply, per-chunk cost, the REPL's start, turn overhead and Ctrl+C, and
// peak memory. It runs the real binaries from -bin against the in-repo
// fake server, runs curl and a Go hello-world in the same setting as
// references, and prints each median with its target and ratios. `make
// bench` runs it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	bin := flag.String("bin", "bin", "directory holding coyote and plugins/")
	runs := flag.Int("runs", 30, "runs per measurement (the median is reported)")
	only := flag.String("only", "", "measure only one part: startup, node, lock, files, chat, acp, agents, context, macros, bundled, models, graph, rag, graphrag, tools, sandbox, mcp, vault, bedrock, vertexcohere, codex, logins, repl, embeddings, tls or rss (default: all)")
	results := flag.String("results", filepath.Join(".bench", "results.json"), "file of the previous run's results: each line shows its change against them, and this run's are saved there (\"\" for neither)")
	probe := flag.Bool("rss-probe", false, "run the command in the arguments and print its peak RSS in KiB (used by the bench itself)")
	flag.Parse()
	if *probe {
		os.Exit(rssProbe(flag.Args()))
	}
	if err := run(*bin, *runs, *only, *results); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// row is one line of the report.
type row struct {
	name, value, target, reference, verdict string
}

// rssProbe runs args with stdout discarded and prints the peak RSS (KiB)
// of that process alone, then name=KiB for each plugin process it started.
// wait4's rusage cannot tell them apart (Linux folds the peaks of the
// children a process reaped into its own), so each process's VmHWM is
// sampled from /proc while it runs; VmHWM only grows, so the last sample
// misses at most what grew in the final interval.
func rssProbe(args []string) int {
	c := exec.Command(args[0], args[1:]...)
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "rss probe:", err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	kernel := int64(0)
	plugins := map[string]int64{}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if kib := vmHWM(c.Process.Pid); kib > kernel {
			kernel = kib
		}
		for _, child := range childPIDs(c.Process.Pid) {
			name := procName(child)
			if kib := vmHWM(child); kib > plugins[name] {
				plugins[name] = kib
			}
		}
		select {
		case err := <-done:
			if err != nil {
				fmt.Fprintln(os.Stderr, "rss probe:", err)
				return 1
			}
			if kernel == 0 { // too quick to sample: rusage is the kernel's alone when it started nothing
				if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok && len(plugins) == 0 {
					kernel = ru.Maxrss
				}
			}
			fmt.Print(kernel)
			for name, kib := range plugins {
				fmt.Printf(" %s=%d", name, kib)
			}
			fmt.Println()
			return 0
		case <-tick.C:
		}
	}
}

// probeRSS runs args under the RSS probe (this program again, with
// -rss-probe) and returns the peak RSS in KiB of that process and of each
// process it started, by command name (which Linux cuts at 15 bytes).
func probeRSS(env []string, args ...string) (kib int64, children map[string]int64, err error) {
	self, err := os.Executable()
	if err != nil {
		return 0, nil, err
	}
	c := exec.Command(self, append([]string{"-rss-probe"}, args...)...)
	c.Env = env
	out, err := c.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(exit.Stderr))
		}
		return 0, nil, fmt.Errorf("rss probe of %q: %w", args, err)
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return 0, nil, fmt.Errorf("rss probe of %q printed nothing", args)
	}
	if kib, err = strconv.ParseInt(fields[0], 10, 64); err != nil {
		return 0, nil, fmt.Errorf("rss probe printed %q", out)
	}
	children = map[string]int64{}
	for _, f := range fields[1:] {
		name, n, _ := strings.Cut(f, "=")
		if children[name], err = strconv.ParseInt(n, 10, 64); err != nil {
			return 0, nil, fmt.Errorf("rss probe printed %q", out)
		}
	}
	return kib, children, nil
}

// vmHWM is a process's peak resident set in KiB, 0 when it is gone.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// childPIDs are the processes pid started that still run.
func childPIDs(pid int) []int {
	var out []int
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// procName is a process's command name.
func procName(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// benchProvider is one provider plugin measured against its fake server.
type benchProvider struct {
	name    string // the client's name and type
	model   string
	fake    func(respond func(*fakellm.ChatRequest) fakellm.Reply) http.Handler
	prefix  string // base path of the fake's API
	curl    func(base string) []string
	binary  string
	embedOK bool
}

// openAIChatBody is the streamed chat request curl sends to the OpenAI fake.
const openAIChatBody = `{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`

var providers = []benchProvider{
	{
		name: "openai", model: "gpt-4o-mini", prefix: "/v1", binary: "coyote-provider-openai", embedOK: true,
		fake: func(r func(*fakellm.ChatRequest) fakellm.Reply) http.Handler {
			return (&fakellm.OpenAI{Respond: r}).Handler()
		},
		curl: func(base string) []string {
			return []string{"-sN", base + "/chat/completions", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer sk-bench",
				"-d", openAIChatBody}
		},
	},
	{
		name: "claude", model: "claude-sonnet-4-5", prefix: "/v1", binary: "coyote-provider-claude",
		fake: func(r func(*fakellm.ChatRequest) fakellm.Reply) http.Handler {
			return (&fakellm.Anthropic{Respond: r}).Handler()
		},
		curl: func(base string) []string {
			return []string{"-sN", base + "/messages", "-H", "Content-Type: application/json", "-H", "x-api-key: sk-bench", "-H", "anthropic-version: 2023-06-01",
				"-d", `{"model":"claude-sonnet-4-5","max_tokens":4096,"stream":true,"messages":[{"role":"user","content":"hi"}]}`}
		},
	},
	{
		name: "gemini", model: "gemini-2.5-flash", prefix: "/v1beta", binary: "coyote-provider-gemini", embedOK: true,
		fake: func(r func(*fakellm.ChatRequest) fakellm.Reply) http.Handler {
			return (&fakellm.Gemini{Respond: r, EmbedDims: 384}).Handler()
		},
		curl: func(base string) []string {
			return []string{"-sN", base + "/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "-H", "Content-Type: application/json", "-H", "x-goog-api-key: sk-bench",
				"-d", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`}
		},
	},
}

func run(bin string, runs int, only, results string) error {
	want := func(part string) bool { return only == "" || only == part }
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	coyote := filepath.Join(bin, "coyote")
	work, err := os.MkdirTemp("", "coyote-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	hello, err := buildHello(work)
	if err != nil {
		return err
	}

	// Every fake answers with as many chunks as replyChunks says.
	var replyChunks atomic.Int64
	respond := func(*fakellm.ChatRequest) fakellm.Reply {
		n := int(replyChunks.Load())
		return fakellm.Reply{Text: strings.Repeat("word ", n), Chunks: n}
	}
	var clients strings.Builder
	bases := map[string]string{}
	for _, p := range providers {
		srv := httptest.NewServer(p.fake(respond))
		defer srv.Close()
		bases[p.name] = srv.URL + p.prefix
		fmt.Fprintf(&clients, "  - type: %s\n    name: %s\n    api_base: %s\n    api_key: sk-bench\n    models: [{name: %s}]\n",
			clientType(p.name), p.name, bases[p.name], p.model)
	}
	// The OpenAI fake over HTTPS (HTTP/2), as a real API is reached: the
	// TLS handshake is part of the first byte.
	tlsSrv := httptest.NewUnstartedServer((&fakellm.OpenAI{Respond: respond}).Handler())
	tlsSrv.EnableHTTP2 = true
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	caFile := filepath.Join(work, "fake-ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw}), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(&clients, "  - type: openai\n    name: openai-tls\n    api_base: %s/v1\n    api_key: sk-bench\n    models: [{name: gpt-4o-mini}]\n", tlsSrv.URL)
	configDir := filepath.Join(work, "config")
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		return err
	}
	cfg := "model: openai:gpt-4o-mini\nclients:\n" + clients.String()
	if err := os.WriteFile(filepath.Join(configDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return err
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + work,
		"COYOTE_CONFIG_DIR=" + configDir, "COYOTE_CACHE_DIR=" + filepath.Join(work, "cache"),
	}
	_, curlErr := exec.LookPath("curl")

	var rows []row
	// The Go plugin's launch, measured once for its own row and the Node.js
	// one's reference (0 until it is).
	var launchT time.Duration
	us := func(d time.Duration) string { return fmt.Sprintf("%.4f ms", float64(d)/float64(time.Millisecond)) }

	// 1. Start-up.
	if want("startup") {
		helloT := median(runs, func() time.Duration { return mustTime(exec.Command(hello)) })
		versionT := median(runs, func() time.Duration {
			c := exec.Command(coyote, "--version")
			c.Env = env
			return mustTime(c)
		})
		rows = append(rows, row{"coyote --version, cold start", ms(versionT), "≤ 2× hello-world", "Go hello-world " + ms(helloT) + " here", verdict(ratio(versionT, helloT) <= 2, "x%.1f hello-world", ratio(versionT, helloT))})

		// 2. Plugin launch + handshake + first call.
		launchT = median(runs, func() time.Duration { return launchOnce(filepath.Join(bin, "plugins")) })
		rows = append(rows, row{"plugin launch + handshake + first call", ms(launchT), "≤ 25 ms", "plain go-plugin host ≈ 40 ms", verdict(launchT <= 25*time.Millisecond, "x%.2f of 40 ms", ratio(launchT, 40*time.Millisecond))})
	}

	// 2a. The same for a plugin in Node.js, next to the Go one
	// (internal/bench/nodeplugin.go).
	if want("node") {
		r, err := nodePluginBench(bin, runs, launchT)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// 2a'. The plugin lock: its cost per launch and a cold hash.
	if want("lock") {
		r, err := lockBench(bin, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// 2b. Commands that read the user's files, and sessions.
	if want("files") {
		for _, c := range []struct {
			args   []string
			target time.Duration
		}{{[]string{"--info"}, 20 * time.Millisecond}, {[]string{"--list-roles"}, 15 * time.Millisecond}} {
			d := median(runs, func() time.Duration {
				cmd := exec.Command(coyote, c.args...)
				cmd.Env = env
				return mustTime(cmd)
			})
			rows = append(rows, row{"coyote " + strings.Join(c.args, " ") + ", cold start", ms(d), "≤ " + ms(c.target), "", withinTarget(d, c.target)})
		}
		load, save, err := sessionBench()
		if err != nil {
			return err
		}
		rows = append(rows,
			row{"load a 1,000-message session", ms(load), "≤ 20 ms", "go test -bench Load1000 ./kernel/session", withinTarget(load, 20*time.Millisecond)},
			row{"save a 1,000-message session (atomic)", ms(save), "≤ 20 ms", "go test -bench Save1000 ./kernel/session", withinTarget(save, 20*time.Millisecond)})
	}

	// 3. Per provider: time to first byte and whole replies, against curl.
	var curl200 time.Duration // curl's time for the OpenAI fake's 200-chunk reply
	total := func(chunks int, mk func() *exec.Cmd) time.Duration {
		replyChunks.Store(int64(chunks))
		return median(runs, func() time.Duration { _, all, _ := firstByte(mk()); return all })
	}
	for _, p := range providers {
		if !want("chat") {
			break
		}
		if _, err := os.Stat(filepath.Join(bin, "plugins", p.binary)); err != nil {
			rows = append(rows, row{p.name + ": not measured", "-", "", "", "plugin " + p.binary + " is not built"})
			continue
		}
		coyoteCmd := func() *exec.Cmd {
			c := exec.Command(coyote, "-m", p.name+":"+p.model, "hi")
			c.Env = env
			return c
		}
		curlCmd := func() *exec.Cmd { return exec.Command("curl", p.curl(bases[p.name])...) }
		replyChunks.Store(20)
		ttfb, curlTTFB := firstBytes(runs, coyoteCmd, curlCmd, curlErr == nil)
		ref := "curl -sN " + ms(curlTTFB) + " here"
		if p.name == "openai" {
			ref += "; a single-process Go peer 1.52× curl on the reference machine"
		}
		rows = append(rows, firstByteRow(p.name+": one-shot time to first byte", ttfb, curlTTFB, ref))

		one, t200, t2000 := total(1, coyoteCmd), total(200, coyoteCmd), total(2000, coyoteCmd)
		var c1, c200, c2000 time.Duration
		if curlErr == nil {
			c1, c200, c2000 = total(1, curlCmd), total(200, curlCmd), total(2000, curlCmd)
		}
		if p.name == "openai" {
			curl200 = c200
		}
		rows = append(rows,
			row{p.name + ": 200-chunk reply, total", ms(t200), "", "curl " + ms(c200), fmt.Sprintf("x%.2f curl", ratio(t200, c200))},
			row{p.name + ": 2,000-chunk reply, total", ms(t2000), "", "curl " + ms(c2000), fmt.Sprintf("x%.2f curl", ratio(t2000, c2000))})
		perChunk, curlPer := (t2000-one)/1999, (c2000-c1)/1999
		ref = "curl " + us(curlPer) + " here"
		if p.name == "openai" {
			ref += "; mods 0.093, fabric 0.061, curl 0.015 ms"
		}
		rows = append(rows, row{p.name + ": per-chunk cost", us(perChunk), "≤ 0.04 ms", ref, verdict(perChunk <= 40*time.Microsecond, "x%.2f curl", ratio(perChunk, curlPer))})
	}

	// 3'. The OpenAI plugin against the fake over HTTPS: what the
	// connection opened ahead (httpkit.Warm) saves shows here.
	if want("chat") || want("tls") {
		coyoteCmd := func() *exec.Cmd {
			c := exec.Command(coyote, "-m", "openai-tls:gpt-4o-mini", "hi")
			c.Env = append(env, "SSL_CERT_FILE="+caFile)
			return c
		}
		curlCmd := func() *exec.Cmd {
			args := providers[0].curl(tlsSrv.URL + "/v1")
			return exec.Command("curl", append([]string{"--cacert", caFile}, args...)...)
		}
		replyChunks.Store(20)
		ttfb, curlTTFB := firstBytes(runs, coyoteCmd, curlCmd, curlErr == nil)
		rows = append(rows, firstByteRow("openai over HTTPS (HTTP/2): one-shot time to first byte", ttfb, curlTTFB, "curl --cacert … -sN "+ms(curlTTFB)+" here"))
	}

	// 3a''. RAG: indexing through the real binaries, queries as a turn
	// runs them, per driver (qdrant needs a server: measured in its tests
	// against the fake only).
	if want("rag") {
		for _, size := range ragSizes() {
			drivers := strings.Split(*ragDrivers, ",")
			res, err := ragBench(coyote, bin, work, size, drivers, max(runs, 50))
			if err != nil {
				return err
			}
			for _, r := range res {
				// The vector leg's target is set at 100,000 chunks; past
				// that (the million-chunk run) it is reported.
				legTarget := "≤ 20 ms at 100k"
				legVerdict := verdict(r.chunks < 100000 || r.legs.vector <= 20*time.Millisecond, "%.0f%% of target", 100*float64(r.legs.vector)/float64(20*time.Millisecond))
				if r.chunks > 100000 {
					legTarget, legVerdict = "report", "measured"
				}
				rows = append(rows,
					row{fmt.Sprintf("rag %s: index %d chunks (load, split, embed, store)", r.driver, r.chunks), fmt.Sprintf("%.0f chunks/s", r.indexRate), "report",
						fmt.Sprintf("%.1f s; peak RSS: kernel %.1f MiB, store plugin %.1f MiB", r.indexDuration.Seconds(), float64(r.kernelRSS)/1024, float64(r.pluginRSS)/1024), "measured"},
					row{fmt.Sprintf("rag %s: query p50 / p95 at %d chunks", r.driver, r.chunks), ms(r.p50) + " / " + ms(r.p95), "report",
						fmt.Sprintf("embed + vector + keyword + fuse + fetch, through the plugins; first question after Open %s", ms(r.legs.first)), "measured"},
					row{fmt.Sprintf("rag %s: vector leg p50 at %d chunks", r.driver, r.chunks), ms(r.legs.vector), legTarget,
						fmt.Sprintf("x%.1f a plain Go scan of the same array (%s); keyword leg %s", float64(r.legs.vector)/float64(max(r.legs.rawScan, 1)), ms(r.legs.rawScan), ms(r.legs.keyword)),
						legVerdict})
				rows = append(rows,
					row{fmt.Sprintf("rag %s: one-shot --rag question at %d chunks", r.driver, r.chunks), ms(r.oneShot), "report",
						fmt.Sprintf("coyote --rag NAME \"question\" end to end; store plugin peak RSS while queried %.1f MiB", float64(r.legs.pluginRSS)/1024), "measured"})
				if r.legs.recall >= 0 {
					rows = append(rows, row{fmt.Sprintf("rag %s: vector recall@10 at %d chunks", r.driver, r.chunks), fmt.Sprintf("%.4f", r.legs.recall), "≥ 0.99",
						fmt.Sprintf("against an exact float32 scan, 100 questions; best hit the exact one in %.0f%%", 100*r.legs.top1),
						verdict(r.legs.recall >= 0.99, "%.4f", r.legs.recall)})
				}
			}
		}
	}

	// 3a'''. Graph RAG: indexing with an extractor whose every answer takes
	// 50 ms, and the graph leg of a query at 10,000 chunks.
	if want("rag") || want("graphrag") {
		const chunks = 1000
		rate, took, err := graphIndexBench(coyote, work, chunks)
		if err != nil {
			return err
		}
		leg := graphLegBench(10000, max(runs, 200))
		rows = append(rows,
			row{fmt.Sprintf("graph rag: index %d chunks with extraction (%s a call)", chunks, extractLatency), fmt.Sprintf("%.0f chunks/s", rate), "report",
				fmt.Sprintf("%.1f s; %d extraction calls in flight", took.Seconds(), rag.ExtractConcurrency), "measured"},
			row{"graph rag: graph leg p50 at 10000 chunks", ms(leg), "≤ 2 ms",
				fmt.Sprintf("%d entities, 2 hops", rag.MaxGraphNodes), verdict(leg <= 2*time.Millisecond, "%.0f%% of target", 100*float64(leg)/float64(2*time.Millisecond))})
	}

	// 3b.  Agents: what -a adds to the first byte, and --list-agents.
	if want("agents") {
		replyChunks.Store(20)
		r, err := agentBench(coyote, configDir, env, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
		if r, err = subagentBench(coyote, work, runs); err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// 3c. What the model is told of the workspace: instructions, skills,
	// memory.
	if want("context") {
		replyChunks.Store(20)
		r, err := contextBench(coyote, work, env, cfg, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// 3a''. The bundled assets' check, which every run makes.
	if want("bundled") {
		d, err := bundledCheck(work, runs)
		if err != nil {
			return err
		}
		rows = append(rows, row{"bundled assets check, every run (marker read + 4 stats)", us(d), "≤ 0.5 ms", "go test -bench Coyote ./kernel/bundlemark",
			withinTarget(d, 500*time.Microsecond)})
	}

	// 3a''. --list-models with the model lists cached
	// (internal/bench/listmodels.go).
	if want("models") {
		r, err := listModelsBench(coyote, work, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// 3a'. Macro visibility, as every Tab and unknown command resolves it.
	if want("macros") {
		d, err := macroResolve(work, runs)
		if err != nil {
			return err
		}
		rows = append(rows, row{"macro visibility, 200 macros in two directories (warm)", ms(d), "≤ 2 ms", "go test -bench Resolve200 ./kernel/macro",
			withinTarget(d, 2*time.Millisecond)})
	}

	// 3a. The ACP server's first chunk against the one-shot's first byte
	// (internal/bench/acp.go).
	if want("acp") {
		replyChunks.Store(20)
		r, err := acpBench(coyote, work, env, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// 3a''. A graph agent's engine, per node.
	if want("graph") {
		over, script, err := graphOverhead(work, runs)
		if err != nil {
			return err
		}
		rows = append(rows, row{"graph engine overhead per node (script node printing {})", ms(over), "≤ 2 ms + script",
			fmt.Sprintf("%d-node chain − the script started alone (%s each)", graphNodes, ms(script)),
			withinTarget(over, 2*time.Millisecond)})
		engine, err := graphEngine(runs)
		if err != nil {
			return err
		}
		rows = append(rows, row{"graph engine per node, no process (approval answered at once)", ms(engine), "≤ 2 ms",
			fmt.Sprintf("%d-node chain of approval nodes", graphNodes), withinTarget(engine, 2*time.Millisecond)})
	}

	// 3a. One tool round beyond the model calls.
	if want("tools") {
		withTool, plain, scriptT, err := toolRound(coyote, work, runs)
		if err != nil {
			return err
		}
		over := withTool - plain - scriptT
		rows = append(rows, row{"tool round overhead (one-shot, trivial bash tool)", ms(over), "≤ 10 ms + script",
			"with tool " + ms(withTool) + " − no tool " + ms(plain) + " − script alone " + ms(scriptT) + " (the second model call counted as overhead)",
			withinTarget(over, 10*time.Millisecond)})
	}

	// 3a''. The sandbox launcher with bwrap: a sandboxed tool call's cost,
	// and coyote --sandbox to the REPL prompt (internal/bench/sandbox.go).
	if want("sandbox") {
		r, err := sandboxBench(coyote, work, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// 3a'. The Bedrock plugin next to the OpenAI one (internal/bench/bedrock.go).
	if want("bedrock") {
		r, err := bedrockBench(bin, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// 3a''. The vertexai and cohere plugins next to the OpenAI one
	// (internal/bench/vertexcohere.go).
	if want("vertexcohere") {
		r, err := vertexCohereBench(coyote, bin, work, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// The OpenAI plugin in its ChatGPT mode, the Codex Responses API
	// (internal/bench/codex.go).
	if want("codex") {
		r, err := codexBench(coyote, bin, work, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// Azure and logins (internal/bench/logins.go).
	if want("logins") {
		r, err := loginsBench(bin, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// 3a''. Secrets from a remote provider (internal/bench/vault.go).
	if want("vault") {
		r, err := vaultBench(bin, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// 3a'. The MCP bridge: first use of a stdio server, and a call's
	// overhead over a direct go-sdk call (internal/bench/mcp.go).
	if want("mcp") {
		r, err := mcpBench(bin, runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	// 3b. The REPL in a terminal: the time to its first prompt, that no
	// plugin starts before a prompt is sent, what a turn costs beyond the
	// HTTP exchange (curl's time for the same request; the model is the
	// config's default, the OpenAI fake), and how soon Ctrl+C reaches the
	// server.
	if want("repl") {
		startT := median(runs, func() time.Duration { return mustDuration(replStart(coyote, env)) })
		rows = append(rows, row{"repl start, until the prompt is drawn", ms(startT), "≤ 25 ms", "", withinTarget(startT, 25*time.Millisecond)})
		if err := replStartsNoPlugin(coyote, env); err != nil {
			rows = append(rows, row{"repl: processes started before the first prompt", "-", "none", "", "MISSED, " + err.Error()})
		} else {
			rows = append(rows, row{"repl: processes started before the first prompt", "none", "none", "", "ok"})
		}
		replyChunks.Store(200)
		turnT, err := replTurns(coyote, env, runs, "word")
		if err != nil {
			return err
		}
		if curl200 == 0 && curlErr == nil {
			openai := providers[0]
			curl200 = total(200, func() *exec.Cmd { return exec.Command("curl", openai.curl(bases[openai.name])...) })
		}
		if curlErr != nil {
			rows = append(rows, row{"repl turn, 200-chunk reply (warm)", ms(turnT), "", "", "overhead not measured: no curl"})
		} else {
			over := turnT - curl200
			ref := "turn " + ms(turnT) + " − curl " + ms(curl200) + " (curl's start and connection included)"
			if warm, err := warmHTTP(runs, bases["openai"]+"/chat/completions", openAIChatBody); err == nil {
				ref += "; a warm Go client takes " + ms(warm) + ", " + ms(turnT-warm) + " less than the turn"
			}
			rows = append(rows, row{"repl turn overhead, 200-chunk reply (warm)", ms(over), "≤ 5 ms", ref,
				verdict(over <= 5*time.Millisecond, "turn x%.2f curl", ratio(turnT, curl200))})
		}
		cancelT, err := replCancel(coyote, env, work, runs)
		if err != nil {
			return err
		}
		rows = append(rows, row{"repl Ctrl+C until the server sees the request cancelled", ms(cancelT), "≤ 200 ms", "", withinTarget(cancelT, 200*time.Millisecond)})
	}

	// 4. Embeddings through the plugin: batches of 64 inputs, 384 dimensions.
	for _, p := range providers {
		if !p.embedOK || !want("embeddings") {
			continue
		}
		seq, piped, err := embedRate(filepath.Join(bin, "plugins"), p, bases[p.name])
		if err != nil {
			rows = append(rows, row{p.name + ": embeddings", "-", "≥ 20,000 inputs/s", "", "failed: " + err.Error()})
			continue
		}
		rows = append(rows,
			row{p.name + ": embeddings, one 64 × 384 batch at a time", fmt.Sprintf("%.0f inputs/s", seq), "", "", ""},
			row{p.name + ": embeddings as RAG sends them (kernel Embed, 64 × 384)", fmt.Sprintf("%.0f inputs/s", piped), "≥ 20,000 inputs/s", "", verdict(piped >= 20000, "x%.1f target", piped/20000)})
	}

	// 5. Peak RSS of the kernel for a one-shot prompt. Linux counts the
	// memory of the process that forked a child in the child's peak (the
	// child shares it until exec), so a small probe process (this program
	// again) starts coyote and reports its peak.
	replyChunks.Store(200)
	var rss []int64
	for i := 0; i < 10 && want("rss"); i++ {
		kib, _, err := probeRSS(env, coyote, "hi")
		if err != nil {
			return err
		}
		rss = append(rss, kib)
	}
	if len(rss) > 0 {
		sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
		peak := float64(rss[len(rss)/2]) / 1024
		rows = append(rows, row{"kernel peak RSS, one-shot prompt", fmt.Sprintf("%.1f MiB", peak), "≤ 25 MiB", "", verdict(peak <= 25, "%.0f%% of target", 100*peak/25)})
	}

	past := history{Values: map[string]string{}}
	if results != "" {
		if past, err = loadHistory(results); err != nil {
			fmt.Fprintln(os.Stderr, "bench: previous results not compared:", err)
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	since := "no previous run"
	if !past.Saved.IsZero() {
		since = "vs " + past.Saved.Local().Format("2006-01-02 15:04")
	}
	fmt.Fprintf(tw, "MEASURE (median of %d)\tVALUE\tCHANGE (%s)\tTARGET\tVERDICT\tREFERENCE\n", runs, since)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.name, r.value, past.change(r), r.target, r.verdict, r.reference)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if results != "" {
		if err := past.save(results, rows, time.Now()); err != nil {
			fmt.Fprintln(os.Stderr, "bench: results not saved:", err)
		}
	}
	if !want("startup") {
		return nil
	}
	return initTrace(coyote, env)
}

// sessionBench runs the session package's Go benchmarks (median of five)
// and returns the time per load and per save.
func sessionBench() (load, save time.Duration, err error) {
	out, err := exec.Command("go", "test", "-run", "^$", "-bench", "^Benchmark(Load|Save)1000$", "-count", "5", "./kernel/session").CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("session benchmarks: %v\n%s", err, out)
	}
	times := map[string][]time.Duration{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) >= 4 && strings.HasPrefix(f[0], "Benchmark") && f[3] == "ns/op" {
			ns, _ := strconv.ParseFloat(f[2], 64)
			name := strings.TrimSuffix(strings.SplitN(f[0], "-", 2)[0], "")
			times[name] = append(times[name], time.Duration(ns))
		}
	}
	mid := func(ds []time.Duration) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	return mid(times["BenchmarkLoad1000"]), mid(times["BenchmarkSave1000"]), nil
}

// clientType is the client type that reaches a provider's plugin.
func clientType(name string) string {
	if name == "openai" {
		return "openai-compatible"
	}
	return name
}

// embedRate measures embeddings through a provider plugin and the fake
// server: one batch of 64 inputs at a time (the bare plugin hop), and
// through the kernel's llm.Conn.Embed, which RAG uses and which keeps a few
// batches in flight.
func embedRate(dir string, p benchProvider, base string) (seq, piped float64, err error) {
	h := plugins.New(plugins.Options{Dirs: []string{dir}})
	defer h.Close()
	ctx := context.Background()
	model := models.Model{Name: "text-embedding-3-small", Type: models.TypeEmbedding, MaxBatchSize: 64}
	if p.name == "gemini" {
		model.Name = "text-embedding-004"
	}
	client := &config.Client{Name: p.name, Type: clientType(p.name), APIBase: base, APIKey: "sk-bench"}
	conn, err := llm.Connect(ctx, h, client)
	if err != nil {
		return 0, 0, err
	}
	prov, err := h.Provider(client.Type)
	if err != nil {
		return 0, 0, err
	}
	inputs := make([]string, 64*32)
	for i := range inputs {
		inputs[i] = fmt.Sprintf("chunk %d of a document that is being indexed for retrieval", i)
	}
	req := &provider.EmbedRequest{Client: p.name, Model: model.Name, Inputs: inputs[:64], Dimensions: 384}
	if _, err := prov.Embed(ctx, req); err != nil { // starts the plugin
		return 0, 0, err
	}
	const batches = 200
	start := time.Now()
	for i := 0; i < batches; i++ {
		resp, err := prov.Embed(ctx, req)
		if err != nil {
			return 0, 0, err
		}
		if len(resp.Vectors) != 64 || len(resp.Vectors[0]) != 384 {
			return 0, 0, fmt.Errorf("got %d vectors of %d", len(resp.Vectors), len(resp.Vectors[0]))
		}
	}
	seq = float64(batches*64) / time.Since(start).Seconds()

	const rounds = 6
	start = time.Now()
	for i := 0; i < rounds; i++ {
		vecs, err := conn.Embed(ctx, model, inputs, provider.InputDocument)
		if err != nil {
			return 0, 0, err
		}
		if len(vecs) != len(inputs) {
			return 0, 0, fmt.Errorf("got %d vectors for %d inputs", len(vecs), len(inputs))
		}
	}
	piped = float64(rounds*len(inputs)) / time.Since(start).Seconds()
	return seq, piped, nil
}

// ms shows a duration in milliseconds, to the hundredth.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// withinTarget is the verdict of d against its target: ok when d is
// within it, with d as a share of it.
func withinTarget(d, target time.Duration) string {
	return verdict(d <= target, "%.0f%% of target", 100*float64(d)/float64(target))
}

func verdict(ok bool, format string, args ...any) string {
	s := fmt.Sprintf(format, args...)
	if ok {
		return "ok, " + s
	}
	return "MISSED, " + s
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// median runs f n times (after one warm-up run) and returns the median.
func median(n int, f func() time.Duration) time.Duration {
	f()
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = f()
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[n/2]
}

func mustTime(c *exec.Cmd) time.Duration {
	start := time.Now()
	if err := c.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", c.Args, err)
		os.Exit(1)
	}
	return time.Since(start)
}

// mustDuration returns d, or stops the bench on err as mustTime does.
func mustDuration(d time.Duration, err error) time.Duration {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	return d
}

// firstByte runs c and returns when its first byte of stdout arrived and
// when it exited, both from the start.
func firstByte(c *exec.Cmd) (first, all time.Duration, err error) {
	out, err := c.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := c.Start(); err != nil {
		return 0, 0, err
	}
	r := bufio.NewReaderSize(out, 64<<10)
	if _, err := r.ReadByte(); err != nil {
		_ = c.Wait()
		return 0, 0, fmt.Errorf("%v printed nothing", c.Args)
	}
	first = time.Since(start)
	_, _ = io.Copy(io.Discard, r)
	err = c.Wait()
	return first, time.Since(start), err
}

// firstBytes is the median time to first byte of coyote and of curl,
// their runs taken in turn so that a change of the machine's load falls
// on both.
func firstBytes(runs int, coyote, curl func() *exec.Cmd, withCurl bool) (mine, curls time.Duration) {
	var a, b []time.Duration
	for range runs {
		first, _, _ := firstByte(coyote())
		a = append(a, first)
		if withCurl {
			first, _, _ = firstByte(curl())
			b = append(b, first)
		}
	}
	mid := func(ds []time.Duration) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	return mid(a), mid(b)
}

// firstByteRow is a first-byte line held to 1.3× curl's (issue 22).
func firstByteRow(name string, mine, curl time.Duration, ref string) row {
	if curl == 0 {
		return row{name, ms(mine), "≤ 1.3× curl", ref, "no curl to compare with"}
	}
	r := ratio(mine, curl)
	return row{name, ms(mine), "≤ 1.3× curl", ref, verdict(r <= 1.3, "x%.2f curl", r)}
}

// launchOnce starts the OpenAI plugin with a fresh host, completes the
// handshake and one call (Describe), and stops it again.
func launchOnce(dir string) time.Duration {
	took, err := launchProvider(dir, "openai")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: launch:", err)
		os.Exit(1)
	}
	return took
}

// launchProvider is launchOnce for the provider plugin of any client type
// in dir.
func launchProvider(dir, clientType string) (time.Duration, error) {
	h := plugins.New(plugins.Options{Dirs: []string{dir}})
	defer h.Close()
	pl, err := h.Lookup("provider", clientType)
	if err != nil {
		return 0, err
	}
	ctx := context.Background()
	start := time.Now()
	// The start ends with the plugin's answer to Describe.
	err = pl.Call(ctx, func(*plugins.Process) error { return nil })
	return time.Since(start), err
}

// buildHello builds a Go hello-world, the floor of any Go program's start.
func buildHello(dir string) (string, error) {
	src := filepath.Join(dir, "hello")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.26\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	out := filepath.Join(dir, "hello-bin")
	c := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, ".")
	c.Dir = src
	c.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if b, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build hello-world: %v\n%s", err, b)
	}
	return out, nil
}

var initLine = regexp.MustCompile(`^init (\S+) @[\d.]+ ms, ([\d.]+) ms clock`)

// initTrace reports the package init cost of `coyote --version`
// (GODEBUG=inittrace=1), the part of start-up that package choices control.
func initTrace(coyote string, env []string) error {
	c := exec.Command(coyote, "--version")
	c.Env = append(env, "GODEBUG=inittrace=1")
	out, err := c.CombinedOutput()
	if err != nil {
		return fmt.Errorf("inittrace: %v", err)
	}
	type pkg struct {
		name string
		ms   float64
	}
	var pkgs []pkg
	var sum float64
	for _, l := range strings.Split(string(out), "\n") {
		if m := initLine.FindStringSubmatch(l); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			pkgs = append(pkgs, pkg{m[1], v})
			sum += v
		}
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].ms > pkgs[j].ms })
	var top []string
	for i := 0; i < len(pkgs) && i < 5; i++ {
		top = append(top, fmt.Sprintf("%s %.3f", pkgs[i].name, pkgs[i].ms))
	}
	fmt.Printf("\npackage init of coyote --version: %.2f ms in %d packages; slowest (ms): %s\n", sum, len(pkgs), strings.Join(top, ", "))
	return nil
}
