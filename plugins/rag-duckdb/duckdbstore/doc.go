// Package duckdbstore is Coyote's default RAG store: each RAG's chunks, their
// vectors and a keyword index live in one DuckDB file, <name>.duckdb, beside
// the RAG's yaml. It implements ragstore.Store, ragstore.KeywordSearcher,
// ragstore.FileLister (each file's chunk count, which the kernel compares
// with the yaml to find what an interrupted indexing run left out) and
// ragstore.Dropper (which deletes the file, its WAL and DuckDB's spill
// directory when the RAG is deleted); the coyote-rag-duckdb plugin serves
// it.
//
// The file holds four tables: coyote_meta (layout version and vector
// dimension), chunks (a numeric key, id, file id, text, metadata as JSON,
// term count and the vector as FLOAT[dim], indexed by id once an indexing
// pass ends), vocab (each term's number) and terms (each chunk's term
// frequencies, for BM25). A writer drops the index on the ids while it
// indexes (keeping it up to date cost more than half of indexing's time)
// and keeps a hash of each id it holds instead, so an upsert of new ids
// skips the deletes that replace old ones.
// Upserts go through DuckDB's Appender into per-connection staging tables
// and are merged in one transaction, so a process killed mid-batch leaves
// the store at its last committed batch (DuckDB replays its WAL).
//
// Searches:
//   - Vector search is exact cosine over every vector, held in memory
//     (sdk/ragstore/vecindex: normalised, one contiguous []float32) and
//     scanned in Go: DuckDB's own array_cosine_similarity scan is several
//     times slower, and the vss extension cannot be installed without a
//     network. A read-only store reads the vectors once, in the background
//     from Open on, through DuckDB's C API without boxing each float;
//     searches wait for them. A read-write store reads them only when
//     searched and drops them at each write, so indexing never holds
//     them (at 100,000 × 384 that halved the plugin's peak).
//   - Keyword search is BM25 (k1 1.5, b 0.75) over the terms table; the
//     terms are sdk/ragstore/rank's (Tokenize: lower case, split on
//     anything that is not a letter or a digit). A read-only store builds
//     the same ranking in memory (rank.BM25, the kernel's too) from Open
//     on, in the background, from the stored term counts (no text is
//     read again: under a second at 100,000 chunks); until it is there,
//     and in a read-write store, BM25 runs in SQL (35–40 ms at 100,000
//     chunks, against well under one in memory).
//
// DuckDB lets one process open a file read-write, or several open it
// read-only, never both. Stores are opened read-only for queries and
// read-write only while indexing; a conflict becomes a *LockedError (which
// matches sdk.ErrUnavailable) naming the other process, at once, never a
// wait. Extension auto-install and auto-load are off, so DuckDB never
// reaches for the network; the fts and vss extensions are only probed with
// LOAD (which reads local files) and reported, not required.
//
// This package owns the .duckdb file (and DuckDB's .wal and .tmp beside
// it) and nothing else: not the yaml, not
// embeddings, not fusion.
package duckdbstore
