package claude_test

import (
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/internal/fakellm/scenario"
	"github.com/coyote-cli/coyote/plugins/provider-claude/claude"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// TestConformance: the plugin passes the public provider suite, with the
// fake Anthropic API as its upstream.
func TestConformance(t *testing.T) {
	providertest.Suite{
		Info: claude.Info,
		New:  func() provider.Provider { return claude.New() },
		Upstream: func(t *testing.T, sc providertest.Scenario) provider.ClientConfig {
			reply := scenario.Reply(sc)
			f := &fakellm.Anthropic{APIKey: testKey, Respond: func(*fakellm.ChatRequest) fakellm.Reply { return reply }}
			return provider.ClientConfig{APIBase: fakellm.StartAnthropic(t, f), APIKey: testKey}
		},
		Type:  claude.Type,
		Model: "claude-sonnet-4-5",
	}.Run(t)
}
