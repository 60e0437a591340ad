// Command garbage is a test plugin that prints a debug line to stdout
// before its handshake, the classic mistake a plugin author makes.
package main

import (
	"fmt"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	fmt.Println("starting up, please wait...")
	sdk.Serve(sdk.Info{Name: "garbage", Version: "0.0.1"}, provider.Plugin(nil))
}
