package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

func TestSecretsFromTheVaultReachTheProvider(t *testing.T) {
	fake := &fakellm.OpenAI{APIKey: "sk-from-the-vault", Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "authorised"} }}
	url := fakellm.StartOpenAI(t, fake)
	// (Without a password file, --add-secret creates one:
	// TestAddSecretWithoutATerminalCreatesThePasswordFile.)
	cfg := "vault_password_file: " + vaultPassword(t) + "\n" + strings.Replace(openAIConfig(url, "'{{FAKE_KEY}}'"), "model:", "model:", 1)
	e := newEnv(t, cfg)
	// A prompt before the secret exists names it and the fix.
	line := oneLineError(t, e.run("", "hi"))
	if !strings.Contains(line, `secret "FAKE_KEY" is not in the vault: add it with coyote --add-secret FAKE_KEY`) {
		t.Fatalf("stderr %q", line)
	}
	e.mustSucceed(e.run("sk-from-the-vault\n", "--add-secret", "FAKE_KEY"))
	if r := e.run("", "--list-secrets"); r.stdout != "FAKE_KEY\n" {
		t.Fatalf("--list-secrets: %q", r.stdout)
	}
	r := e.run("", "hi")
	e.mustSucceed(r)
	if r.stdout != "authorised\n" {
		t.Fatalf("stdout %q", r.stdout)
	}
	vaultFile, _ := os.ReadFile(filepath.Join(e.configDir, "vault.yml"))
	if strings.Contains(string(vaultFile), "sk-from-the-vault") || strings.Contains(e.log(), "sk-from-the-vault") {
		t.Fatal("the secret is stored or logged in clear")
	}
	e.mustSucceed(e.run("", "--delete-secret", "FAKE_KEY"))
	if r := e.run("", "--get-secret", "FAKE_KEY"); r.code != 1 {
		t.Fatalf("deleted secret still readable: %q", r.stdout)
	}
}
