package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// A one-shot prompt through coyote-provider-vertexai, for a Gemini and a
// Claude model, against the fake Vertex AI: the plugin trades the service
// account's key for a token at the fake's token endpoint and calls each
// publisher's URL with it. Vertex has no API key, so the key-based cases of
// providerCases do not apply.
func TestOneShotThroughVertexAI(t *testing.T) {
	respond := func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Reasoning: "Let me think.", Text: "Coyotes howl at dusk.", Chunks: 4}
	}
	f := &fakellm.Vertex{Gemini: &fakellm.Gemini{Respond: respond}, Anthropic: &fakellm.Anthropic{Respond: respond}}
	base := fakellm.StartVertex(t, f)
	adc := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(adc, f.ServiceAccountKey(), 0o600); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`clients:
  - type: vertexai
    api_base: %s
    project_id: coyote-test
    location: us-central1
    adc_file: %s
    models: [{name: gemini-2.5-flash}, {name: claude-sonnet-4-5}]
`, base, adc)
	for _, model := range []string{"gemini-2.5-flash", "claude-sonnet-4-5"} {
		t.Run(model, func(t *testing.T) {
			e := newEnv(t, config)
			r := e.run("", "-m", "vertexai:"+model, "why", "do", "coyotes", "howl?")
			e.mustSucceed(r)
			if want := "<think>\nLet me think.\n</think>\n\nCoyotes howl at dusk.\n"; r.stdout != want {
				t.Fatalf("stdout %q, want %q", r.stdout, want)
			}
			if strings.Contains(e.log(), "PRIVATE KEY") || strings.Contains(e.log(), "ya29.") {
				t.Fatal("the log shows the key or a token")
			}
		})
	}
	if g := f.Grants(); len(g) != 2 {
		t.Fatalf("token grants %v, want one per run", g)
	}
}

// Without adc_file, the kernel passes GOOGLE_APPLICATION_CREDENTIALS on
// to the plugin, which finds the key there.
func TestVertexAIDefaultCredentialsFromTheEnvironment(t *testing.T) {
	f := &fakellm.Vertex{Gemini: &fakellm.Gemini{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "From the environment."} }}}
	base := fakellm.StartVertex(t, f)
	adc := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(adc, f.ServiceAccountKey(), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, fmt.Sprintf("model: vertexai:gemini-2.5-flash\nclients:\n  - type: vertexai\n    api_base: %s\n    project_id: coyote-test\n    location: us-central1\n    models: [{name: gemini-2.5-flash}]\n", base)).
		set("GOOGLE_APPLICATION_CREDENTIALS=" + adc)
	r := e.run("", "hi")
	e.mustSucceed(r)
	if r.stdout != "From the environment.\n" || len(f.Grants()) != 1 {
		t.Fatalf("stdout %q, grants %v", r.stdout, f.Grants())
	}
}
