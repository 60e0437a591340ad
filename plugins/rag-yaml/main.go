// Command coyote-rag-yaml is Coyote's store plugin for RAGs kept in the
// original's format: the vectors inside rags/<name>.yaml. The kernel
// starts it for `driver: yaml` (and for RAG files that name no driver);
// see package yamlstore.
package main

import (
	"github.com/coyote-cli/coyote/plugins/rag-yaml/yamlstore"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func main() {
	sdk.Serve(sdk.Info{
		Name:         "yaml",
		Version:      "0.1.0",
		Description:  "RAG vectors in the RAG's own yaml file, searched exactly in memory (the original's format)",
		Capabilities: []string{ragstore.CapOwned},
	}, ragstore.Plugin(yamlstore.New()))
}
