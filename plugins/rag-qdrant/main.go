// Command coyote-rag-qdrant is Coyote's RAG store plugin for Qdrant
// (driver "qdrant"): it attaches to an existing collection, query only, or
// keeps a Coyote-owned one that a team can share. The kernel starts it; see
// package qdrantstore.
package main

import (
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantstore"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// info is what the plugin says of itself in Describe. It announces no
// keyword search: Qdrant's text index filters but does not rank, so the
// kernel's BM25 ranks keywords.
var info = sdk.Info{
	Name:         "qdrant",
	Version:      qdrantstore.Version,
	Description:  "RAG chunks in a Qdrant collection: attach to an existing one (query only) or keep a Coyote-owned one",
	Capabilities: []string{ragstore.CapAttach, ragstore.CapOwned},
}

func main() {
	sdk.Serve(info, ragstore.Plugin(qdrantstore.New()))
}
