package e2e

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2" // the database/sql driver, to turn a store back into layout 1

	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// TestALayout1DuckDBRAGIsUpgradedWithoutEmbeddingAgain: a DuckDB RAG
// whose store an earlier Coyote wrote (layout 1: the term counts in a
// table of their own, no keyword index in the vector file) answers the
// next question through the real binaries from its chunks as they are:
// only the question is embedded, nothing is said about the RAG, and the
// store is of this version's layout afterwards.
func TestALayout1DuckDBRAGIsUpgradedWithoutEmbeddingAgain(t *testing.T) {
	fake := answering("answered")
	e, file, _ := ragEnv(t, fake)
	setDriver(t, file, "duckdb")
	e.mustSucceed(e.run("", "--rag", "kb", "--rebuild-rag"))
	store := filepath.Join(filepath.Dir(file), "kb.duckdb")
	toLayout1(t, store)

	embeds := len(fake.EmbedRequests())
	r := e.run("", "--rag", "kb", "which", "animal", "has", "stripes?")
	e.mustSucceed(r)
	if r.stderr != "" {
		t.Fatalf("the first question after the upgrade said:\n%s", r.stderr)
	}
	if n := len(fake.EmbedRequests()) - embeds; n != 1 {
		t.Fatalf("%d embedding calls for the first question after the upgrade, want 1 (the question's)", n)
	}
	reqs := fake.Requests()
	sent := reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1]["content"]
	if s, _ := sent.(string); !strings.Contains(s, "Zebras have black and white stripes") {
		t.Fatalf("the question was not given the RAG's passage:\n%v", sent)
	}
	db, err := sql.Open("duckdb", store+"?access_mode=READ_ONLY")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var layout string
	var termTables int
	if err := db.QueryRow(`SELECT (SELECT value FROM coyote_meta WHERE key = 'schema'),
		(SELECT count(*) FROM duckdb_tables() WHERE table_name = 'terms')`).Scan(&layout, &termTables); err != nil {
		t.Fatal(err)
	}
	if layout != "2" || termTables != 0 {
		t.Fatalf("after the first question the store has layout %q and %d terms tables, want layout 2 and none", layout, termTables)
	}
}

// toLayout1 rewrites a store of layout 2 as the DuckDB plugin of layout 1
// left it: each chunk's term counts (rank.Tokenize's, numbered by vocab)
// as rows of a terms table, no terms column, no vector file.
func toLayout1(t *testing.T, store string) {
	t.Helper()
	db, err := sql.Open("duckdb", store)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	vocab := map[string]int32{}
	rows, err := db.Query("SELECT term, tid FROM vocab")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var term string
		var tid int32
		if err := rows.Scan(&term, &tid); err != nil {
			t.Fatal(err)
		}
		vocab[term] = tid
	}
	rows.Close()
	type chunk struct {
		key  int64
		text string
	}
	var chunks []chunk
	rows, err = db.Query("SELECT key, text FROM chunks")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c chunk
		if err := rows.Scan(&c.key, &c.text); err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, c)
	}
	rows.Close()
	exec("CREATE TABLE terms(key BIGINT NOT NULL, tid INTEGER NOT NULL, tf INTEGER NOT NULL, length INTEGER NOT NULL)")
	for _, c := range chunks {
		words := rank.Tokenize(c.text)
		tf := map[string]int{}
		for _, w := range words {
			tf[w]++
		}
		for w, n := range tf {
			tid, ok := vocab[w]
			if !ok {
				t.Fatalf("term %q of chunk %d is not in the vocabulary", w, c.key)
			}
			exec("INSERT INTO terms VALUES ($1, $2, $3, $4)", c.key, tid, n, len(words))
		}
	}
	exec("DROP INDEX IF EXISTS chunks_id")
	exec("ALTER TABLE chunks DROP COLUMN terms")
	exec("CREATE INDEX chunks_id ON chunks(id)")
	exec("UPDATE coyote_meta SET value = '1' WHERE key = 'schema'")
	exec("DELETE FROM coyote_meta WHERE key = 'vecfile'")
	exec("CHECKPOINT")
	if err := os.Remove(store + ".vec"); err != nil {
		t.Fatal(err)
	}
}
