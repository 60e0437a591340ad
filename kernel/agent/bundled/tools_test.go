//go:build unix

package bundled

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	toolsbundled "github.com/coyote-cli/coyote/kernel/tools/bundled"
	"github.com/coyote-cli/coyote/kernel/tools/script"
)

// These tests run the bundled agents' tools as the kernel will: the
// agent's tools.sh is parsed with script.Parse, each declaration gets its
// wrapper in <agent>/bin (script.BuildWrapper), and script.Runner runs it
// with real bash, LLM_ROOT_DIR naming an installed functions directory
// (for the confirmation guard) and the agent's variables as
// LLM_AGENT_VAR_<NAME>. A call runs in a new session without a terminal,
// so a guard cannot ask anybody: without AUTO_CONFIRM it refuses.

// agentEnv is an installed config directory and a workspace for an agent.
type agentEnv struct {
	agentDir, functions, ws string
	decls                   map[string]script.Decl
}

func newAgentEnv(t *testing.T, agent string) *agentEnv {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	config := t.TempDir()
	e := &agentEnv{
		agentDir:  filepath.Join(config, "agents", agent),
		functions: filepath.Join(config, "functions"),
		ws:        filepath.Join(t.TempDir(), "workspace"),
		decls:     map[string]script.Decl{},
	}
	if _, err := toolsbundled.Install(e.functions); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(filepath.Join(config, "agents")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	decls, err := script.Parse(filepath.Join(e.agentDir, "tools.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range decls {
		if _, err := script.BuildWrapper(e.agentDir, d); err != nil {
			t.Fatal(err)
		}
		e.decls[d.Name] = d
	}
	return e
}

// call runs the agent's tool with the JSON arguments. env holds agent
// variables (NAME=value, given as LLM_AGENT_VAR_NAME) and AUTO_CONFIRM
// ("AUTO_CONFIRM" alone turns confirmations off).
func (e *agentEnv) call(t *testing.T, tool, args string, env ...string) script.Result {
	t.Helper()
	d, ok := e.decls[tool]
	if !ok {
		t.Fatalf("the agent has no tool %s", tool)
	}
	r := &script.Runner{
		FunctionsDir: e.functions,
		WrapperDir:   e.agentDir,
		Dir:          e.ws,
		Timeout:      60 * time.Second,
		Env:          []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.ws, "TMPDIR=" + t.TempDir()},
	}
	var extra []string
	for _, kv := range env {
		if kv == "AUTO_CONFIRM" {
			r.AutoConfirm = true
			continue
		}
		extra = append(extra, "LLM_AGENT_VAR_"+kv)
	}
	return r.Run(context.Background(), d, []byte(args), extra)
}

func (e *agentEnv) write(t *testing.T, rel, data string) string {
	t.Helper()
	path := filepath.Join(e.ws, filepath.FromSlash(rel))
	writeFile(t, path, data, 0o644)
	return path
}

func (e *agentEnv) read(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.ws, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// git runs git in the workspace, with a fixed identity and no user config.
func (e *agentEnv) git(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = e.ws
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_AUTHOR_DATE=2024-01-02T03:04:05Z",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_COMMITTER_DATE=2024-01-02T03:04:05Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func ok(t *testing.T, r script.Result, want ...string) string {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("the call failed: %s", r.Err.JSON())
	}
	for _, w := range want {
		if !strings.Contains(r.Output, w) {
			t.Errorf("output lacks %q:\n%s", w, r.Output)
		}
	}
	return r.Output
}

func fails(t *testing.T, r script.Result, want ...string) {
	t.Helper()
	if r.Err == nil {
		t.Fatalf("the call succeeded; output:\n%s", r.Output)
	}
	for _, w := range want {
		if !strings.Contains(r.Err.Stderr, w) {
			t.Errorf("stderr lacks %q: %s", w, r.Err.JSON())
		}
	}
}

func TestEveryToolsScriptDeclaresItsTools(t *testing.T) {
	want := map[string]map[string][]string{ // agent → tool → parameters
		"coder": {
			"list_files":  {"path", "depth"},
			"read_file":   {"path", "offset", "limit"},
			"search":      {"pattern", "path", "glob", "ignore_case"},
			"write_file":  {"path", "contents"},
			"edit_file":   {"path", "old", "new"},
			"run_command": {"command"},
		},
		"explore": {
			"tree":       {"path", "depth"},
			"find_files": {"pattern", "path"},
			"grep_files": {"pattern", "path", "glob", "ignore_case", "context"},
			"read_file":  {"path", "offset", "limit"},
			"git_log":    {"path", "ref", "limit", "stat"},
			"git_show":   {"rev", "path"},
			"git_blame":  {"path", "start", "end"},
		},
		"reviewer": {
			"git_status": nil,
			"git_diff":   {"ref", "staged", "unstaged", "path", "stat", "context"},
			"show_file":  {"path", "ref", "offset", "limit"},
			"git_log":    {"ref", "path", "limit", "stat"},
		},
		"sql": {
			"list_tables":    nil,
			"describe_table": {"table"},
			"query":          {"sql"},
			"execute":        {"sql"},
		},
	}
	dir := t.TempDir()
	if _, err := Install(dir); err != nil {
		t.Fatal(err)
	}
	for _, agent := range Names() {
		t.Run(agent, func(t *testing.T) {
			decls, err := script.Parse(filepath.Join(dir, agent, "tools.sh"))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, d := range decls {
				got[d.Name] = true
				params, known := want[agent][d.Name]
				if !known {
					t.Errorf("unexpected tool %s", d.Name)
					continue
				}
				if len(d.Description) < 30 {
					t.Errorf("%s: description %q is too short to tell the model what it does", d.Name, d.Description)
				}
				var names []string
				for _, p := range d.Params {
					names = append(names, p.Name)
					if p.Description == "" {
						t.Errorf("%s: parameter %s has no description", d.Name, p.Name)
					}
				}
				if !slices.Equal(names, params) {
					t.Errorf("%s: parameters %v, want %v", d.Name, names, params)
				}
				var schema struct {
					Type       string                     `json:"type"`
					Properties map[string]json.RawMessage `json:"properties"`
				}
				if err := json.Unmarshal(d.Parameters, &schema); err != nil || schema.Type != "object" || len(schema.Properties) != len(params) {
					t.Errorf("%s: schema %s (err %v)", d.Name, d.Parameters, err)
				}
				if err := d.Available(); err != nil && agent != "sql" {
					t.Errorf("%s: %v", d.Name, err)
				}
			}
			for name := range want[agent] {
				if !got[name] {
					t.Errorf("the tools script does not declare %s", name)
				}
			}
		})
	}
}

// Every tools.sh takes its helpers from functions/utils/workspace.sh, so a
// fix there reaches all of them (they already need utils/ for the guard).
func TestToolsScriptsSourceTheSharedHelpers(t *testing.T) {
	const source = `source "${LLM_ROOT_DIR:-${BASH_SOURCE[0]%/*}/../../functions}/utils/workspace.sh"`
	for _, agent := range Names() {
		src := bundledFile(t, agent+"/tools.sh")
		if !strings.Contains(src, source) {
			t.Errorf("%s/tools.sh does not source functions/utils/workspace.sh", agent)
		}
		if strings.Contains(src, "_ws_path() {") || strings.Contains(src, "_die() {") {
			t.Errorf("%s/tools.sh defines helpers of its own again", agent)
		}
	}
}

func bundledFile(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := Install(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
