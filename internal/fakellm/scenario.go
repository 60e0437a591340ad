package fakellm

import (
	"strconv"
	"time"

	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// FromScenario is the Reply that acts out a scenario of the provider
// conformance suite (sdk/provider/providertest): the fakes of this
// package are the upstreams of Coyote's own provider plugins there.
func FromScenario(sc providertest.Scenario) Reply {
	r := Reply{Text: sc.Text, Status: sc.Status}
	for _, c := range sc.ToolCalls {
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	if sc.Usage != nil {
		r.Usage = &Usage{PromptTokens: int(sc.Usage.InputTokens), CompletionTokens: int(sc.Usage.OutputTokens)}
	}
	if sc.RetryAfter > 0 {
		r.RetryAfter = strconv.Itoa(int(sc.RetryAfter / time.Second))
	}
	r.Stall = sc.Hang
	return r
}
