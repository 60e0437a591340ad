package rag

import (
	"context"
	"fmt"
	"sync"

	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// embedAhead is how many embedding calls an indexing pass keeps in flight
// while the batches before them are stored: the embedding model and the
// store work at the same time instead of taking turns (at 100,000 chunks
// against the fake embeddings server, the turns cost 8 s of embedding
// plus 9 s of upserts one after the other). Two calls in flight keep a
// local model or a remote API busy without tripping rate limits a single
// caller would not.
const embedAhead = 2

// queueLen is how many embedded batches of batch chunks may wait for the
// store: a whole upsert's worth (storeBatch), so that the next upsert's
// chunks are embedded while the last one is written. With fewer, the
// store waited 6 s of a 17 s pass for embeddings it could have had.
func queueLen(batch int) int {
	return max(embedAhead, (storeBatch+batch-1)/batch)
}

// indexPipe carries an indexing pass's chunks from the files to the
// store: batches are embedded, up to embedAhead at a time, and stored in
// the order they were made, storeBatch chunks per upsert, one upsert at a
// time on its own goroutine, while up to an upsert's worth of the next
// chunks are embedded. The caller adds chunks with add and ends with
// close, which returns the first error of any stage; after an error the
// pipe drops what is still queued and cancels the calls in flight.
type indexPipe struct {
	r     *RAG
	ctx   context.Context
	stop  context.CancelFunc
	files []AddedFile
	batch int

	// The caller's side: the batch being gathered and its files.
	gather     []ragstore.Chunk
	gatherFile []int

	queue chan *embedding // in order; its capacity bounds what is ahead
	sem   chan struct{}   // embedding calls in flight
	done  chan struct{}   // closed when the store stage has ended

	mu       sync.Mutex // guards what follows, written by the store stage
	err      error
	changed  bool // the store took some of the work
	progress Progress
	left     []int // chunks of each file not yet stored
	report   func(Progress)
}

// embedding is a batch on its way through the embedding model.
type embedding struct {
	chunks []ragstore.Chunk
	files  []int // index in files of each chunk
	done   chan struct{}
	err    error
}

func (r *RAG) newIndexPipe(ctx context.Context, files []AddedFile, batch int, p Progress, report func(Progress)) *indexPipe {
	ctx, stop := context.WithCancel(ctx)
	x := &indexPipe{
		r: r, ctx: ctx, stop: stop, files: files, batch: batch,
		queue:    make(chan *embedding, queueLen(batch)),
		sem:      make(chan struct{}, embedAhead),
		done:     make(chan struct{}),
		progress: p,
		left:     make([]int, len(files)),
		report:   report,
	}
	go x.storeStage()
	return x
}

// file announces file i's chunks, before they are added.
func (x *indexPipe) file(i, chunks int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.left[i] = chunks
	if chunks == 0 {
		x.progress.FilesDone++
	}
}

// add queues chunk c of file i; it blocks while queueLen batches wait.
func (x *indexPipe) add(c ragstore.Chunk, i int) error {
	x.gather, x.gatherFile = append(x.gather, c), append(x.gatherFile, i)
	if len(x.gather) < x.batch {
		return nil
	}
	return x.flush()
}

// flush sends the batch gathered so far to the embedding model.
func (x *indexPipe) flush() error {
	if len(x.gather) == 0 {
		return x.ctx.Err()
	}
	e := &embedding{chunks: x.gather, files: x.gatherFile, done: make(chan struct{})}
	x.gather, x.gatherFile = nil, nil
	select {
	case x.sem <- struct{}{}:
	case <-x.ctx.Done():
		x.r.hold(-len(e.chunks))
		return x.ctx.Err()
	}
	go func() {
		defer func() { <-x.sem }()
		defer close(e.done)
		e.err = x.embed(e)
	}()
	select {
	case x.queue <- e:
		return nil
	case <-x.ctx.Done():
		// The store stage has stopped taking batches: this one is the
		// caller's to drop.
		<-e.done
		x.r.hold(-len(e.chunks))
		return x.ctx.Err()
	}
}

func (x *indexPipe) embed(e *embedding) error {
	texts := make([]string, len(e.chunks))
	for j := range e.chunks {
		texts[j] = e.chunks[j].Text
	}
	path := x.files[e.files[0]].Path
	vecs, err := x.r.Embed(x.ctx, texts, provider.InputDocument)
	if err != nil {
		return fmt.Errorf("embed %s: %w", path, err)
	}
	if len(vecs) != len(e.chunks) {
		return fmt.Errorf("embed %s: %d vectors for %d chunks", path, len(vecs), len(e.chunks))
	}
	for j := range e.chunks {
		e.chunks[j].Vector = vecs[j]
	}
	return nil
}

// storeStage takes the embedded batches in order and upserts them
// storeBatch chunks at a time, until the queue is closed.
func (x *indexPipe) storeStage() {
	defer close(x.done)
	var toStore []ragstore.Chunk
	var storeFile []int
	store := func() error {
		if len(toStore) == 0 {
			return nil
		}
		err := x.r.Store.Upsert(x.ctx, &ragstore.UpsertRequest{Store: x.r.Name, Chunks: toStore})
		if err != nil {
			return err
		}
		x.r.hold(-len(toStore))
		x.mu.Lock()
		x.changed = true
		x.progress.ChunksDone += len(toStore)
		for _, i := range storeFile {
			if x.left[i]--; x.left[i] == 0 {
				x.progress.FilesDone++
			}
		}
		x.reportLocked()
		x.mu.Unlock()
		toStore, storeFile = nil, nil
		return nil
	}
	failed := false
	for e := range x.queue {
		<-e.done
		err := e.err
		if !failed && err == nil {
			toStore, storeFile = append(toStore, e.chunks...), append(storeFile, e.files...)
			if len(toStore) >= storeBatch {
				err = store()
			}
		} else {
			x.r.hold(-len(e.chunks))
		}
		if err != nil && !failed {
			failed = true
			x.fail(err)
			x.r.hold(-len(toStore))
			toStore, storeFile = nil, nil
		}
	}
	if failed {
		return
	}
	if err := store(); err != nil {
		x.fail(err)
		x.r.hold(-len(toStore))
	}
}

// fail records the pass's first error and stops the calls in flight.
func (x *indexPipe) fail(err error) {
	x.mu.Lock()
	if x.err == nil {
		x.err = err
	}
	x.mu.Unlock()
	x.stop()
}

func (x *indexPipe) reportLocked() {
	if x.report != nil {
		x.report(x.progress)
	}
}

// close sends the last batch, waits for every stage to end and returns
// the first error, if any (the caller's own, cause, when the store stage
// had none). It reports whether the store took some of the work, and the
// progress at the end.
func (x *indexPipe) close(cause error) (changed bool, p Progress, err error) {
	if cause == nil {
		cause = x.flush()
	} else {
		// The caller's failure, unless the pipe's own came first (the
		// caller then saw it as a cancelled context): recorded before
		// the calls in flight are cancelled, whose errors come after.
		x.r.hold(-len(x.gather))
		x.gather, x.gatherFile = nil, nil
		x.fail(cause)
	}
	close(x.queue)
	<-x.done
	x.stop()
	x.mu.Lock()
	defer x.mu.Unlock()
	err = x.err
	if err == nil && cause != nil {
		err = cause
	}
	return x.changed, x.progress, err
}
