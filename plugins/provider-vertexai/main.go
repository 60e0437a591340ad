// Command coyote-provider-vertexai is Coyote's provider plugin for Google
// Cloud's Vertex AI (client type "vertexai"): Gemini and Claude models and
// text embeddings. The kernel starts it; see package vertexai.
package main

import (
	"github.com/coyote-cli/coyote/plugins/provider-vertexai/vertexai"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	sdk.Serve(vertexai.Info, provider.Plugin(vertexai.New()))
}
