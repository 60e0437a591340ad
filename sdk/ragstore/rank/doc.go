// Package rank is the keyword ranking that the Coyote kernel and its RAG
// stores share: the tokenizer, an in-memory BM25 index, and the order of
// chunk ids that settles ties. A store plugin uses it to search keywords
// exactly as the kernel would, so that switching drivers does not change
// which chunks a question finds.
//
// # Chunk ids
//
// Every chunk the kernel indexes has the id "<file id>-<chunk index>"
// (ChunkID); file 3's first chunk is "3-0". CompareChunkIDs orders them
// numerically, so "8-0" comes before "10-0".
//
// # Keyword search in a store
//
// A store without a keyword index of its own needs none of this: the
// kernel ranks keywords itself. A store that announces the keyword-search
// capability (ragstore.CapKeywordSearch) and keeps its chunks in memory
// can answer from a BM25 index:
//
//	idx := rank.NewBM25()
//	// On Upsert, a file's chunks at a time (replacing what it had):
//	idx.AddFile("3", []rank.Passage{{ID: "3-0", Text: "the cat sat"}})
//	// On DeleteFile:
//	idx.RemoveFile("3")
//	// On KeywordSearch:
//	hits := idx.Search(req.Query, req.TopK) // best first, ties in chunk id order
//
// A store that keeps its index on disk can lay it out as FrozenParts
// (chunk lengths, sorted terms, each term's postings) and answer from a
// FrozenBM25 over a mapping of it, at once and without loading it: the
// scoring is BM25's own code, so the hits and scores are the same.
//
// A store with its own full-text index (a database's) can still use
// Tokenize, BM25K1 and BM25B to score with the same words and parameters,
// and CompareChunkIDs to break ties.
//
// The package has no dependencies beyond the standard library and
// sdk/ragstore's types, and nothing in it runs at start-up.
package rank
