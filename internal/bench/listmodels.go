package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// listModelsBench measures `coyote --list-models` with 8 clients that list
// no models (OpenAI, Claude, Gemini and four OpenAI-compatible servers
// against the fakes, and one OpenAI-compatible client whose port is
// closed), the cache warm: seven lists come from the cache and the
// unreachable client's plugin is started and asked on every run.
func listModelsBench(coyote, work string, runs int) ([]row, error) {
	oa := httptest.NewServer((&fakellm.OpenAI{}).Handler())
	defer oa.Close()
	cl := httptest.NewServer((&fakellm.Anthropic{}).Handler())
	defer cl.Close()
	gm := httptest.NewServer((&fakellm.Gemini{}).Handler())
	defer gm.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	dead := "http://" + l.Addr().String()
	l.Close()

	var cfg strings.Builder
	cfg.WriteString("clients:\n")
	fmt.Fprintf(&cfg, "  - type: openai\n    api_base: %s/v1\n    api_key: k\n", oa.URL)
	fmt.Fprintf(&cfg, "  - type: claude\n    api_base: %s/v1\n    api_key: k\n", cl.URL)
	fmt.Fprintf(&cfg, "  - type: gemini\n    api_base: %s\n    api_key: k\n", gm.URL)
	for i := range 4 {
		fmt.Fprintf(&cfg, "  - type: openai-compatible\n    name: local%d\n    api_base: %s/v1\n", i, oa.URL)
	}
	fmt.Fprintf(&cfg, "  - type: openai-compatible\n    name: down\n    api_base: %s\n", dead)
	dir := filepath.Join(work, "list-models")
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "config.yaml"), []byte(cfg.String()), 0o600); err != nil {
		return nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
		"COYOTE_CONFIG_DIR=" + filepath.Join(dir, "config"), "COYOTE_CACHE_DIR=" + filepath.Join(dir, "cache")}
	cmd := func(args ...string) *exec.Cmd {
		c := exec.Command(coyote, args...)
		c.Env = env
		return c
	}
	// Warm the cache, and check that the listing is what it should be.
	var out, errOut bytes.Buffer
	c := cmd("--list-models", "--refresh")
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("list-models bench: %v: %s", err, errOut.String())
	}
	if n := strings.Count(out.String(), "\n"); n < 7 || !strings.Contains(errOut.String(), `"down"`) {
		return nil, fmt.Errorf("list-models bench: %d models listed, stderr %q", n, errOut.String())
	}
	warm := median(runs, func() time.Duration {
		c := cmd("--list-models")
		c.Stderr = nil
		return mustTime(c)
	})
	cold := median(runs/3+1, func() time.Duration { return mustTime(cmd("--list-models", "--refresh")) })
	return []row{
		{"--list-models, 8 clients, 1 unreachable, cache warm", ms(warm), "≤ 50 ms", "--refresh (8 asked) " + ms(cold), withinTarget(warm, 50*time.Millisecond)},
	}, nil
}
