package e2e

import (
	"fmt"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// TestAzureOpenAIAsTheOriginalConfiguresIt: a client written as the
// original's example writes one (api_base, deployment-named models, the
// key from AZURE_OPENAI_API_KEY) reaches the deployment's path with the
// default api-version and the api-key header, through the real binaries;
// api_version picks another version.
func TestAzureOpenAIAsTheOriginalConfiguresIt(t *testing.T) {
	for _, tc := range []struct {
		name, extra, wantVersion string
	}{
		{name: "default version", wantVersion: "2024-10-21"},
		{name: "api_version", extra: "    api_version: 2025-01-01-preview\n", wantVersion: "2025-01-01-preview"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakellm.Azure{APIKey: "azure-secret-key", APIVersion: tc.wantVersion, Deployments: []string{"gpt-4o"}}
			url := fakellm.StartAzure(t, f)
			cfg := fmt.Sprintf("model: azure-openai:gpt-4o\nclients:\n  - type: azure-openai\n    api_base: %s\n%s    models:\n      - name: gpt-4o\n        max_input_tokens: 128000\n        supports_function_calling: true\n", url, tc.extra)
			e := newEnv(t, cfg).set("AZURE_OPENAI_API_KEY=azure-secret-key")
			r := e.run("", "hello")
			e.mustSucceed(r)
			if r.stdout != fakellm.DefaultText+"\n" {
				t.Fatalf("stdout %q", r.stdout)
			}
			calls := f.Calls()
			if len(calls) != 1 {
				t.Fatalf("%d calls: %+v", len(calls), calls)
			}
			c := calls[0]
			if c.Path != "/openai/deployments/gpt-4o/chat/completions" || c.APIVersion != tc.wantVersion || c.Header.Get("api-key") != "azure-secret-key" || c.Header.Get("Authorization") != "" {
				t.Fatalf("call %s ?api-version=%s api-key=%q Authorization=%q", c.Path, c.APIVersion, c.Header.Get("api-key"), c.Header.Get("Authorization"))
			}
		})
	}
}
