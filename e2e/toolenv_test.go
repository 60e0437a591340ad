package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// showEnv is a tool that reports its whole environment.
const showEnv = `#!/usr/bin/env bash
# @describe Show the environment.
main() {
    env >> "$LLM_OUTPUT"
}
`

func TestToolsSeeAnAllowListedEnvironment(t *testing.T) {
	fake := toolModel("show_env", `{}`)
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, toolConfig(url, "show_env")+"tool_env_passthrough: [LISTED_VAR, 'TEAM_*']\n")
	e.set(
		"LLM_AUTH=llm-auth-secret",
		"LLM_PAT=llm-pat-secret",
		"MY_PAT=my-pat-secret",
		"UNLISTED_VAR=unlisted-value",
		"LISTED_VAR=listed-value",
		"TEAM_REGION=team-region-value",
		"HTTPS_PROXY=http://alice:proxy-secret@proxy.invalid:3128",
		"LANG=C.UTF-8",
	)
	writeTool(t, e, "show_env.sh", showEnv)
	r := e.run("", "show me")
	e.mustSucceed(r)
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; stderr %s", len(reqs), r.stderr)
	}
	seen := map[string]string{}
	for _, l := range strings.Split(toolResultOf(&reqs[1]), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			seen[k] = v
		}
	}
	for _, k := range []string{"LLM_AUTH", "LLM_PAT", "MY_PAT", "UNLISTED_VAR", "COYOTE_CONFIG_DIR"} {
		if v, ok := seen[k]; ok {
			t.Errorf("the tool saw %s=%s", k, v)
		}
	}
	for k, want := range map[string]string{
		"LISTED_VAR":    "listed-value",
		"TEAM_REGION":   "team-region-value",
		"HTTPS_PROXY":   "http://proxy.invalid:3128",
		"LANG":          "C.UTF-8",
		"LLM_TOOL_NAME": "show_env",
	} {
		if seen[k] != want {
			t.Errorf("the tool saw %s=%q, want %q", k, seen[k], want)
		}
	}
	for _, secret := range []string{"secret", "alice", "sk-e2e-client-key"} {
		for _, req := range reqs {
			b, _ := json.Marshal(req.Messages)
			if strings.Contains(string(b), secret) {
				t.Errorf("%q reached the model", secret)
			}
		}
	}
}

// TestOnlyTheFlagTurnsConfirmationsOff: a user's AUTO_CONFIRM in the
// environment no longer lets a guarded tool (fs_write) change a file
// without asking; --dangerously-skip-permissions does.
func TestOnlyTheFlagTurnsConfirmationsOff(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flags   []string
		written bool
		note    bool
	}{
		{"AUTO_CONFIRM in the environment", nil, false, true},
		{"--dangerously-skip-permissions", []string{"--dangerously-skip-permissions"}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, target := runGuardedWrite(t, []string{"AUTO_CONFIRM=1"}, tc.flags)
			data, _ := os.ReadFile(target)
			if written := string(data) == "hello"; written != tc.written {
				t.Fatalf("file holds %q; stdout %q", data, r.stdout)
			}
			const note = "warning: AUTO_CONFIRM from the environment is ignored"
			if got := strings.Count(r.stderr, note); got != map[bool]int{true: 1, false: 0}[tc.note] {
				t.Fatalf("the note appeared %d times; stderr %q", got, r.stderr)
			}
		})
	}
}
