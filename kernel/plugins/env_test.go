package plugins

import (
	"slices"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/coyote-cli/coyote/kernel/envlist"
	"github.com/coyote-cli/coyote/sdk"
)

func TestPluginEnvKeepsTheAllowListAndDropsSecrets(t *testing.T) {
	tests := []struct {
		kv   string
		keep bool
	}{
		{"PATH=/usr/bin", true},
		{"HOME=/home/u", true},
		{"TERM=xterm-256color", true},
		{"NODE_EXTRA_CA_CERTS=/etc/ssl/corp.pem", true},
		{"SSL_CERT_FILE=/etc/ssl/corp.pem", true},
		{"HTTPS_PROXY=http://proxy:3128", true},
		{"LC_ALL=C.UTF-8", true},
		{"TZ=Europe/Paris", true},
		{"REQUESTS_CA_BUNDLE=/etc/ssl/corp.pem", true},
		{"GIT_SSL_CAINFO=/etc/ssl/corp.pem", true},
		{"http_proxy=http://user:pw@proxy:3128", true},
		{"PWD=/home/u", false},
		{"EDITOR=vi", false},
		{"OPENAI_API_KEY=sk-secret", false},
		{"AWS_SECRET_ACCESS_KEY=x", false},
		{"COYOTE_TEST_SECRET=x", false},
		{"GITHUB_TOKEN=ghp_x", false},
		{"COYOTE_PLUGINS_DIR=/p", false},
	}
	environ := make([]string, 0, len(tests))
	for _, tt := range tests {
		environ = append(environ, tt.kv)
	}
	got := pluginEnv(environ, hclog.NewNullLogger())
	for _, tt := range tests {
		if slices.Contains(got, tt.kv) != tt.keep {
			t.Errorf("%s: kept = %v, want %v", tt.kv, !tt.keep, tt.keep)
		}
	}
	if last := got[len(got)-1]; last != sdk.EnvLogLevel+"=error" {
		t.Errorf("last variable = %q, want the log level", last)
	}
}

// Every variable of the list plugins share with tools reaches a plugin.
func TestPluginEnvKeepsTheSharedBase(t *testing.T) {
	for name := range envlist.Base {
		kv := name + "=v"
		if got := pluginEnv([]string{kv}, hclog.NewNullLogger()); len(got) != 2 || got[0] != kv {
			t.Errorf("%s: a plugin got %q", name, got)
		}
	}
}

// A kind's EnvPrefixes reach its plugins alone: a secrets provider gets
// its service's credentials, a provider plugin does not.
func TestKindEnvIsTheKindsOwn(t *testing.T) {
	environ := []string{"AWS_SECRET_ACCESS_KEY=x", "AZURE_CLIENT_ID=y", "OP_SERVICE_ACCOUNT_TOKEN=z", "OPENAI_API_KEY=sk", "GNUPGHOME=/g", "PATH=/bin", "AWSOME=1"}
	got := kindEnv(sdk.KindVault, environ)
	want := []string{"AWS_SECRET_ACCESS_KEY=x", "AZURE_CLIENT_ID=y", "OP_SERVICE_ACCOUNT_TOKEN=z", "GNUPGHOME=/g"}
	if !slices.Equal(got, want) {
		t.Errorf("vault env = %v, want %v", got, want)
	}
	for _, kind := range []string{sdk.KindProvider, sdk.KindRAG, sdk.KindMCP, "nope"} {
		if got := kindEnv(kind, environ); len(got) != 0 {
			t.Errorf("%s env = %v, want none", kind, got)
		}
	}
	// A provider plugin learns where the AWS chain looks, never the keys.
	aws := []string{"AWS_ACCESS_KEY_ID=a", "AWS_SECRET_ACCESS_KEY=s", "AWS_SESSION_TOKEN=t", "AWS_PROFILE=work", "AWS_REGION=eu-west-3", "AWS_CONFIG_FILE=/c"}
	if got, want := kindEnv(sdk.KindProvider, aws), []string{"AWS_PROFILE=work", "AWS_REGION=eu-west-3", "AWS_CONFIG_FILE=/c"}; !slices.Equal(got, want) {
		t.Errorf("provider env = %v, want %v", got, want)
	}
}
