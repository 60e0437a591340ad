package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// vertexCohereBench measures the vertexai and cohere plugins (issue 23)
// next to the OpenAI plugin, in one run against their fakes: the one-shot
// time to first byte (for vertexai with its token fetch, as each new
// plugin process does it), the per-chunk cost of a 2,000-chunk reply, and
// what the plugins' package initialisation costs (GODEBUG=inittrace=1).
// The runs of the plugins are interleaved, so that the machine's load
// falls on each alike.
func vertexCohereBench(coyote, bin, work string, runs int) ([]row, error) {
	var chunks atomic.Int64
	respond := func(*fakellm.ChatRequest) fakellm.Reply {
		n := int(chunks.Load())
		return fakellm.Reply{Text: strings.Repeat("word ", n), Chunks: n}
	}
	openai := httptest.NewServer((&fakellm.OpenAI{Respond: respond}).Handler())
	defer openai.Close()
	cohere := httptest.NewServer((&fakellm.Cohere{Respond: respond}).Handler())
	defer cohere.Close()
	vf := &fakellm.Vertex{Gemini: &fakellm.Gemini{Respond: respond}, Anthropic: &fakellm.Anthropic{Respond: respond}}
	vertex := httptest.NewServer(vf.Handler())
	defer vertex.Close()
	vf.Root = vertex.URL

	dir := filepath.Join(work, "vertexcohere")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	adc := filepath.Join(dir, "sa.json")
	if err := os.WriteFile(adc, vf.ServiceAccountKey(), 0o600); err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf(`clients:
  - type: openai
    api_base: %s/v1
    api_key: sk-bench
    models: [{name: gpt-4o-mini}]
  - type: cohere
    api_base: %s/v2
    api_key: sk-bench
    models: [{name: command-a-03-2025}]
  - type: vertexai
    api_base: %s/v1
    project_id: coyote-test
    location: us-central1
    adc_file: %s
    models: [{name: gemini-2.5-flash}, {name: claude-sonnet-4-5}]
`, openai.URL, cohere.URL, vertex.URL, adc)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "COYOTE_CONFIG_DIR=" + dir, "COYOTE_CACHE_DIR=" + filepath.Join(dir, "cache")}
	models := []string{"openai:gpt-4o-mini", "cohere:command-a-03-2025", "vertexai:gemini-2.5-flash", "vertexai:claude-sonnet-4-5"}
	for _, b := range []string{"coyote-provider-openai", "coyote-provider-cohere", "coyote-provider-vertexai"} {
		if _, err := os.Stat(filepath.Join(bin, "plugins", b)); err != nil {
			return []row{{"vertexai/cohere: not measured", "-", "", "", "plugin " + b + " is not built"}}, nil
		}
	}
	ttfb, one, many, err := modelTimings(coyote, env, models, runs, &chunks)
	if err != nil {
		return nil, err
	}
	base := ttfb[models[0]]
	basePer := (many[models[0]] - one[models[0]]) / 1999
	us := func(d time.Duration) string { return fmt.Sprintf("%.4f ms", float64(d)/float64(time.Millisecond)) }
	var rows []row
	for _, m := range models {
		per := (many[m] - one[m]) / 1999
		if m == models[0] {
			rows = append(rows,
				row{m + ": one-shot first byte (reference)", ms(ttfb[m]), "", "the OpenAI plugin, same run", "measured"},
				row{m + ": per-chunk cost (reference)", us(per), "", "2,000 chunks − 1 chunk, same run", "measured"})
			continue
		}
		rows = append(rows,
			row{m + ": one-shot first byte", ms(ttfb[m]), "≤ openai + 5 ms", "openai " + ms(base),
				verdict(ttfb[m] <= base+5*time.Millisecond, "%+.2f ms vs openai", float64(ttfb[m]-base)/float64(time.Millisecond))},
			row{m + ": per-chunk cost", us(per), "report", "openai " + us(basePer), fmt.Sprintf("x%.2f openai", ratio(per, basePer))})
	}
	for _, b := range []string{"coyote-provider-openai", "coyote-provider-cohere", "coyote-provider-vertexai"} {
		d, pkgs, err := initCost(filepath.Join(bin, "plugins", b), runs)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row{b + ": package init (GODEBUG=inittrace=1)", ms(d), "report", fmt.Sprintf("%d packages initialised", pkgs), "measured"})
	}
	return rows, nil
}

// inittraceLine is one line of GODEBUG=inittrace=1: "init <pkg> @<t> ms,
// <clock> ms clock, ...".
var inittraceLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock`)

// initCost runs a plugin binary outside a host (it prints a note and
// exits) with GODEBUG=inittrace=1 and returns the median of the clock time
// its package init functions took, and how many ran.
func initCost(path string, runs int) (time.Duration, int, error) {
	var ds []time.Duration
	pkgs := 0
	for range runs {
		c := exec.Command(path)
		c.Env = []string{"GODEBUG=inittrace=1"}
		var stderr bytes.Buffer
		c.Stderr = &stderr
		_ = c.Run() // it exits 1: not started by a host
		total, n := 0.0, 0
		sc := bufio.NewScanner(&stderr)
		for sc.Scan() {
			if m := inittraceLine.FindStringSubmatch(sc.Text()); m != nil {
				f, _ := strconv.ParseFloat(m[2], 64)
				total += f
				n++
			}
		}
		if n == 0 {
			return 0, 0, fmt.Errorf("%s printed no inittrace lines", path)
		}
		pkgs = n
		ds = append(ds, time.Duration(total*float64(time.Millisecond)))
	}
	return medianOf(ds), pkgs, nil
}

// medianOf is the median of ds.
func medianOf(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}
