package ragstore_test

import (
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// The whole main function of a store plugin. Build it as
// coyote-rag-<driver> (here coyote-rag-memory) and put it in a plugin
// directory; a RAG whose file says `driver: memory` then uses it. The
// reference store stands in for the plugin's own ragstore.Store, which
// usually lives in a package of its own (and implements
// ragstore.KeywordSearcher when the backend ranks words itself; Plugin
// announces that). Test it with storetest.Run.
func ExamplePlugin() {
	store := storetest.Reference()
	sdk.Serve(sdk.Info{
		Name:         "memory",
		Version:      "0.1.0",
		Description:  "RAG chunks held in memory",
		Capabilities: []string{ragstore.CapOwned},
	}, ragstore.Plugin(store))
}
