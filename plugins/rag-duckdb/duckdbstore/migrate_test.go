package duckdbstore

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// writeV1Store writes a store in layout 1, as the plugin wrote it before
// the term counts moved onto the chunks' rows: a terms table (with the
// terms of a deleted chunk, as a writer left them until Rebuild), an
// orphans mark, the index on the ids and the token of a vector file. It returns the kernel's BM25 over the live chunks.
func writeV1Store(t *testing.T, dir string, texts map[string]string) *rank.BM25 {
	t.Helper()
	conn, err := duckdb.NewConnector(filepath.Join(dir, "docs.duckdb"), nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE TABLE coyote_meta(key VARCHAR NOT NULL, value VARCHAR NOT NULL)")
	exec("INSERT INTO coyote_meta VALUES ('schema', '1'), ('dimension', '2'), ('orphans', '1'), ('vecfile', 'layout-1-token')")
	exec(`CREATE TABLE chunks(key BIGINT NOT NULL, id VARCHAR NOT NULL, file_id VARCHAR NOT NULL, text VARCHAR NOT NULL,
		metadata VARCHAR NOT NULL, length INTEGER NOT NULL, embedding FLOAT[2] NOT NULL)`)
	exec("CREATE TABLE terms(key BIGINT NOT NULL, tid INTEGER NOT NULL, tf INTEGER NOT NULL, length INTEGER NOT NULL)")
	exec("CREATE TABLE vocab(term VARCHAR NOT NULL, tid INTEGER NOT NULL)")
	vocab := map[string]int{}
	kernel := rank.NewBM25()
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range texts {
			if !yield(id) {
				return
			}
		}
	})
	// The last key is a chunk deleted after its terms were written.
	ids = append(ids, "gone-0")
	for key, id := range ids {
		text := texts[id]
		if id == "gone-0" {
			text = "orphan words orphan"
		}
		terms := rank.Tokenize(text)
		tf := map[string]int{}
		for _, w := range terms {
			tf[w]++
		}
		for w, n := range tf {
			if _, ok := vocab[w]; !ok {
				vocab[w] = len(vocab) + 1
				exec("INSERT INTO vocab VALUES ($1, $2)", w, vocab[w])
			}
			exec("INSERT INTO terms VALUES ($1, $2, $3, $4)", key+1, vocab[w], n, len(terms))
		}
		if id == "gone-0" {
			continue
		}
		exec("INSERT INTO chunks VALUES ($1, $2, $3, $4, '{}', $5, [1, 0]::FLOAT[2])", key+1, id, id[:1], text, len(terms))
		kernel.AddFile(id, []rank.Passage{{ID: id, Text: text}})
	}
	exec(createIDIndex)
	return kernel
}

// TestALayout1StoreIsUpgradedInPlace: a store written before the term
// counts moved onto the chunks' rows opens, read-only or to index, as a
// store of this layout holding the same chunks, ranked as the kernel's
// BM25 ranks them, without embedding anything again; the old terms table
// is gone.
func TestALayout1StoreIsUpgradedInPlace(t *testing.T) {
	texts := map[string]string{
		"a-0": "The quick brown fox jumps over the lazy dog",
		"b-0": "A fox, a fox! Foxes everywhere; the fox den.",
		"c-0": "",
		"d-0": "brown bread, brown rice, brown sugar",
	}
	queries := []string{"fox", "brown lazy", "orphan", "the"}
	for _, mode := range []ragstore.Mode{ragstore.ReadOnly, ragstore.ReadWrite} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			dir := t.TempDir()
			kernel := writeV1Store(t, dir, texts)
			d := New()
			resp := open(t, d, dir, "docs", mode, 0)
			if resp.Stats.Chunks != 4 || resp.Stats.Dimension != 2 {
				t.Fatalf("stats after the upgrade: %+v", resp.Stats)
			}
			for _, q := range queries {
				sameHits(t, "upgraded", q, ksearch(t, d, "docs", q, 10), kernel.Search(q, 10))
			}
			if hits := vsearch(t, d, "docs", 4, -1, 1, 0); len(hits) != 4 {
				t.Errorf("vector search after the upgrade: %v", hits)
			}
			s, _ := d.get("docs")
			var version string
			var tables int
			if err := s.db.QueryRow(`SELECT (SELECT value FROM coyote_meta WHERE key = 'schema'),
				(SELECT count(*) FROM duckdb_tables() WHERE table_name = 'terms')`).Scan(&version, &tables); err != nil {
				t.Fatal(err)
			}
			if version != schemaVersion || tables != 0 {
				t.Errorf("after the upgrade: layout %q, %d terms tables", version, tables)
			}
			if mode == ragstore.ReadOnly {
				// The upgrade wrote the vector file with its keyword
				// index, as Rebuild would have.
				if from := keywordsFrom(t, d, "docs"); from != "file" {
					t.Errorf("keyword searches after the upgrade answered from %s, want the vector file", from)
				}
			}
			if mode == ragstore.ReadWrite {
				upsert(t, d, "docs", chunk("e", 0, "fox fox fox", 0, 1))
				if got := ids(ksearch(t, d, "docs", "fox", 1)); !slices.Equal(got, []string{"e-0"}) {
					t.Errorf("an upsert after the upgrade: %v", got)
				}
			}
		})
	}
}
