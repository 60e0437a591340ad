package e2e

import (
	"os"
	"path/filepath"
	"regexp"
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

// A vault in the coyote_vault 1 format (written by earlier versions of
// coyote, which the original cannot read) is converted to the original's
// $VAULT;v1 entries at its next change, keeping every secret it held
// (issue 13).
func TestACoyote1VaultIsConvertedToTheOriginalsFormatAtTheNextChange(t *testing.T) {
	old := mustRead(t, filepath.Join("..", "kernel", "vault", "testdata", "vault.coyote1.yml"))
	// That file's password (kernel/vault's tests).
	pw := filepath.Join(t.TempDir(), "vault-password")
	if err := os.WriteFile(pw, []byte("golden password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, "vault_password_file: "+pw+"\n")
	e.writeFiles(map[string]string{"vault.yml": string(old)})
	vaultFile := filepath.Join(e.configDir, "vault.yml")

	// Reading converts nothing.
	if r := e.run("", "--get-secret", "OPENAI_API_KEY"); r.code != 0 || r.stdout != "sk-golden\n" {
		t.Fatalf("--get-secret before the change: %q (exit %d) %s", r.stdout, r.code, r.stderr)
	}
	if now := mustRead(t, vaultFile); string(now) != string(old) {
		t.Fatalf("reading rewrote the vault:\n%s", now)
	}

	e.mustSucceed(e.run("sk-new\n", "--add-secret", "NEW_KEY"))
	now := string(mustRead(t, vaultFile))
	if strings.Contains(now, "coyote_vault") {
		t.Fatalf("still in the coyote_vault format:\n%s", now)
	}
	for _, name := range []string{"OPENAI_API_KEY", "UNICODE", "NEW_KEY"} {
		if !regexp.MustCompile(`(?m)^` + name + `: \$VAULT;v1;argon2id;m=19456,t=2,p=1;salt=`).MatchString(now) {
			t.Errorf("%s is not an entry of the original's format:\n%s", name, now)
		}
	}
	for name, want := range map[string]string{"OPENAI_API_KEY": "sk-golden", "UNICODE": "ünïcødé 🔑", "NEW_KEY": "sk-new"} {
		if r := e.run("", "--get-secret", name); r.code != 0 || r.stdout != want+"\n" {
			t.Errorf("--get-secret %s: %q (exit %d) %s", name, r.stdout, r.code, r.stderr)
		}
	}
	if r := e.run("", "--list-secrets"); r.stdout != "NEW_KEY\nOPENAI_API_KEY\nUNICODE\n" {
		t.Errorf("--list-secrets: %q", r.stdout)
	}
}
