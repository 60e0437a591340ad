// Package scenario acts out the scenarios of the provider conformance
// suite (sdk/provider/providertest) with the fakes of internal/fakellm,
// which are the upstreams of Coyote's own provider plugins there. It is
// for tests only: it imports providertest, and with it go-plugin and
// gRPC, which package fakellm (linked into cmd/fakellm and
// internal/bench) must not.
package scenario

import (
	"strconv"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// Reply is the fakellm.Reply that acts out sc.
func Reply(sc providertest.Scenario) fakellm.Reply {
	r := fakellm.Reply{Text: sc.Text, Status: sc.Status}
	for _, c := range sc.ToolCalls {
		r.ToolCalls = append(r.ToolCalls, fakellm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	if sc.Usage != nil {
		r.Usage = &fakellm.Usage{PromptTokens: int(sc.Usage.InputTokens), CompletionTokens: int(sc.Usage.OutputTokens)}
	}
	if sc.RetryAfter > 0 {
		r.RetryAfter = strconv.Itoa(int(sc.RetryAfter / time.Second))
	}
	r.Stall = sc.Hang
	return r
}
