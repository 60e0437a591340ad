// Command coyote-provider-openai is Coyote's provider plugin for the OpenAI
// chat-completions API and OpenAI-compatible servers (client types "openai"
// and "openai-compatible"). The kernel starts it; see package openai.
package main

import (
	"github.com/coyote-cli/coyote/plugins/provider-openai/openai"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	sdk.Serve(openai.Info, provider.Plugin(openai.New()))
}
