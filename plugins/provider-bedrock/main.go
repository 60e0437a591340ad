// Command coyote-provider-bedrock is Coyote's provider plugin for Amazon
// Bedrock (client type "bedrock"). The kernel starts it; see package
// bedrock.
package main

import (
	"github.com/coyote-cli/coyote/plugins/provider-bedrock/bedrock"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	sdk.Serve(bedrock.Info, provider.Plugin(bedrock.New()))
}
