// Command coyote-sandbox is the sandbox launcher plugin: it runs Coyote,
// or one tool call, inside bubblewrap, a Docker or Podman container, or
// one of Docker's sbx sandboxes (package launcher).
package main

import (
	"github.com/coyote-cli/coyote/plugins/sandbox/launcher"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/sandbox"
)

const version = "0.1.0"

func main() {
	sdk.Serve(sdk.Info{
		Name:        "sandbox",
		Version:     version,
		Description: "the sandbox launcher: bwrap, docker, podman and sbx backends",
	}, sandbox.Plugin(launcher.New(launcher.Options{})))
}
