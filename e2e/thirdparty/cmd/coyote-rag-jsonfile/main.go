// Command coyote-rag-jsonfile is a third party's RAG store plugin: RAGs
// with `driver: jsonfile` keep their chunks in a JSON file.
package main

import (
	"example.com/coyote-thirdparty/jsonstore"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func main() {
	sdk.Serve(jsonstore.Info, ragstore.Plugin(jsonstore.New()))
}
