package repl

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chzyer/readline"

	"github.com/coyote-cli/coyote/kernel/rag"
)

// answering gives the REPL a line editor that reads answers from text.
func answering(t *testing.T, r *REPL, text string) {
	t.Helper()
	rl, err := readline.NewEx(&readline.Config{
		Stdin:          io.NopCloser(strings.NewReader(text)),
		Stdout:         io.Discard,
		Stderr:         io.Discard,
		FuncIsTerminal: func() bool { return false },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rl.Close() })
	r.rl = rl
}

// .delete rag leaves a RAG's files alone when it cannot ask the RAG's
// store to drop its data: the RAG is active, or its yaml cannot be read
// (and so its driver is unknown). Nothing beside the yaml is removed by
// name: that is the store's business.
func TestDeleteRAGRefusesAndKeepsEverything(t *testing.T) {
	tests := []struct {
		name, yaml string
		active     bool
		want       []string
	}{
		{"active", "driver: duckdb\nembedding_model: fake:embed\n", true, []string{"kb is in use: leave it first (.exit rag"}},
		{"broken yaml", "driver: duckdb\nchunk_size: [1\n", false, []string{"cannot delete RAG kb: ", "kb.yaml:", "; fix it, or remove ", "kb.yaml by hand"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := newTestREPL(t)
			yaml := r.conv.RAGPath("kb")
			if err := os.MkdirAll(filepath.Dir(yaml), 0o755); err != nil {
				t.Fatal(err)
			}
			beside := strings.TrimSuffix(yaml, ".yaml") + ".duckdb"
			for path, text := range map[string]string{yaml: tt.yaml, beside: "data"} {
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.active {
				r.conv.RAG = &rag.RAG{Name: "kb"}
			}
			answering(t, r, "1\n")
			err := r.Handle(context.Background(), ".delete rag")
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("err = %v, want it to say %q", err, w)
				}
			}
			for _, path := range []string{yaml, beside} {
				if _, err := os.Stat(path); err != nil {
					t.Errorf("a refused delete removed %s: %v", filepath.Base(path), err)
				}
			}
		})
	}
}

// .delete macro lists the macros of both directories (a workspace one
// marked, a broken one included) and deletes the picked files only.
func TestDeleteMacro(t *testing.T) {
	r, io := newTestREPL(t)
	out := io.Out.(interface{ String() string })
	writeMacro(t, r, false, "aside", "steps:\n  - .info\n")
	writeMacro(t, r, false, "broken", "steps: [\n")
	writeMacro(t, r, false, "keep", "steps:\n  - .info\n")
	writeMacro(t, r, true, "aside", "steps:\n  - .info\n")
	answering(t, r, "1 3\n")
	if err := r.Handle(context.Background(), ".delete macro"); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"  1  aside (workspace)\n", "  2  aside\n", "  3  broken\n", "  4  keep\n", "Deleted aside (workspace)\n", "Deleted broken\n"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
	for path, want := range map[string]bool{
		filepath.Join(r.o.MacroDirs.Workspace, "aside.yaml"): false,
		filepath.Join(r.o.MacroDirs.Global, "broken.yaml"):   false,
		filepath.Join(r.o.MacroDirs.Global, "aside.yaml"):    true,
		filepath.Join(r.o.MacroDirs.Global, "keep.yaml"):     true,
	} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", path, err == nil, want)
		}
	}
}
