package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantfake"
)

// ragFiles lists rags/kb.yaml and every rags/kb.duckdb* that exists.
func ragFiles(t *testing.T, rags string) []string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(rags, "kb.duckdb*"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(rags, "kb.yaml")); err == nil {
		found = append(found, filepath.Join(rags, "kb.yaml"))
	}
	for i := range found {
		found[i] = filepath.Base(found[i])
	}
	return found
}

// TestDeleteRAGRemovesItsDuckDBStore builds a DuckDB RAG, then deletes it
// in the REPL: refused while it is active here, refused while another
// coyote has it open (saying so), and once free the DuckDB plugin removes
// its store (database, WAL, spill directory) before the yaml goes.
func TestDeleteRAGRemovesItsDuckDBStore(t *testing.T) {
	e, file, _ := ragEnv(t, answering("answered"))
	setDriver(t, file, "duckdb")
	e.mustSucceed(e.run("", "--rag", "kb", "--rebuild-rag"))
	rags := filepath.Dir(file)
	// What an indexing run killed while DuckDB spilled leaves behind.
	if err := os.MkdirAll(filepath.Join(rags, "kb.duckdb.tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rags, "kb.duckdb.tmp", "spill.block"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := ragFiles(t, rags)
	if len(before) < 3 {
		t.Fatalf("after the build: %v", before)
	}
	const ragPrompt = "fake:gpt-4o-mini)@kb> "

	p := e.startREPL()
	p.enter(".rag kb", ragPrompt)
	p.enter(".delete rag", "Delete which")
	p.enter("1", "kb is in use: leave it first (.exit rag", ragPrompt)
	if got := ragFiles(t, rags); len(got) != len(before) {
		t.Fatalf("a refused delete removed files: %v, before %v", got, before)
	}

	// Another coyote holds the store open (read-only, querying).
	other := e.startREPL()
	other.enter(".rag kb", ragPrompt)
	p.enter(".exit rag", replPrompt)
	p.enter(".delete rag", "Delete which")
	p.enter("1", "RAG kb is open in another coyote process (PID ", "it can be deleted once that process has closed it", replPrompt)
	if got := ragFiles(t, rags); len(got) != len(before) {
		t.Fatalf("a delete refused for a lock removed files: %v, before %v", got, before)
	}
	other.enter(".exit rag", replPrompt)
	other.exit()

	p.enter(".delete rag", "Delete which")
	p.enter("1", "Deleted kb", replPrompt)
	p.exit()
	if got := ragFiles(t, rags); len(got) != 0 {
		t.Fatalf("after .delete rag: %v", got)
	}
}

// TestDeleteRAGDropsAnOwnedQdrantCollectionOnly: deleting a Coyote-owned
// Qdrant RAG deletes its collection on the server (the in-process fake,
// reached by the real coyote-rag-qdrant binary); deleting an attached RAG
// removes only its yaml, never the collection, which is someone else's.
func TestDeleteRAGDropsAnOwnedQdrantCollectionOnly(t *testing.T) {
	e, file, _ := ragEnv(t, answering("answered"))
	srv := qdrantfake.Start(t)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	owned := strings.Replace(string(data), "driver: yaml\n", "driver: qdrant\ndriver_config:\n  host: "+srv.URL()+"\n", 1)
	if err := os.WriteFile(file, []byte(owned), 0o644); err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(e.run("", "--rag", "kb", "--rebuild-rag"))
	if n := srv.Count("kb"); n < 3 {
		t.Fatalf("the owned collection holds %d points after the build", n)
	}
	dims := fakellm.DefaultEmbedDims
	srv.AddCollection("docs", qdrantfake.CollectionConfig{Dimension: dims})
	srv.AddPoint("docs", 1, fakellm.FakeVector("Herons fish.", dims), map[string]any{"page_content": "Herons fish."})
	ext := filepath.Join(filepath.Dir(file), "ext.yaml")
	attached := fmt.Sprintf("driver: qdrant\nattached: true\nembedding_model: fake:embed\ntop_k: 3\ndriver_config:\n  host: %s\n  collection: docs\n", srv.URL())
	if err := os.WriteFile(ext, []byte(attached), 0o644); err != nil {
		t.Fatal(err)
	}

	p := e.startREPL()
	p.enter(".delete rag", "1  ext", "2  kb", "Delete which")
	p.enter("1 2", "Deleted ext", "Deleted kb", replPrompt)
	p.exit()
	if _, ok := srv.Collection("kb"); ok {
		t.Fatal("the owned RAG's collection outlived .delete rag")
	}
	if srv.Count("docs") != 1 {
		t.Fatal("deleting the attached RAG touched its collection")
	}
	for _, f := range []string{file, ext} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("%s after .delete rag: %v", filepath.Base(f), err)
		}
	}
}
