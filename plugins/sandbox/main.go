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
	l := launcher.New(launcher.Options{})
	// However the plugin ends, its kernel's run directory (the credential
	// proxy's socket) goes with it.
	sdk.OnExit(l.Cleanup)
	sdk.Serve(sdk.Info{
		Name:        "sandbox",
		Version:     version,
		Description: "the sandbox launcher: bwrap, docker, podman and sbx backends",
	}, sandbox.Plugin(l))
}
