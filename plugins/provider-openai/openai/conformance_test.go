package openai_test

import (
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/internal/fakellm/scenario"
	"github.com/coyote-cli/coyote/plugins/provider-openai/openai"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// TestConformance: the plugin passes the public provider suite, with the
// fake OpenAI API as its upstream.
func TestConformance(t *testing.T) {
	providertest.Suite{
		Info: openai.Info,
		New:  func() provider.Provider { return openai.New() },
		Upstream: func(t *testing.T, sc providertest.Scenario) provider.ClientConfig {
			reply := scenario.Reply(sc)
			errorOnly := fakellm.Reply{Status: reply.Status, RetryAfter: reply.RetryAfter}
			f := &fakellm.OpenAI{
				APIKey:        testKey,
				Respond:       func(*fakellm.ChatRequest) fakellm.Reply { return reply },
				RespondEmbed:  func(*fakellm.EmbedCall) fakellm.Reply { return errorOnly },
				RespondRerank: func(*fakellm.RerankCall) fakellm.Reply { return errorOnly },
			}
			return provider.ClientConfig{APIBase: fakellm.StartOpenAI(t, f), APIKey: testKey}
		},
		// A compatible client, so that it may rerank (the OpenAI API itself
		// cannot).
		Type:           openai.TypeOpenAICompatible,
		Model:          "gpt-4o-mini",
		EmbeddingModel: "text-embedding-3-small",
		RerankModel:    "jina-reranker-v2-base-multilingual",
	}.Run(t)
}
