// Command coyote-vault-gopass is Coyote's secrets provider plugin for
// gopass (secrets_provider type gopass). The kernel starts it; see package
// gopass.
package main

import (
	"github.com/coyote-cli/coyote/plugins/vault-gopass/gopass"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

func main() {
	sdk.Serve(gopass.Info, vault.Plugin(gopass.New()))
}
