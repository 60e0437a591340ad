// Command coyote-provider-claude is Coyote's provider plugin for Anthropic's
// Messages API (client type "claude"). The kernel starts it; see package
// claude.
package main

import (
	"github.com/coyote-cli/coyote/plugins/provider-claude/claude"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	sdk.Serve(claude.Info, provider.Plugin(claude.New()))
}
