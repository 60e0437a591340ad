package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// useRAG opens --rag NAME for the conversation, rebuilding it first under
// --rebuild-rag. On the command line the RAG must exist: it is created in
// the REPL (.rag NAME), which asks how.
func useRAG(ctx context.Context, f *Factory, st *convo.State, opts *rootOptions) error {
	if opts.RAG == "" {
		return errors.New("--rebuild-rag needs --rag NAME")
	}
	path := st.RAGPath(opts.RAG)
	file, err := rag.LoadSettings(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("RAG %s does not exist (%s): create it in the REPL with .rag %s", opts.RAG, path, opts.RAG)
	}
	if err != nil {
		return err
	}
	if !opts.RebuildRAG {
		r, err := st.OpenRAG(ctx, file, opts.RAG, ragstore.ReadOnly)
		if err != nil {
			return err
		}
		st.UseRAG(r)
		return nil
	}
	// Rebuilt as the REPL's .rebuild rag does (convo.State.IndexRAG): the
	// store is held read-write only while indexing, and the question that
	// follows reads it read-only, so other coyotes may read it meanwhile.
	tty := f.IO.IsStderrTTY() // the progress line goes there
	plan, err := st.IndexRAG(ctx, file, opts.RAG, true, func(p rag.Progress) {
		if tty {
			fmt.Fprintf(f.IO.ErrOut, "\r\x1b[2KIndexing %s: %s", opts.RAG, p)
		}
	})
	if tty {
		fmt.Fprint(f.IO.ErrOut, "\r\x1b[2K")
	}
	if err != nil {
		return err
	}
	if note := plan.Completed(opts.RAG); note != "" {
		fmt.Fprintln(f.IO.ErrOut, note)
	}
	fmt.Fprintf(f.IO.ErrOut, "Rebuilt RAG %s: %d files.\n", opts.RAG, len(plan.Added))
	if note := plan.GraphNote(opts.RAG); note != "" {
		fmt.Fprintln(f.IO.ErrOut, note)
	}
	return nil
}
