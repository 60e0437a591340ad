// Command coyote-provider-echo is a complete third-party provider plugin: it
// answers every prompt by echoing it back, word by word. Build it with
//
//	go build -o ~/.config/coyote/plugins/coyote-provider-echo .
//
// and add `clients: [{type: echo, models: [{name: parrot}]}]` to config.yaml.
package main

import (
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	sdk.Serve(sdk.Info{Name: "echo", Version: "0.1.0", Description: "echoes the prompt back"},
		provider.Plugin(&echo{}))
}
