// Command coyote-vault-1password is Coyote's secrets provider plugin for
// 1Password (secrets_provider type one_password), through the op
// command-line tool. The kernel starts it; see package onepassword.
package main

import (
	"github.com/coyote-cli/coyote/plugins/vault-1password/onepassword"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

func main() {
	sdk.Serve(onepassword.Info, vault.Plugin(onepassword.New()))
}
