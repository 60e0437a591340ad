package rag

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/kernel/input"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// Embedder embeds texts with the RAG's embedding model (inputType is
// provider.InputQuery or provider.InputDocument).
type Embedder func(ctx context.Context, texts []string, inputType string) ([][]float32, error)

// Reranker scores documents against a query, best first; it returns the
// documents' indexes.
type Reranker func(ctx context.Context, query string, docs []string, topN int) ([]int, error)

// RAG is an open RAG: its file, its store, and the models it uses.
type RAG struct {
	Name string
	File *File
	// Store is the driver's plugin, with the store opened under Name.
	Store ragstore.Store
	// Keyword is set when the store ranks keywords itself.
	Keyword ragstore.KeywordSearcher
	// Lister is set when the store lists its files (ragstore.CapListFiles),
	// which CheckStore compares with the file.
	Lister ragstore.FileLister
	Embed  Embedder
	// Rerank is nil without a reranker_model.
	Rerank Reranker
	// Input is how documents are read for indexing: the document_loaders
	// and the vault for the secrets their commands name.
	Input input.Options
	// DefaultBatch is how many chunks one embedding call takes when the
	// file sets no batch_size.
	DefaultBatch int
	// Extract is the extractor_model's chat, nil without one: indexing
	// then extracts no entities (the graph leg of an existing graph still
	// answers).
	Extract Extractor
	// GraphStore is set when the store keeps the knowledge graph
	// (ragstore.CapGraph); the RAG's yaml keeps it otherwise.
	GraphStore ragstore.GraphKeeper

	bm25Mu sync.Mutex
	bm25   *rank.BM25

	// onHold, when set, is told each change in the number of chunks
	// whose text indexing holds (tests bound it), from any goroutine of
	// the pass.
	onHold func(delta int)

	graphMu     sync.Mutex
	graph       *Graph
	graphLoaded bool
}

// Progress is reported while a RAG is indexed.
type Progress struct {
	FilesDone, Files   int
	ChunksDone, Chunks int
	// Extracted of Extract chunks went through entity extraction so far,
	// Skipped of them failed (left out of the graph); Extract is 0 without
	// an extractor.
	Extracted, Extract, Skipped int
	Elapsed                     time.Duration
}

// String is the progress as a terminal shows it: "files 1/3, chunks
// 10/42, 0.5s", with "entities 5/42 (1 skipped)" while entities are
// extracted.
func (p Progress) String() string {
	s := fmt.Sprintf("files %d/%d, chunks %d/%d", p.FilesDone, p.Files, p.ChunksDone, p.Chunks)
	if p.Extract > 0 {
		s += fmt.Sprintf(", entities %d/%d", p.Extracted, p.Extract)
		if p.Skipped > 0 {
			s += fmt.Sprintf(" (%d skipped)", p.Skipped)
		}
	}
	return s + fmt.Sprintf(", %.1fs", p.Elapsed.Seconds())
}

// storeBatch is how many embedded chunks Index gives the store at once
// (the client splits them further to fit gRPC messages); tests lower it.
var storeBatch = 1024

// Index re-syncs the RAG with its documents (full: every document again):
// unchanged files are skipped, vanished ones dropped, new and changed ones
// split, embedded in batches and upserted, and the store rebuilt. Files
// the store lacks (an earlier pass was interrupted; see CheckStore) are
// embedded again from the file, and files it holds that the file does not
// list are dropped (the returned plan's Gap says what it completed). The
// pass is recorded in the RAG's file before the store is touched, so that
// a pass killed at any point leaves a file that says what the store
// should hold, and the next open completes it. It takes the RAG's
// indexing lock (LockIndexing), under which it compares the store with
// the file: the caller that opens the store read-write to index need not.
// It streams: the documents are read one at a time, their chunks wait in
// a temporary file until the RAG's file is written (entry by entry) and
// are read back a file at a time to be embedded, so that what it holds is
// one file's chunks and the batches on their way, whatever the corpus.
// After it, r.File's chunks stay on disk (LoadFiles reads them).
// progress, when set, is called as work completes.
func (r *RAG) Index(ctx context.Context, full bool, progress func(Progress)) (*Plan, error) {
	start := time.Now()
	f := r.File
	if f.Attached {
		return nil, fmt.Errorf("RAG %s is attached to an external collection, which Coyote does not index: use it without rebuilding", r.Name)
	}
	if f.Path != "" {
		lock, err := LockIndexing(r.Name, f.Path)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
	}
	// The documents are read one at a time: each new or changed one is
	// split and its chunks put aside on disk until the pass is recorded.
	pl, err := newPlanner(f, full)
	if err != nil {
		return nil, err
	}
	pl.onSplit = r.hold
	sp, err := newSpill()
	if err != nil {
		return nil, err
	}
	defer sp.Close()
	var added []AddedFile
	paths := AbsDocumentPaths(f.DocumentPaths, "", r.Input.Loaders)
	var spillErr error
	err = WalkSources(ctx, paths, r.Input, func(s Source) error {
		a, ok := pl.add(s)
		if !ok {
			return nil
		}
		spillErr = sp.put(a)
		r.hold(-len(a.Documents))
		a.Documents = nil
		added = append(added, a)
		return spillErr
	})
	if err != nil && spillErr == nil {
		return nil, fmt.Errorf("load the documents of RAG %s: %w", r.Name, err)
	}
	if err != nil {
		return nil, err
	}
	plan := pl.finish()
	plan.Added = added
	gap, err := r.CheckStore(ctx)
	if err != nil {
		return nil, err
	}
	drop := make([]string, 0, len(plan.Removed))
	for _, rm := range plan.Removed {
		drop = append(drop, rm.FileKey())
	}
	if !gap.Empty() {
		plan.Gap = gap
	}
	unchanged := make(map[int]bool, len(plan.Unchanged))
	for _, id := range plan.Unchanged {
		unchanged[id] = true
	}
	// Removed and changed files the store lacks are dropped anyway.
	gapDrop, gapFiles, err := gap.work(f, func(id int) bool { return unchanged[id] })
	if err != nil {
		return nil, err
	}
	drop = append(drop, gapDrop...)
	for _, a := range gapFiles {
		plan.Resumed = append(plan.Resumed, a.ID)
	}
	// The pass is recorded first: from here on, the file says what the
	// store is to hold.
	entries, err := f.entries()
	if err != nil {
		return nil, err
	}
	keep := make([]diskEntry, 0, len(plan.Unchanged))
	for _, e := range entries {
		if unchanged[e.ID] {
			keep = append(keep, e)
		}
	}
	f.NextFileID = plan.NextFileID
	r.bm25Mu.Lock()
	r.bm25 = nil
	r.bm25Mu.Unlock()
	if err := f.saveIndexed(f.Path, keep, sp, plan.Added); err != nil {
		return nil, err
	}
	files := plan.Added
	if len(gapFiles) > 0 {
		files = append(slices.Clone(plan.Added), gapFiles...)
	}
	chunks := r.chunkSource(sp, len(plan.Added))
	if err := r.write(ctx, drop, files, chunks, full, start, progress); err != nil {
		return nil, err
	}
	if err := r.updateGraph(ctx, plan, drop, files, chunks, start, progress); err != nil {
		return nil, err
	}
	return plan, nil
}

// chunkSource reads the chunks of an indexing pass's files one file at a
// time: the first added of them from the spill, in order, and the others
// (files an earlier pass left incomplete) from the RAG's file. Each call
// of the function it returns starts again from the first file.
type chunkSource func() (next func(a AddedFile) ([]Document, error), err error)

func (r *RAG) chunkSource(sp *spill, added int) chunkSource {
	return func() (func(a AddedFile) ([]Document, error), error) {
		var rd *spillReader
		if sp != nil && added > 0 {
			var err error
			if rd, err = sp.reader(); err != nil {
				return nil, err
			}
		}
		i := 0
		return func(a AddedFile) ([]Document, error) {
			i++
			if i <= added {
				got, err := rd.next()
				if err != nil {
					return nil, err
				}
				if got.ID != a.ID {
					return nil, fmt.Errorf("read back the chunks kept while indexing: file %d where %d was expected", got.ID, a.ID)
				}
				r.hold(len(got.Documents))
				return got.Documents, nil
			}
			docs, err := r.File.documentsOf(a.ID)
			r.hold(len(docs))
			return docs, err
		}, nil
	}
}

// hold counts the chunks whose text indexing holds (tests bound it).
func (r *RAG) hold(n int) {
	if r.onHold != nil {
		r.onHold(n)
	}
}

// updateGraph keeps the knowledge graph in step with an indexing pass:
// the entities of the dropped files go, the chunks of the indexed ones go
// through the extractor (when the RAG has one), and the graph is capped
// and saved where it is kept. Unchanged files keep their entities.
func (r *RAG) updateGraph(ctx context.Context, plan *Plan, drop []string, files []AddedFile, chunks chunkSource, start time.Time, progress func(Progress)) error {
	extract := r.Extract != nil && r.File.ExtractorModel != ""
	g, err := r.LoadGraph(ctx)
	if err != nil {
		return err
	}
	if g == nil && !extract {
		return nil
	}
	if g == nil {
		g = &Graph{}
	}
	g.RemoveFiles(drop)
	if extract {
		p := Progress{FilesDone: len(files), Files: len(files)}
		for _, a := range files {
			p.Chunks += a.NumChunks
		}
		p.ChunksDone, p.Extract = p.Chunks, p.Chunks
		// The chunks go through the extractor extractBatch at a time,
		// merged in chunk order (so the graph does not depend on timing).
		next, err := chunks()
		if err != nil {
			return err
		}
		var batch []ragstore.Chunk
		done, skipped := 0, 0
		var firstErr error
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			res, err := r.extractAll(ctx, batch, func(d, s int) {
				if progress != nil {
					p.Extracted, p.Skipped, p.Elapsed = done+d, skipped+s, time.Since(start)
					progress(p)
				}
			})
			if err != nil {
				return err
			}
			for i, x := range res.found {
				if x != nil {
					g.Merge(batch[i].ID, x)
				}
			}
			done += len(batch)
			skipped += res.skipped
			if firstErr == nil {
				firstErr = res.firstErr
			}
			r.hold(-len(batch))
			batch = batch[:0]
			return nil
		}
		for _, a := range files {
			if a.Documents, err = next(a); err != nil {
				return err
			}
			batch = append(batch, a.Chunks()...)
			if len(batch) >= extractBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		plan.Extracted, plan.ExtractSkipped, plan.ExtractErr = done-skipped, skipped, firstErr
	}
	plan.GraphCapped = g.Cap(MaxGraphNodes)
	return r.saveGraph(ctx, g)
}

// extractBatch is how many chunks go through entity extraction at once;
// tests lower it.
var extractBatch = 256

// LoadGraph returns the RAG's knowledge graph, nil when it has none: the
// store's when it keeps one (ragstore.CapGraph), else the yaml's
// (knowledge_graph, as the original writes it). It is read once.
func (r *RAG) LoadGraph(ctx context.Context) (*Graph, error) {
	r.graphMu.Lock()
	defer r.graphMu.Unlock()
	if r.graphLoaded {
		return r.graph, nil
	}
	var g *Graph
	if r.GraphStore != nil {
		resp, err := r.GraphStore.LoadGraph(ctx, &ragstore.LoadGraphRequest{Store: r.Name})
		if err != nil {
			return nil, fmt.Errorf("read the knowledge graph of RAG %s: %w", r.Name, err)
		}
		if g, err = UnmarshalGraph(resp.Data); err != nil {
			return nil, fmt.Errorf("RAG %s: %w", r.Name, err)
		}
	}
	if g == nil {
		var err error
		if g, err = r.File.Graph(); err != nil {
			return nil, err
		}
	}
	r.graph, r.graphLoaded = g, true
	return g, nil
}

// saveGraph keeps g where the RAG keeps its graph: in the store when it
// can (the yaml then drops its copy), else in the yaml.
func (r *RAG) saveGraph(ctx context.Context, g *Graph) error {
	r.graphMu.Lock()
	r.graph, r.graphLoaded = g, true
	r.graphMu.Unlock()
	if r.GraphStore != nil {
		data, err := MarshalGraph(g)
		if err != nil {
			return err
		}
		if err := r.GraphStore.SaveGraph(ctx, &ragstore.SaveGraphRequest{Store: r.Name, Data: data}); err != nil {
			return fmt.Errorf("save the knowledge graph of RAG %s: %w", r.Name, err)
		}
		if !r.File.HasGraph() {
			return nil
		}
		r.File.SetGraph(nil)
	} else {
		r.File.SetGraph(g)
	}
	if r.File.Path == "" {
		return nil
	}
	return r.File.Save(r.File.Path)
}

// write drops files from the store, embeds and upserts the chunks of
// files, and ends with the store's Rebuild. When it fails after the store
// took part of the work, the store is still asked to keep that part (an
// incremental Rebuild: a store that writes lazily persists there), so
// that completing the RAG later embeds only the rest.
func (r *RAG) write(ctx context.Context, drop []string, files []AddedFile, chunks chunkSource, full bool, start time.Time, progress func(Progress)) (err error) {
	changed := false
	defer func() {
		if err != nil && changed {
			_ = r.Store.Rebuild(context.WithoutCancel(ctx), &ragstore.RebuildRequest{Store: r.Name})
		}
	}()
	p := Progress{Files: len(files)}
	for _, a := range files {
		p.Chunks += a.NumChunks
	}
	report := func(p Progress) {
		if progress != nil {
			p.Elapsed = time.Since(start)
			progress(p)
		}
	}
	report(p)
	for _, key := range drop {
		if err := r.Store.DeleteFile(ctx, &ragstore.DeleteFileRequest{Store: r.Name, FileID: key}); err != nil {
			return err
		}
		changed = true
	}
	batch := r.File.BatchSize
	if batch <= 0 {
		batch = max(r.DefaultBatch, 1)
	}
	// Chunks flow through the pipe across files: embedded batch by batch,
	// then stored storeBatch at a time, so that a folder of small files
	// costs few embedding calls and few store transactions.
	pipe := r.newIndexPipe(ctx, files, batch, p, report)
	feed := func() error {
		next, err := chunks()
		if err != nil {
			return err
		}
		for i, a := range files {
			if a.Documents, err = next(a); err != nil {
				return err
			}
			chunks := a.Chunks()
			pipe.file(i, len(chunks))
			for _, c := range chunks {
				if err := pipe.add(c, i); err != nil {
					return err
				}
			}
		}
		return nil
	}
	stored, p, err := pipe.close(feed())
	changed = changed || stored
	if err != nil {
		return err
	}
	report(p)
	return r.Store.Rebuild(ctx, &ragstore.RebuildRequest{Store: r.Name, Full: full})
}

// keywordIndex is the kernel's BM25 over the file's chunks, for stores
// without keyword search; built on first use.
func (r *RAG) keywordIndex() (*rank.BM25, error) {
	r.bm25Mu.Lock()
	defer r.bm25Mu.Unlock()
	if r.bm25 == nil {
		idx, err := IndexFile(r.File)
		if err != nil {
			return nil, err
		}
		r.bm25 = idx
	}
	return r.bm25, nil
}

// Legs of a search, as ContextChunk.Legs names them.
const (
	LegVector  = "vector"
	LegKeyword = "keyword"
	LegGraph   = "graph"
)

// Search finds the chunks that best answer query: the vector and keyword
// legs, and the graph leg when the RAG has an extractor_model and a
// knowledge graph, fused by reciprocal rank (or, with a reranker, the
// vector and keyword legs' union reranked), topK of them (the file's top_k
// when 0). Each chunk says which legs found it.
func (r *RAG) Search(ctx context.Context, query string, topK int) ([]ContextChunk, error) {
	if topK <= 0 {
		topK = max(r.File.TopK, 1)
	}
	var g *Graph
	if r.File.ExtractorModel != "" && r.Rerank == nil {
		var err error
		if g, err = r.LoadGraph(ctx); err != nil {
			return nil, err
		}
	}
	kwK := topK
	if g.NodeCount() > 0 {
		kwK = 2 * topK // the graph leg seeds from them when the question names no entity
	}
	vecs, err := r.Embed(ctx, []string{query}, provider.InputQuery)
	if err != nil {
		return nil, fmt.Errorf("embed the question: %w", err)
	}
	if len(vecs) != 1 {
		return nil, errors.New("embed the question: no vector came back")
	}
	// The two legs run at once: each waits on a different part of the
	// store (the vectors in memory, the keyword index on disk).
	var kw []ragstore.Hit
	var kwErr error
	kwDone := make(chan struct{})
	go func() {
		defer close(kwDone)
		kw, kwErr = r.keywordLeg(ctx, query, kwK)
	}()
	vres, err := r.Store.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: r.Name, Vector: vecs[0], TopK: topK})
	<-kwDone
	if err != nil {
		return nil, err
	}
	if kwErr != nil {
		return nil, kwErr
	}
	kwIDs := HitIDs(kw)
	legs := []Ranking{{IDs: HitIDs(vres.Hits), Weight: VectorWeight}, {IDs: kwIDs[:min(len(kwIDs), topK)], Weight: KeywordWeight}}
	names := []string{LegVector, LegKeyword}
	if g.NodeCount() > 0 {
		legs = append(legs, Ranking{IDs: g.Search(query, r.File.Hops(), topK, kwIDs), Weight: GraphWeight})
		names = append(names, LegGraph)
	}
	var ids []string
	if r.Rerank != nil {
		ids = union(legs[0].IDs, legs[1].IDs)
	} else {
		for _, f := range Fuse(topK, legs...) {
			ids = append(ids, f.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	got, err := r.Store.FetchContent(ctx, &ragstore.FetchContentRequest{Store: r.Name, IDs: ids})
	if err != nil {
		return nil, err
	}
	chunks := make([]ContextChunk, 0, len(got.Contents))
	for _, c := range got.Contents {
		src := c.Metadata["source"]
		if src == "" {
			src = r.Name
		}
		cc := ContextChunk{Source: src, Text: c.Text}
		for i, l := range legs {
			if slices.Contains(l.IDs, c.ID) {
				cc.Legs = append(cc.Legs, names[i])
			}
		}
		chunks = append(chunks, cc)
	}
	if r.Rerank != nil && len(chunks) > 1 {
		texts := make([]string, len(chunks))
		for i, c := range chunks {
			texts[i] = c.Text
		}
		order, err := r.Rerank(ctx, query, texts, topK)
		if err != nil {
			return nil, fmt.Errorf("rerank: %w", err)
		}
		reranked := make([]ContextChunk, 0, min(topK, len(order)))
		for _, i := range order {
			if i >= 0 && i < len(chunks) && len(reranked) < topK {
				reranked = append(reranked, chunks[i])
			}
		}
		chunks = reranked
	}
	return chunks, nil
}

// keywordLeg ranks chunks by the words of query: the store's own keyword
// search when it has one, else the kernel's BM25 over the RAG file (none
// for an attached RAG, whose texts are not here).
func (r *RAG) keywordLeg(ctx context.Context, query string, topK int) ([]ragstore.Hit, error) {
	if r.Keyword != nil {
		res, err := r.Keyword.KeywordSearch(ctx, &ragstore.KeywordSearchRequest{Store: r.Name, Query: query, TopK: topK})
		if err != nil {
			return nil, err
		}
		return res.Hits, nil
	}
	if r.File.Attached {
		return nil, nil
	}
	idx, err := r.keywordIndex()
	if err != nil {
		return nil, err
	}
	return idx.Search(query, topK), nil
}

func union(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, id := range l {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// Describe is `.info rag`: the RAG's settings and size.
func (r *RAG) Describe(stats *ragstore.Stats) string {
	f := r.File
	var b strings.Builder
	fmt.Fprintf(&b, "name            %s\nfile            %s\ndriver          %s\n", r.Name, f.Path, f.Driver)
	if f.Attached {
		b.WriteString("attached        true\n")
	}
	fmt.Fprintf(&b, "embedding_model %s\nchunk_size      %d\nchunk_overlap   %d\ntop_k           %d\n", f.EmbeddingModel, f.ChunkSize, f.ChunkOverlap, f.TopK)
	if f.RerankerModel != "" {
		fmt.Fprintf(&b, "reranker_model  %s\n", f.RerankerModel)
	}
	if f.ExtractorModel != "" {
		fmt.Fprintf(&b, "extractor_model %s\ngraph_hops      %d\n", f.ExtractorModel, f.Hops())
	}
	if stats != nil {
		fmt.Fprintf(&b, "files           %d\nchunks          %d\ndimension       %d\n", stats.Files, stats.Chunks, stats.Dimension)
	}
	r.graphMu.Lock()
	g, loaded := r.graph, r.graphLoaded
	r.graphMu.Unlock()
	if loaded && (g != nil || f.ExtractorModel != "") {
		where := "the RAG file"
		if r.GraphStore != nil {
			where = "the store"
		}
		fmt.Fprintf(&b, "graph           %d nodes (at most %d), %d edges, kept in %s\n", g.NodeCount(), MaxGraphNodes, g.EdgeCount(), where)
	}
	if len(f.DocumentPaths) > 0 {
		b.WriteString("document_paths\n")
		for _, p := range f.DocumentPaths {
			b.WriteString("  " + p + "\n")
		}
	}
	return b.String()
}
