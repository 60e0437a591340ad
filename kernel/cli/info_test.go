package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/iostreams"
)

// --info without a config file has no settings to show, but still shows
// the role or session asked for, as it does with one.
func TestInfoWithoutAConfigFileShowsTheRoleAndSession(t *testing.T) {
	tests := []struct {
		name string
		opts rootOptions
		keys []string // the rows before the files, in order
	}{
		{"plain", rootOptions{}, []string{"version", "config"}},
		{"role", rootOptions{Role: "poet"}, []string{"version", "config", "role"}},
		{"session", rootOptions{Session: "work"}, []string{"version", "config", "session"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{
				"COYOTE_CONFIG_DIR":           filepath.Join(dir, "config"),
				"COYOTE_CACHE_DIR":            filepath.Join(dir, "cache"),
				"COYOTE_WORKSPACE_CONFIG_DIR": filepath.Join(dir, "workspace"),
			}
			for path, text := range map[string]string{
				"roles/poet.md":      "---\ntemperature: 0.9\n---\nYou write poems.\n",
				"sessions/work.yaml": "messages:\n- role: user\n  content: hi\n",
			} {
				p := filepath.Join(dir, "config", path)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			io, _, out, _ := iostreams.Test()
			f := &Factory{IO: io, Env: func(k string) string { return env[k] }}
			opts := tt.opts
			if err := runInfo(context.Background(), f, &opts); err != nil {
				t.Fatal(err)
			}
			var keys []string
			rows := map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				k, v, _ := strings.Cut(l, " ")
				keys = append(keys, k)
				rows[k] = strings.TrimSpace(v)
			}
			if len(keys) < len(tt.keys) || !slices.Equal(keys[:len(tt.keys)], tt.keys) || keys[len(tt.keys)] != "config_dir" {
				t.Fatalf("rows %q, want %q then the files", keys, tt.keys)
			}
			if want := "none: " + filepath.Join(dir, "config", "config.yaml") + " does not exist"; rows["config"] != want {
				t.Errorf("config row %q, want %q", rows["config"], want)
			}
			if tt.opts.Role != "" && rows["role"] != tt.opts.Role {
				t.Errorf("role row %q", rows["role"])
			}
			if tt.opts.Session != "" && rows["session"] != tt.opts.Session {
				t.Errorf("session row %q", rows["session"])
			}
		})
	}
}
