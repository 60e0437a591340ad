package rag

import "github.com/coyote-cli/coyote/sdk/ragstore/rank"

// IndexFile returns a keyword index (rank.BM25, the one the stores use
// too) of every chunk of a RAG file, decoding its files first after
// LoadSettings. The kernel ranks keywords with it for a store that has no
// keyword search of its own.
func IndexFile(f *File) (*rank.BM25, error) {
	if err := f.LoadFiles(); err != nil {
		return nil, err
	}
	x := rank.NewBM25()
	for _, id := range f.fileIDs() {
		fe := f.Files[id]
		ps := make([]rank.Passage, len(fe.Documents))
		for i, d := range fe.Documents {
			ps[i] = rank.Passage{ID: rank.ChunkID(id, i), Text: d.PageContent}
		}
		x.AddFile(fileKey(id), ps)
	}
	return x, nil
}
