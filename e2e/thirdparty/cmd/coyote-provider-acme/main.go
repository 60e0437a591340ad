// Command coyote-provider-acme is a third party's provider plugin: clients
// of `type: acme` talk to the Acme chat API.
package main

import (
	"example.com/coyote-thirdparty/acme"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	sdk.Serve(acme.Info, provider.Plugin(acme.New()))
}
