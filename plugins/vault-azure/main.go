// Command coyote-vault-azure is Coyote's secrets provider plugin for Azure
// Key Vault (secrets_provider type azure_key_vault). The kernel starts
// it; see package akv.
package main

import (
	"github.com/coyote-cli/coyote/plugins/vault-azure/akv"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

func main() {
	sdk.Serve(akv.Info, vault.Plugin(akv.New()))
}
