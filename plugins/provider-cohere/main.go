// Command coyote-provider-cohere is Coyote's provider plugin for Cohere's
// v2 API (client type "cohere"): chat, embeddings and rerank. The kernel
// starts it; see package cohere.
package main

import (
	"github.com/coyote-cli/coyote/plugins/provider-cohere/cohere"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	sdk.Serve(cohere.Info, provider.Plugin(cohere.New()))
}
