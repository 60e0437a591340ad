package acme_test

import (
	"net/http/httptest"
	"testing"

	"example.com/coyote-thirdparty/acme"
	"example.com/coyote-thirdparty/acme/acmefake"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// TestConformance: the provider passes the SDK's public suite against the
// fake Acme API.
func TestConformance(t *testing.T) {
	providertest.Suite{
		Info:  acme.Info,
		New:   func() provider.Provider { return acme.New() },
		Model: "acme-1",
		Upstream: func(t *testing.T, sc providertest.Scenario) provider.ClientConfig {
			reply := acmefake.Reply{Text: sc.Text, Status: sc.Status, RetryAfter: sc.RetryAfter, Hang: sc.Hang}
			for _, c := range sc.ToolCalls {
				reply.ToolCalls = append(reply.ToolCalls, acmefake.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			}
			if sc.Usage != nil {
				reply.Usage = &acmefake.Usage{Input: sc.Usage.InputTokens, Output: sc.Usage.OutputTokens}
			}
			fake := &acmefake.Server{APIKey: "acme-key-0123456789", Respond: func(*acmefake.Request) acmefake.Reply { return reply }}
			srv := httptest.NewServer(fake)
			t.Cleanup(srv.Close)
			return provider.ClientConfig{APIBase: srv.URL, APIKey: "acme-key-0123456789"}
		},
	}.Run(t)
}
