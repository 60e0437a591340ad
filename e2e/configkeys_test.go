package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/kernel/buildinfo"
)

// user_agent reaches every provider plugin: unset, each sends its own;
// "auto" is coyote/VERSION; any other text is sent as it is; a client's
// extra.user_agent wins; COYOTE_USER_AGENT overrides the file.
func TestUserAgentIsSentByEveryProviderPlugin(t *testing.T) {
	for _, p := range providerCases {
		t.Run(p.name, func(t *testing.T) {
			url, requests := p.start(t, func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "ok"} }, "k")
			base := providerConfig(p, url, "k")
			for i, c := range []struct {
				config, env, want string
			}{
				{base, "", "coyote-provider-" + pluginOf(p.name) + "/"},
				{"user_agent: auto\n" + base, "", "coyote/" + buildinfo.Version},
				{"user_agent: my-company-gateway/2.1\n" + base, "", "my-company-gateway/2.1"},
				{"user_agent: global/1\n" + base + "    extra: {user_agent: per-client/3, read_timeout: 30}\n", "", "per-client/3"},
				{"user_agent: file/1\n" + base, "COYOTE_USER_AGENT=env/2", "env/2"},
			} {
				e := newEnv(t, c.config)
				if c.env != "" {
					e.set(c.env)
				}
				e.mustSucceed(e.run("", "hi"))
				reqs := requests()
				got := reqs[len(reqs)-1].Header.Get("User-Agent")
				if !strings.HasPrefix(got, c.want) || (i > 0 && got != c.want) {
					t.Errorf("case %d: User-Agent %q, want %q", i, got, c.want)
				}
			}
		})
	}
}

// pluginOf names the plugin binary that serves a client type (its own,
// or the one it is a link to).
func pluginOf(clientType string) string {
	if clientType == "azure-openai" || clientType == "openai-compatible" {
		return "openai"
	}
	return clientType
}

// cmd_prelude applies to a one-shot run that names no role, session or
// agent; -r wins over it; a bad prelude is an error that says the forms.
func TestCmdPrelude(t *testing.T) {
	fake := answering("ok")
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, "cmd_prelude: role:pirate\n"+openAIConfig(url, "k"))
	roles := filepath.Join(e.configDir, "roles")
	if err := os.MkdirAll(roles, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"pirate.md": "Answer like a pirate.", "poet.md": "Answer in verse."} {
		if err := os.WriteFile(filepath.Join(roles, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	system := func() string {
		reqs := fake.Requests()
		m := reqs[len(reqs)-1].Messages[0]
		if m["role"] != "system" {
			return ""
		}
		return m["content"].(string)
	}
	e.mustSucceed(e.run("", "hi"))
	if got := system(); got != "Answer like a pirate." {
		t.Errorf("role prelude: system %q", got)
	}
	e.mustSucceed(e.run("", "-r", "poet", "hi"))
	if got := system(); got != "Answer in verse." {
		t.Errorf("-r did not win over the prelude: system %q", got)
	}

	// SESSION:ROLE starts the session with the role; session:NAME then
	// continues it with the role it was started with.
	e2 := newEnv(t, "cmd_prelude: ship:pirate\n"+openAIConfig(url, "k"))
	if err := os.CopyFS(filepath.Join(e2.configDir, "roles"), os.DirFS(roles)); err != nil {
		t.Fatal(err)
	}
	e2.mustSucceed(e2.run("", "first"))
	if got := system(); got != "Answer like a pirate." {
		t.Errorf("SESSION:ROLE: system %q", got)
	}
	saved, err := os.ReadFile(filepath.Join(e2.configDir, "sessions", "ship.yaml"))
	if err != nil {
		t.Fatalf("the prelude's session was not saved: %v", err)
	}
	if !strings.Contains(string(saved), "role_name: pirate") || !strings.Contains(string(saved), "first") {
		t.Errorf("session file:\n%s", saved)
	}
	e3 := newEnv(t, "cmd_prelude: session:ship\n"+openAIConfig(url, "k"))
	if err := os.CopyFS(filepath.Join(e3.configDir, "roles"), os.DirFS(roles)); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(e3.configDir, "sessions"), os.DirFS(filepath.Join(e2.configDir, "sessions"))); err != nil {
		t.Fatal(err)
	}
	e3.mustSucceed(e3.run("", "second"))
	reqs := fake.Requests()
	var sent []string
	for _, m := range reqs[len(reqs)-1].Messages {
		sent = append(sent, m["role"].(string)+": "+m["content"].(string))
	}
	if got := strings.Join(sent, "|"); got != "system: Answer like a pirate.|user: first|assistant: ok|user: second" {
		t.Errorf("session:NAME sent %q", got)
	}

	bad := newEnv(t, "cmd_prelude: pirate\n"+openAIConfig(url, "k"))
	line := oneLineError(t, bad.run("", "hi"))
	if !strings.Contains(line, `cmd_prelude "pirate": want role:NAME, session:NAME or SESSION:ROLE`) {
		t.Errorf("stderr %q", line)
	}
}
