// Command bench measures what the issues set targets for, on this machine,
// in one run: start-up, plugin launch, time to first byte of a streamed
// reply, per-chunk cost and peak memory. It runs the real binaries from
// -bin against the in-repo fake server, runs curl and a Go hello-world in
// the same setting as references, and prints each median with its target
// and ratios. `make bench` runs it.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
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
	"github.com/coyote-cli/coyote/kernel/plugins"
)

func main() {
	bin := flag.String("bin", "bin", "directory holding coyote and plugins/")
	runs := flag.Int("runs", 30, "runs per measurement (the median is reported)")
	flag.Parse()
	if err := run(*bin, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// row is one line of the report.
type row struct {
	name, value, target, reference, verdict string
}

func run(bin string, runs int) error {
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

	fake := &fakellm.OpenAI{}
	var replyChunks atomic.Int64 // chunks of the fake's next replies
	fake.Respond = func(*fakellm.ChatRequest) fakellm.Reply {
		n := int(replyChunks.Load())
		return fakellm.Reply{Text: strings.Repeat("word ", n), Chunks: n}
	}
	srv := httptest.NewServer(fake.Handler())
	defer srv.Close()
	base := srv.URL + "/v1"

	configDir := filepath.Join(work, "config")
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		return err
	}
	cfg := fmt.Sprintf("model: fake:gpt-4o-mini\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: %s\n    api_key: sk-bench\n    models: [{name: gpt-4o-mini}]\n", base)
	if err := os.WriteFile(filepath.Join(configDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return err
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + work,
		"COYOTE_CONFIG_DIR=" + configDir, "COYOTE_CACHE_DIR=" + filepath.Join(work, "cache"),
	}
	curlBody := `{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
	curl := []string{"curl", "-sN", base + "/chat/completions", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer sk-bench", "-d", curlBody}
	_, curlErr := exec.LookPath("curl")

	var rows []row
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

	// 1. Start-up.
	helloT := median(runs, func() time.Duration { return mustTime(exec.Command(hello)) })
	versionT := median(runs, func() time.Duration {
		c := exec.Command(coyote, "--version")
		c.Env = env
		return mustTime(c)
	})
	rows = append(rows, row{"coyote --version, cold start", ms(versionT), "≤ 10 ms", "Go hello-world " + ms(helloT) + " here (6 ms on the reference machine)", verdict(versionT <= 10*time.Millisecond, "x%.1f hello-world", ratio(versionT, helloT))})

	// 2. Plugin launch + handshake + first call.
	launchT := median(runs, func() time.Duration { return launchOnce(filepath.Join(bin, "plugins")) })
	rows = append(rows, row{"plugin launch + handshake + first call", ms(launchT), "≤ 25 ms", "plain go-plugin host ≈ 40 ms", verdict(launchT <= 25*time.Millisecond, "x%.2f of 40 ms", ratio(launchT, 40*time.Millisecond))})

	// 3. One-shot time to first byte, zero-delay fake.
	replyChunks.Store(20)
	ttfb := median(runs, func() time.Duration {
		c := exec.Command(coyote, "hi")
		c.Env = env
		first, _, _ := firstByte(c)
		return first
	})
	curlTTFB := time.Duration(0)
	if curlErr == nil {
		curlTTFB = median(runs, func() time.Duration { first, _, _ := firstByte(exec.Command(curl[0], curl[1:]...)); return first })
	}
	rows = append(rows, row{"one-shot time to first byte", ms(ttfb), "≤ 40 ms", "curl -sN " + ms(curlTTFB) + " here; mods 79 ms, fabric 51 ms", verdict(ttfb <= 40*time.Millisecond, "x%.2f curl", ratio(ttfb, curlTTFB))})

	// 4. Per-chunk cost: (total with 2,000 chunks - total with 1) / 1,999.
	total := func(chunks int, mk func() *exec.Cmd) time.Duration {
		replyChunks.Store(int64(chunks))
		return median(runs, func() time.Duration { _, all, _ := firstByte(mk()); return all })
	}
	coyoteCmd := func() *exec.Cmd { c := exec.Command(coyote, "hi"); c.Env = env; return c }
	perChunk := (total(2000, coyoteCmd) - total(1, coyoteCmd)) / 1999
	curlPer := time.Duration(0)
	if curlErr == nil {
		curlCmd := func() *exec.Cmd { return exec.Command(curl[0], curl[1:]...) }
		curlPer = (total(2000, curlCmd) - total(1, curlCmd)) / 1999
	}
	us := func(d time.Duration) string { return fmt.Sprintf("%.4f ms", float64(d)/float64(time.Millisecond)) }
	rows = append(rows, row{"per-chunk cost, 2,000-chunk reply", us(perChunk), "≤ 0.04 ms", "curl " + us(curlPer) + " here; mods 0.093, fabric 0.061, curl 0.015 ms", verdict(perChunk <= 40*time.Microsecond, "x%.2f curl", ratio(perChunk, curlPer))})

	// 5. Peak RSS of the kernel for a one-shot prompt.
	replyChunks.Store(200)
	var rss []int64
	for i := 0; i < 10; i++ {
		c := coyoteCmd()
		if _, _, err := firstByte(c); err == nil {
			if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
				rss = append(rss, ru.Maxrss) // KiB on Linux
			}
		}
	}
	sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
	peak := float64(rss[len(rss)/2]) / 1024
	rows = append(rows, row{"kernel peak RSS, one-shot prompt", fmt.Sprintf("%.1f MiB", peak), "≤ 25 MiB", "", verdict(peak <= 25, "%.0f%% of target", 100*peak/25)})

	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "MEASURE (median of %d)\tVALUE\tTARGET\tVERDICT\tREFERENCE\n", runs)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.name, r.value, r.target, r.verdict, r.reference)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return initTrace(coyote, env)
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

// launchOnce starts the OpenAI plugin with a fresh host, completes the
// handshake and one call (Describe), and stops it again.
func launchOnce(dir string) time.Duration {
	h := plugins.New(plugins.Options{Dirs: []string{dir}})
	defer h.Close()
	pl, err := h.Lookup("provider", "openai")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	start := time.Now()
	err = pl.Call(ctx, func(p *plugins.Process) error {
		_, err := p.Describe(ctx)
		return err
	})
	took := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: launch:", err)
		os.Exit(1)
	}
	return took
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
