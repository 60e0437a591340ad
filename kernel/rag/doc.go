// Package rag owns a RAG in the kernel: its file, splitting, keyword
// ranking and fusion — the pure parts the REPL and CLI wiring call.
//
//   - The RAG file, rags/<name>.yaml, in the original program's format
//     (File, Load, LoadSettings, Save, Validate). Keys the kernel does not
//     know are kept and written back; the vectors section belongs to the
//     yaml store and is kept byte for byte, never decoded here (the store
//     reads and rewrites it with sdk/ragstore/ragfile, whose line scan
//     this package shares to set it aside).
//   - Documents for indexing: LoadSources reads document_paths through
//     kernel/input with a stable path and the sha256 of each text;
//     MakePlan says which files a re-sync keeps, adds (split into chunks
//     "<file id>-<index>") and drops.
//   - Splitter: a recursive character splitter with separators per
//     language, whose chunks tile the text.
//   - IndexFile: keyword ranking (sdk/ragstore/rank's BM25, the one the
//     stores use) for stores without their own.
//   - Fuse: weighted reciprocal rank fusion of the vector and keyword
//     rankings.
//   - Render: the rag_template with __CONTEXT__, __SOURCES__, __INPUT__.
//   - RAG.Index and RAG.Search, over a store plugin; CheckStore and Resume
//     find and complete what an indexing run that did not finish left
//     (Index records a run in the file before it writes the store), under
//     the RAG's indexing lock (LockIndexing).
//
// The package makes no model call (embeddings and reranking go through the
// provider plugins) and holds no store (chunks and vectors live in a store
// plugin, sdk/ragstore). Only LoadSources, Load, LoadSettings, Save and
// LockIndexing touch the outside world: files, URLs and loader commands
// the user named, and the RAG's own file and its lock file.
package rag
