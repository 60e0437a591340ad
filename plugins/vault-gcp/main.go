// Command coyote-vault-gcp is Coyote's secrets provider plugin for Google
// Cloud Secret Manager (secrets_provider type gcp_secret_manager). The
// kernel starts it; see package gsm.
package main

import (
	"github.com/coyote-cli/coyote/plugins/vault-gcp/gsm"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

func main() {
	sdk.Serve(gsm.Info, vault.Plugin(gsm.New()))
}
