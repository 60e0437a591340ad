// Command coyote-provider-openai is Coyote's provider plugin for the OpenAI
// chat-completions API, OpenAI-compatible servers and Azure OpenAI (client
// types "openai", "openai-compatible" and "azure-openai", the latter two
// served through links to this binary named after them). The kernel starts
// it; see package openai.
package main

import (
	"github.com/coyote-cli/coyote/plugins/provider-openai/openai"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	sdk.Serve(openai.Info, provider.Plugin(openai.New()))
}
