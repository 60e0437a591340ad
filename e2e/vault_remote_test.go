package e2e

import (
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/vault-1password/opfake"
	"github.com/coyote-cli/coyote/plugins/vault-aws/awsfake"
	"github.com/coyote-cli/coyote/plugins/vault-azure/azurefake"
	"github.com/coyote-cli/coyote/plugins/vault-gcp/gcpfake"
	"github.com/coyote-cli/coyote/plugins/vault-gopass/gopassfake"
)

// standIn runs the test binary as a stand-in gopass or op when it is run
// under that name (a link in a test's PATH).
func standIn(args []string) (int, bool) {
	switch filepath.Base(args[0]) {
	case "gopass":
		return gopassfake.Main(args[1:]), true
	case "op":
		return opfake.Main(args[1:]), true
	}
	return 0, false
}

// remoteProvider is one secrets provider set up against its fake: the
// secrets_provider block, the variables coyote needs, and where the
// stand-in recorded its command lines ("" for the cloud services).
type remoteProvider struct {
	name    string
	block   string
	vars    []string
	argvLog string
	// calls counts the requests the fake service has had.
	calls func() int
	// ops are the operations a cloud fake has had (nil for the others).
	ops func() []string
}

func setUpProvider(t *testing.T, name string) remoteProvider {
	t.Helper()
	switch name {
	case "aws":
		fake := awsfake.New(nil)
		t.Cleanup(fake.Close)
		root := t.TempDir()
		return remoteProvider{
			name:  name,
			block: fmt.Sprintf("secrets_provider:\n  type: aws_secrets_manager\n  aws_region: %s\n  endpoint: %s\n", awsfake.Region, fake.URL),
			vars: []string{"AWS_ACCESS_KEY_ID=" + awsfake.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + awsfake.SecretAccessKey,
				"AWS_CONFIG_FILE=" + root + "/config", "AWS_SHARED_CREDENTIALS_FILE=" + root + "/credentials", "AWS_EC2_METADATA_DISABLED=true"},
			calls: func() int { return len(fake.Requests()) },
			ops:   fake.Requests,
		}
	case "azure":
		fake := azurefake.New(nil)
		t.Cleanup(fake.Close)
		// The plugin trusts the fake's certificate through SSL_CERT_FILE.
		ca := filepath.Join(t.TempDir(), "ca.pem")
		if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: fake.Certificate().Raw}), 0o600); err != nil {
			t.Fatal(err)
		}
		return remoteProvider{
			name:  name,
			block: fmt.Sprintf("secrets_provider:\n  type: azure_key_vault\n  vault_url: %s\n", fake.URL),
			vars: []string{"SSL_CERT_FILE=" + ca, "AZURE_TENANT_ID=" + azurefake.TenantID, "AZURE_CLIENT_ID=" + azurefake.ClientID,
				"AZURE_CLIENT_SECRET=" + azurefake.ClientSecret, "AZURE_AUTHORITY_HOST=" + fake.URL, "AZURE_CONFIG_DIR=" + t.TempDir()},
			calls: func() int { return len(fake.Requests()) },
		}
	case "gcp":
		fake := gcpfake.New(nil)
		t.Cleanup(fake.Close)
		dir := t.TempDir()
		creds := filepath.Join(dir, "sa.json")
		if err := os.WriteFile(creds, fake.CredentialsJSON(), 0o600); err != nil {
			t.Fatal(err)
		}
		return remoteProvider{
			name:  name,
			block: fmt.Sprintf("secrets_provider:\n  type: gcp_secret_manager\n  gcp_project_id: %s\n  endpoint: %s\n", gcpfake.Project, fake.URL),
			vars:  []string{"GOOGLE_APPLICATION_CREDENTIALS=" + creds, "CLOUDSDK_CONFIG=" + dir, "GCE_METADATA_HOST=127.0.0.1:1"},
			calls: func() int { return len(fake.Requests()) },
		}
	case "gopass", "op":
		dir := t.TempDir()
		bin := filepath.Join(dir, "bin")
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(self, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
		p := remoteProvider{name: name, argvLog: filepath.Join(dir, "argv.log"),
			vars: []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}}
		if name == "gopass" {
			p.block = "secrets_provider:\n  type: gopass\n  store: team\n"
			p.vars = append(p.vars, "GOPASS_FAKE_DIR="+dir)
		} else {
			p.block = "secrets_provider:\n  type: one_password\n  vault: Production\n"
			p.vars = append(p.vars, "OP_FAKE_DIR="+dir)
		}
		p.calls = func() int {
			b, _ := os.ReadFile(p.argvLog)
			return strings.Count(string(b), "\n")
		}
		return p
	}
	t.Fatalf("no provider %s", name)
	return remoteProvider{}
}

// {{OPENAI_API_KEY}} in config.yaml, kept by a remote secrets provider
// plugin, reaches the LLM server of a one-shot prompt; the secret
// commands work against the provider; the value is never in a log, an
// error or a stand-in's command line (issue 25).
func TestSecretsFromARemoteProviderReachTheLLM(t *testing.T) {
	const key = "sk-remote-0123456789"
	for _, name := range []string{"aws", "gcp", "azure", "gopass", "op"} {
		t.Run(name, func(t *testing.T) {
			p := setUpProvider(t, name)
			fake := &fakellm.OpenAI{APIKey: key, Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "authorised"} }}
			url := fakellm.StartOpenAI(t, fake)
			e := newEnv(t, p.block+openAIConfig(url, "'{{OPENAI_API_KEY}}'"))
			e.set(p.vars...)

			// Before the secrets exist, every missing name is listed at once,
			// with the provider.
			e.writeFiles(map[string]string{"config.yaml": p.block + openAIConfig(url, "'{{OPENAI_API_KEY}}'") + "temperature: '{{TEMP}}'\n"})
			line := oneLineError(t, e.run("", "hi"))
			if !strings.Contains(line, `secrets "OPENAI_API_KEY" and "TEMP" are not in the secrets provider `) {
				t.Fatalf("missing secrets: %q", line)
			}
			// Two secrets, so that one request for both shows.
			second := "  - type: openai-compatible\n    name: second\n    api_base: " + url + "\n    api_key: '{{SECOND_KEY}}'\n"
			e.writeFiles(map[string]string{"config.yaml": p.block + openAIConfig(url, "'{{OPENAI_API_KEY}}'") + second})

			calls := p.calls()
			e.mustSucceed(e.run(key+"\n", "--add-secret", "OPENAI_API_KEY"))
			if p.ops != nil {
				// The first use checks the provider with a round trip of a
				// test secret (create, read back, delete), then adds.
				ops := p.ops()[calls:]
				want := []string{"CreateSecret", "BatchGetSecretValue", "DeleteSecret", "BatchGetSecretValue", "CreateSecret"}
				if !slices.Equal(ops, want) {
					t.Errorf("first --add-secret: requests %v, want %v", ops, want)
				}
			}
			e.mustSucceed(e.run("sk-second-key\n", "--add-secret", "SECOND_KEY"))
			calls = p.calls()
			if r := e.run("", "--list-secrets"); r.code != 0 || r.stdout != "OPENAI_API_KEY\nSECOND_KEY\n" {
				t.Fatalf("--list-secrets: %q (exit %d) %s", r.stdout, r.code, r.stderr)
			}
			if p.ops != nil && !slices.Equal(p.ops()[calls:], []string{"ListSecrets"}) {
				t.Errorf("--list-secrets after the check: requests %v, want ListSecrets alone", p.ops()[calls:])
			}
			if r := e.run("", "--get-secret", "OPENAI_API_KEY"); r.stdout != key+"\n" {
				t.Fatalf("--get-secret: %q %s", r.stdout, r.stderr)
			}
			before := p.calls()
			r := e.run("", "hi")
			e.mustSucceed(r)
			if r.stdout != "authorised\n" {
				t.Fatalf("stdout %q", r.stdout)
			}
			if name == "aws" && p.calls()-before != 1 {
				t.Errorf("the one-shot made %d requests to the provider for its 2 secrets, want one batch", p.calls()-before)
			}
			if r := e.run("", "--info"); strings.Contains(r.stdout, key) {
				t.Errorf("--info shows the key:\n%s", r.stdout)
			}
			e.mustSucceed(e.run("sk-rotated-987654\n", "--update-secret", "OPENAI_API_KEY"))
			if r := e.run("", "hi"); r.code != 1 || !strings.Contains(r.stderr, "401") && !strings.Contains(strings.ToLower(r.stderr), "key") {
				t.Errorf("after the update the old key still works? exit %d %s", r.code, r.stderr)
			}
			e.mustSucceed(e.run("", "--delete-secret", "OPENAI_API_KEY"))
			if r := e.run("", "--get-secret", "OPENAI_API_KEY"); r.code != 1 || !strings.Contains(r.stderr, "secrets provider") {
				t.Errorf("deleted secret: exit %d %s", r.code, r.stderr)
			}
			if strings.Contains(e.log(), key) || strings.Contains(e.log(), "sk-rotated") {
				t.Error("the log has a secret value")
			}
			if p.argvLog != "" {
				b, _ := os.ReadFile(p.argvLog)
				if strings.Contains(string(b), key) || strings.Contains(string(b), "sk-rotated") {
					t.Errorf("a value was on %s's command line:\n%s", name, b)
				}
				if !slices.ContainsFunc(strings.Split(string(b), "\n"), func(l string) bool { return strings.HasPrefix(l, "show") || strings.HasPrefix(l, "item\x00get") }) {
					t.Errorf("%s was never asked for a value:\n%s", name, b)
				}
			}
		})
	}
}

// A provider that refuses is one line naming the provider and the secret.
func TestARemoteProviderFailureIsOneLine(t *testing.T) {
	fake := awsfake.New(map[string]string{"OPENAI_API_KEY": "sk-never-shown"})
	defer fake.Close()
	fake.Deny("OPENAI_API_KEY")
	p := setUpProvider(t, "aws")
	block := fmt.Sprintf("secrets_provider:\n  type: aws_secrets_manager\n  aws_region: %s\n  endpoint: %s\n", awsfake.Region, fake.URL)
	e := newEnv(t, block+openAIConfig("http://127.0.0.1:1", "'{{OPENAI_API_KEY}}'"))
	e.set(p.vars...)
	line := oneLineError(t, e.run("", "hi"))
	for _, want := range []string{"aws_secrets_manager", "OPENAI_API_KEY", "access denied"} {
		if !strings.Contains(line, want) {
			t.Errorf("error %q does not say %q", line, want)
		}
	}
	if strings.Contains(line, "sk-never") {
		t.Error("the value is in the error")
	}
}
