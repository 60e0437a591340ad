package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/iostreams"
	"github.com/coyote-cli/coyote/kernel/models"
)

func wizardFactory(t *testing.T, answers string) (*Factory, string) {
	home := t.TempDir()
	t.Setenv("HOME", home) // the default vault password file is ~/.gman_password
	dir := filepath.Join(home, "config")
	io, in, _, _ := iostreams.Test()
	io.SetTTY(true, true, true)
	in.WriteString(answers)
	env := map[string]string{"COYOTE_CONFIG_DIR": dir, "COYOTE_CACHE_DIR": filepath.Join(home, "cache")}
	return &Factory{IO: io, Env: func(k string) string { return env[k] }}, dir
}

func TestWizardWritesAConfigAndKeepsTheKeyInTheVault(t *testing.T) {
	f, dir := wizardFactory(t, "2\n\nsk-ant-secret-value\nlong enough password\nlong enough password\n")
	if err := runWizard(f); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := "model: claude:" + models.Builtin("claude")[0].Name + "\nclients:\n  - type: claude\n    api_key: '{{CLAUDE_API_KEY}}'\n"
	if string(b) != want {
		t.Fatalf("config.yaml =\n%s\nwant\n%s", b, want)
	}
	if st, _ := os.Stat(filepath.Join(dir, "config.yaml")); st.Mode().Perm() != 0o600 {
		t.Fatalf("config.yaml mode %v", st.Mode().Perm())
	}
	vaultFile, _ := os.ReadFile(filepath.Join(dir, "vault.yml"))
	if !strings.Contains(string(vaultFile), "CLAUDE_API_KEY") || strings.Contains(string(vaultFile), "sk-ant-secret-value") {
		t.Fatal("the key is not in the vault, or it is in clear")
	}
	// The config now loads, with the key from the vault.
	f.reloadConfig()
	cfg, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Clients[0].APIKey != "sk-ant-secret-value" {
		t.Fatalf("key = %q", cfg.Clients[0].APIKey)
	}
}

func TestWizardForALocalServerNeedsNoKey(t *testing.T) {
	f, dir := wizardFactory(t, "4\nollama\n\nllama3.2\n")
	if err := runWizard(f); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	want := "model: ollama:llama3.2\nclients:\n  - type: openai-compatible\n    name: ollama\n    api_base: http://localhost:11434/v1\n"
	if string(b) != want {
		t.Fatalf("config.yaml =\n%s\nwant\n%s", b, want)
	}
	if _, err := config.Load(config.Paths{ConfigFile: filepath.Join(dir, "config.yaml")}, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
}

func TestWizardRejectsABadChoice(t *testing.T) {
	f, _ := wizardFactory(t, "9\n")
	if err := runWizard(f); err == nil || !strings.Contains(err.Error(), "choose a number from 1 to 4") {
		t.Fatalf("err = %v", err)
	}
}
