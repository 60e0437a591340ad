package gemini_test

import (
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/internal/fakellm/scenario"
	"github.com/coyote-cli/coyote/plugins/provider-gemini/gemini"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// TestConformance: the plugin passes the public provider suite, with the
// fake Gemini API as its upstream.
func TestConformance(t *testing.T) {
	providertest.Suite{
		Info: gemini.Info,
		New:  func() provider.Provider { return gemini.New() },
		Upstream: func(t *testing.T, sc providertest.Scenario) provider.ClientConfig {
			reply := scenario.Reply(sc)
			errorOnly := fakellm.Reply{Status: reply.Status, RetryAfter: reply.RetryAfter}
			f := &fakellm.Gemini{
				APIKey:       testKey,
				Respond:      func(*fakellm.ChatRequest) fakellm.Reply { return reply },
				RespondEmbed: func([]string) fakellm.Reply { return errorOnly },
			}
			return provider.ClientConfig{APIBase: fakellm.StartGemini(t, f), APIKey: testKey}
		},
		Type:           gemini.Type,
		Model:          "gemini-2.5-flash",
		EmbeddingModel: "text-embedding-004",
	}.Run(t)
}
