package yamlstore

import (
	"cmp"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// writeFiles does the kernel's share of an indexing pass: it writes the
// chunks' text into the RAG file's files section, beside the vectors the
// store wrote.
func writeFiles(t *testing.T, req *ragstore.OpenRequest, chunks []ragstore.Chunk) {
	t.Helper()
	var doc map[string]any
	if data, err := os.ReadFile(req.Path); err == nil {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
	}
	if doc == nil {
		doc = map[string]any{}
	}
	slices.SortFunc(chunks, func(a, b ragstore.Chunk) int {
		af, ad, _ := rank.ParseChunkID(a.ID)
		bf, bd, _ := rank.ParseChunkID(b.ID)
		return cmp.Or(cmp.Compare(af, bf), cmp.Compare(ad, bd))
	})
	files := map[string]map[string]any{}
	for _, c := range chunks {
		fileID, idx, _ := strings.Cut(c.ID, "-")
		f := files[fileID]
		if f == nil {
			f = map[string]any{"path": c.Metadata["source"], "hash": "h", "documents": []any{}}
			files[fileID] = f
		}
		docs := f["documents"].([]any)
		if n, _ := strconv.Atoi(idx); n != len(docs) {
			t.Fatalf("chunk %s out of order", c.ID)
		}
		f["documents"] = append(docs, map[string]any{"page_content": c.Text, "metadata": c.Metadata})
	}
	doc["files"] = files
	out, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(req.Path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestContract(t *testing.T) {
	s := storetest.Suite{
		Open:          func(*testing.T) ragstore.Store { return New() },
		AfterIndexing: writeFiles,
	}
	s.Run(t)
	s.RunGRPC(t)
}
