package bedrock_test

import (
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/internal/fakellm/scenario"
	"github.com/coyote-cli/coyote/plugins/provider-bedrock/bedrock"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// Test credentials: the fake checks the access key and region of each
// request's SigV4 credential scope.
const (
	testAccessKey = "AKIAFAKEBEDROCK00001"
	testSecretKey = "fake-secret-key-0123456789abcdefghijklmn"
	testRegion    = "us-west-2"
)

// TestConformance: the plugin passes the public provider suite, with the
// fake Bedrock runtime as its upstream (SigV4-signed requests, Converse
// JSON, ConverseStream event-stream frames, InvokeModel embeddings and
// rerank).
func TestConformance(t *testing.T) {
	providertest.Suite{
		Info: bedrock.Info,
		New:  func() provider.Provider { return bedrock.New() },
		Upstream: func(t *testing.T, sc providertest.Scenario) provider.ClientConfig {
			reply := scenario.Reply(sc)
			f := &fakellm.Bedrock{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey, Region: testRegion,
				Respond: func(*fakellm.ChatRequest) fakellm.Reply { return reply },
				RespondEmbed: func(*fakellm.EmbedCall) fakellm.Reply {
					return fakellm.Reply{Status: reply.Status, RetryAfter: reply.RetryAfter}
				}}
			return provider.ClientConfig{APIBase: fakellm.StartBedrock(t, f), APIKey: testSecretKey, Options: testOptions()}
		},
		Type:           bedrock.Type,
		Model:          "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		EmbeddingModel: "cohere.embed-english-v3",
		RerankModel:    "cohere.rerank-v3-5:0",
	}.Run(t)
}

func testOptions() map[string]any {
	return map[string]any{"access_key_id": testAccessKey, "secret_access_key": testSecretKey, "region": testRegion}
}
