// Command coyote-rag-duckdb is Coyote's default RAG store plugin: each RAG's
// chunks, vectors and keyword index in one DuckDB file beside its yaml. The
// kernel starts it; see package duckdbstore.
package main

import (
	"github.com/coyote-cli/coyote/plugins/rag-duckdb/duckdbstore"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func main() {
	privateFiles()
	sdk.Serve(sdk.Info{
		Name:         "duckdb",
		Version:      duckdbstore.Version,
		Description:  "RAG store in a DuckDB file beside the RAG: exact cosine search and BM25 keyword search in memory",
		Capabilities: []string{ragstore.CapOwned},
	}, ragstore.Plugin(duckdbstore.New()))
}
