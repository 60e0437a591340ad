// Command coyote-provider-gemini is Coyote's provider plugin for Google's
// Gemini API (the Generative Language API, client type "gemini"). The
// kernel starts it; see package gemini.
package main

import (
	"github.com/coyote-cli/coyote/plugins/provider-gemini/gemini"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	sdk.Serve(gemini.Info, provider.Plugin(gemini.New()))
}
