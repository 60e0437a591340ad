package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// The bedrock client type through the real binaries: coyote and
// coyote-provider-bedrock against the fake Bedrock runtime, which answers
// only requests signed with SigV4 for the access key and region it
// expects.

const (
	bedrockModel  = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	bedrockSecret = "bedrock-secret-key-3f9a2c77b1"
)

// bedrockConfig is a config whose model is the bedrock client's, pointed
// at url; client holds the client's own keys (indented by four spaces).
func bedrockConfig(url, client string) string {
	return "model: bedrock:" + bedrockModel + "\nclients:\n  - type: bedrock\n    api_base: " + url + "\n" + client +
		"    models: [{name: " + bedrockModel + ", supports_function_calling: true}]\n"
}

// Each way of giving credentials reaches Bedrock as a signed request with
// the right access key and region: the client's keys in config.yaml, the
// same from the vault, a profile of the shared config and credentials
// files in ~/.aws, and the AWS_ variables that say where those are.
func TestBedrockOneShotWithEachKindOfCredentials(t *testing.T) {
	tests := []struct {
		name   string
		client string
		setup  func(t *testing.T, e *env)
	}{
		{"config keys", "    access_key_id: AKIAFROMCONFIG000001\n    secret_access_key: " + bedrockSecret + "\n    region: eu-west-3\n", nil},
		{"vault", "    access_key_id: AKIAFROMCONFIG000001\n    secret_access_key: '{{AWS_SECRET}}'\n    region: eu-west-3\n", func(t *testing.T, e *env) {
			e.mustSucceed(e.run(bedrockSecret+"\n", "--add-secret", "AWS_SECRET"))
		}},
		{"AWS_PROFILE", "", func(t *testing.T, e *env) {
			dir := t.TempDir()
			creds, conf := filepath.Join(dir, "credentials"), filepath.Join(dir, "config")
			if err := os.WriteFile(creds, []byte("[team]\naws_access_key_id = AKIAFROMCONFIG000001\naws_secret_access_key = "+bedrockSecret+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(conf, []byte("[profile team]\nregion = us-east-1\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			// AWS_REGION beats the profile's region; the keys in the
			// environment are never given to the plugin.
			e.set("AWS_PROFILE=team", "AWS_REGION=eu-west-3", "AWS_SHARED_CREDENTIALS_FILE="+creds, "AWS_CONFIG_FILE="+conf,
				"AWS_ACCESS_KEY_ID=AKIAWRONGENVIRON0001", "AWS_SECRET_ACCESS_KEY=wrong", "AWS_EC2_METADATA_DISABLED=true")
		}},
		{"profile", "    profile: work\n", func(t *testing.T, e *env) {
			// The shared files where the AWS tools keep them, under HOME
			// (the kernel gives a provider plugin no AWS_ variable).
			dir := filepath.Join(filepath.Dir(e.configDir), ".aws") // HOME
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			creds := filepath.Join(dir, "credentials")
			conf := filepath.Join(dir, "config")
			if err := os.WriteFile(creds, []byte("[default]\naws_access_key_id = AKIAWRONGPROFILE0001\naws_secret_access_key = x\n\n[work]\naws_access_key_id = AKIAFROMCONFIG000001\naws_secret_access_key = "+bedrockSecret+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(conf, []byte("[profile work]\nregion = eu-west-3\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakellm.Bedrock{AccessKeyID: "AKIAFROMCONFIG000001", SecretAccessKey: bedrockSecret, Region: "eu-west-3",
				Respond: func(*fakellm.ChatRequest) fakellm.Reply {
					return fakellm.Reply{Reasoning: "Let me think.", Text: "Coyotes howl at dusk.", Chunks: 4}
				}}
			url := fakellm.StartBedrock(t, f)
			cfg := bedrockConfig(url, tt.client)
			if tt.name == "vault" {
				cfg = "vault_password_file: " + vaultPassword(t) + "\n" + cfg
			}
			e := newEnv(t, cfg)
			if tt.setup != nil {
				tt.setup(t, e)
			}
			r := e.run("", "-m", "bedrock:"+bedrockModel, "why", "do", "coyotes", "howl?")
			e.mustSucceed(r)
			if want := "<think>\nLet me think.\n</think>\n\nCoyotes howl at dusk.\n"; r.stdout != want {
				t.Fatalf("stdout %q, want %q", r.stdout, want)
			}
			reqs := f.Requests()
			if len(reqs) != 1 || reqs[0].Model != bedrockModel || !reqs[0].Stream {
				t.Fatalf("requests = %+v", reqs)
			}
			if !strings.HasPrefix(reqs[0].Authorization, "AWS4-HMAC-SHA256 Credential=AKIAFROMCONFIG000001/") {
				t.Fatalf("Authorization %q", reqs[0].Authorization)
			}
			if strings.Contains(e.log()+r.stderr, bedrockSecret) {
				t.Fatal("the secret key appears in the log or on stderr")
			}
		})
	}
}

// A throttled request is retried by the kernel after the Retry-After the
// server sent; wrong keys fail in one line that says what to check,
// without the secret.
func TestBedrockThrottlingIsRetriedAndBadKeysFailInOneLine(t *testing.T) {
	var calls atomic.Int32
	f := &fakellm.Bedrock{AccessKeyID: "AKIAFROMCONFIG000001", SecretAccessKey: bedrockSecret, Region: "eu-west-3",
		Respond: func(*fakellm.ChatRequest) fakellm.Reply {
			if calls.Add(1) == 1 {
				return fakellm.Reply{Status: 429, RetryAfter: "0.1"}
			}
			return fakellm.Reply{Text: "ok now"}
		}}
	url := fakellm.StartBedrock(t, f)
	good := "    access_key_id: AKIAFROMCONFIG000001\n    secret_access_key: " + bedrockSecret + "\n    region: eu-west-3\n"
	e := newEnv(t, bedrockConfig(url, good))
	r := e.run("", "hi")
	e.mustSucceed(r)
	if r.stdout != "ok now\n" || len(f.Requests()) != 2 {
		t.Fatalf("stdout %q after %d requests", r.stdout, len(f.Requests()))
	}

	bad := "    access_key_id: AKIAWRONGKEY00000001\n    secret_access_key: " + bedrockSecret + "\n    region: eu-west-3\n"
	line := oneLineError(t, newEnv(t, bedrockConfig(url, bad)).run("", "hi"))
	if !strings.Contains(line, "UnrecognizedClientException") || !strings.Contains(line, "access_key_id") || strings.Contains(line, bedrockSecret) {
		t.Fatalf("stderr %q", line)
	}
}
