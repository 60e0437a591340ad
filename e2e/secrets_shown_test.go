package e2e

import (
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// A secret from the vault, used in every kind of place a placeholder can
// be (a client key, a plain setting, a document loader, an MCP server's
// environment and headers, a RAG's driver_config), never shows in what
// Coyote prints or logs: --info, .info, --dry-run, error lines and the log
// show {{NAME}} instead.
func TestAPlantedSecretIsNeverShown(t *testing.T) {
	const secret = "sk-planted-7d41e9c2b8"
	fake := &fakellm.OpenAI{APIKey: secret, Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "ok"} }}
	url := fakellm.StartOpenAI(t, fake)
	cfg := "vault_password_file: " + vaultPassword(t) + `
user_agent: 'coyote/{{SEKRET}}'
document_loaders:
  sek: 'printf "%s" "{{SEKRET}}" > /dev/null; echo "loader failed" >&2; exit 3'
enabled_mcp_servers: leaky
` + strings.Replace(openAIConfig(url, "'{{SEKRET}}'"), "api_key:", "api_key:", 1)
	e := newEnv(t, cfg).set("COYOTE_LOG_LEVEL=trace")
	e.mustSucceed(e.run(secret+"\n", "--add-secret", "SEKRET"))
	e.writeUserMCP(`{"mcpServers": {"leaky": {"command": "/no/such/server", "args": ["--token", "{{SEKRET}}"],
		"env": {"TOKEN": "{{SEKRET}}"}}, "remote": {"type": "http", "url": "http://127.0.0.1:1/mcp?key={{SEKRET}}",
		"headers": {"Authorization": "Bearer {{SEKRET}}"}}}}`)
	e.writeFiles(map[string]string{
		"rags/kb.yaml": "driver: qdrant\nattached: true\nembedding_model: fake:embed\ntop_k: 3\ndriver_config:\n  host: http://127.0.0.1:1\n  collection: docs\n  api_key: '{{SEKRET}}'\n",
	})

	// The secret does reach the provider: the test would prove nothing if
	// it were not resolved at all.
	r := e.run("", "hi")
	e.mustSucceed(r)
	if r.stdout != "ok\n" {
		t.Fatalf("stdout %q", r.stdout)
	}

	outputs := map[string]string{}
	add := func(name string, r result) { outputs[name] = r.stdout + r.stderr }
	info := e.run("", "--info")
	e.mustSucceed(info)
	if !strings.Contains(info.stdout, "coyote/{{SEKRET}}") || !strings.Contains(info.stdout, `"{{SEKRET}}\"`) {
		t.Errorf("--info does not show the placeholders:\n%s", info.stdout)
	}
	add("--info", info)
	add("--dry-run", e.run("", "--dry-run", "-f", "sek:x", "hi"))
	loader := e.run("", "-f", "sek:x", "hi")
	if loader.code != 1 || !strings.Contains(loader.stderr, "{{SEKRET}}") {
		t.Errorf("a failing loader's error should quote its template: %q", loader.stderr)
	}
	add("loader error", loader)
	add("rag error", e.run("", "--rag", "kb", "hi"))
	add("mcp", e.run("", "hi"))
	add("--mcp-list", e.run("", "--mcp-list"))

	repl := e.startREPL()
	repl.enter(".info", "builtin_functions")
	repl.exit()
	outputs[".info"] = repl.output()

	outputs["log"] = e.log()
	for name, text := range outputs {
		if strings.Contains(text, secret) {
			t.Errorf("the secret shows in %s:\n%s", name, text)
		}
	}
}
