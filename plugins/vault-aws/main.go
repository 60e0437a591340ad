// Command coyote-vault-aws is Coyote's secrets provider plugin for AWS
// Secrets Manager (secrets_provider type aws_secrets_manager). The kernel
// starts it; see package awssm.
package main

import (
	"github.com/coyote-cli/coyote/plugins/vault-aws/awssm"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

func main() {
	sdk.Serve(awssm.Info, vault.Plugin(awssm.New()))
}
