// Package duckdbstore is Coyote's default RAG store: each RAG's chunks, their
// vectors and a keyword index live in one DuckDB file, <name>.duckdb, beside
// the RAG's yaml. It implements ragstore.Store, ragstore.KeywordSearcher,
// ragstore.FileLister (each file's chunk count, which the kernel compares
// with the yaml to find what an interrupted indexing run left out) and
// ragstore.Dropper (which deletes the file, its WAL and DuckDB's spill
// directory when the RAG is deleted); the coyote-rag-duckdb plugin serves
// it.
//
// The file holds three tables: coyote_meta (layout version and vector
// dimension), chunks (a numeric key, id, file id, text, metadata as JSON,
// term count, the vector as FLOAT[dim] and the chunk's term frequencies
// as a blob, terms.go; indexed by id once an indexing pass ends) and vocab
// (each term's number). A writer drops the index on the ids while it
// indexes (keeping it up to date cost more than half of indexing's time)
// and keeps a hash of each id it holds instead, so an upsert of new ids
// skips the deletes that replace old ones. Upserts are appended through
// DuckDB's C API, a data chunk at a time, straight into chunks and vocab
// in one transaction (the writer numbers new terms itself, holding vocab
// in memory), so a process killed mid-batch leaves the store at its last
// committed batch (DuckDB replays its WAL). A writer lets 160MB of WAL
// gather between checkpoints. A file of layout 1, whose term counts were
// rows of a terms table, is migrated in place when first opened
// (migrate.go).
//
// Searches:
//   - Vector search is cosine over every vector, scanned in Go: DuckDB's
//     own array_cosine_similarity scan is several times slower, and the
//     vss extension cannot be installed without a network. Rebuild, which
//     ends every indexing pass, writes the vector file <name>.duckdb.vec
//     beside the database (vecfile.go): int8 codes of the normalised
//     vectors, the exact float32 ones and the ids. A read-only store maps
//     it at Open and answers at once (sdk/ragstore/vecindex.Quantised:
//     the codes scanned, the best max(8k, 64) rescored exactly from the
//     file, recall@10 1.0 at 100,000 chunks); only the codes become
//     resident. When the file is missing or is not the store's current
//     one (a token in coyote_meta, removed by each writer before its
//     first change, says which), the reader loads every vector from
//     DuckDB in the background instead, through its C API, and scans
//     them exactly (vecindex.Index). A read-write store reads them only
//     when searched and drops them at each write, so indexing never holds
//     them.
//   - Keyword search is BM25 (k1 1.5, b 0.75; sdk/ragstore/rank's
//     formula, tokenizer and tie order, the kernel's too). Rebuild writes
//     the index into the vector file (kwfile.go): each chunk's length,
//     the terms sorted, each term's postings numbered as the vector rows,
//     counted first and then placed a range of terms at a time, so the
//     write never holds them all (100,000 chunks: 10.3M postings). A
//     read-only store whose file is current answers from it at once
//     (rank.FrozenBM25 over the mapping, about a millisecond at 100,000
//     chunks). Otherwise the index is built in memory (rank.BM25) from the
//     stored term counts, so no text is read again (a fraction of a second
//     at 100,000 chunks): by a read-only store from Open on, in the
//     background, and by a read-write one when first searched, dropped at
//     each write (kwmem.go). Searches wait for it.
//
// DuckDB lets one process open a file read-write, or several open it
// read-only, never both. Stores are opened read-only for queries and
// read-write only while indexing; a conflict becomes a *LockedError (which
// matches sdk.ErrUnavailable) naming the other process, at once, never a
// wait. Extension auto-install and auto-load are off, so DuckDB never
// reaches for the network; the fts and vss extensions are only probed with
// LOAD (which reads local files) and reported, not required.
//
// This package owns the .duckdb file (and DuckDB's .wal and .tmp, and its
// own .vec, beside it) and nothing else: not the yaml, not
// embeddings, not fusion.
package duckdbstore
