package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSeedLeavesOutTheVaultTheEnvFileAndTheKeys(t *testing.T) {
	cfg := t.TempDir()
	files := map[string]string{
		"config.yaml":        "model: a:b\nclients:\n  - type: openai\n    name: a\n    api_key: sk-secret-1\n    api_base: https://x/v1\n  - name: b\n    api_key: \"{{B_KEY}}\"\n",
		"vault.yml":          "enc",
		".env":               "A_API_KEY=sk-secret-2\n",
		"roles/r.md":         "a role",
		"plugins/coyote-x":   "binary",
		"sessions/s.yaml":    "messages: []\n",
		"functions/mcp.json": "{}",
	}
	for name, text := range files {
		p := filepath.Join(cfg, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	seed := filepath.Join(t.TempDir(), "seed")
	if err := WriteSeed(cfg, filepath.Join(cfg, "config.yaml"), seed, []string{filepath.Join(cfg, "plugins")}); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"vault.yml", ".env", "plugins/coyote-x"} {
		if _, err := os.Stat(filepath.Join(seed, gone)); err == nil {
			t.Errorf("%s was copied", gone)
		}
	}
	for _, kept := range []string{"roles/r.md", "sessions/s.yaml", "functions/mcp.json"} {
		if _, err := os.Stat(filepath.Join(seed, kept)); err != nil {
			t.Errorf("%s was not copied: %v", kept, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(seed, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); strings.Contains(s, "api_key") || strings.Contains(s, "sk-secret") || !strings.Contains(s, "api_base: https://x/v1") || !strings.Contains(s, "model: a:b") {
		t.Fatalf("config.yaml in the seed:\n%s", s)
	}
}
