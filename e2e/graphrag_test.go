package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// graphRAGFake answers the extractor deterministically from the passage
// in its prompt, and a question with whether its context held the answer.
func graphRAGFake() *fakellm.OpenAI {
	return &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		text := lastText(req)
		switch {
		case !strings.Contains(text, "Passage:"):
			if strings.Contains(text, "room 9") {
				return fakellm.Reply{Text: "ANSWER IN CONTEXT"}
			}
			return fakellm.Reply{Text: "ANSWER NOT IN CONTEXT"}
		case strings.Contains(text, "Project Falcon moved"):
			return fakellm.Reply{Text: `{"entities":[{"name":"Project Falcon","type":"project"},{"name":"Quasar Archive","type":"location"}],"relationships":[{"from":"Project Falcon","to":"Quasar Archive","type":"stored_in"}]}`}
		case strings.Contains(text, "Quasar Archive:"):
			return fakellm.Reply{Text: "```json\n{\"entities\":[{\"name\":\"Quasar Archive\",\"type\":\"LOCATION\"}],\"relationships\":[]}\n```"}
		case strings.Contains(text, "garbled"):
			return fakellm.Reply{Text: "I would rather not."}
		}
		return fakellm.Reply{Text: `{"entities":[],"relationships":[]}`}
	}}
}

// TestGraphRAGFindsWhatOnlyARelationshipReaches builds a RAG whose answer
// passage names only the Quasar Archive while the question names Project
// Falcon, linked to it by another passage's relationship: with an
// extractor the graph leg brings the answer, without one it does not. One
// passage's extraction is garbled (skipped and counted, indexing goes on).
// The DuckDB store keeps the graph in its file, the yaml one in the yaml.
func TestGraphRAGFindsWhatOnlyARelationshipReaches(t *testing.T) {
	for _, driver := range []string{"yaml", "duckdb"} {
		t.Run(driver, func(t *testing.T) {
			fake := graphRAGFake()
			e := newEnv(t, fakeConfig(fakellm.StartOpenAI(t, fake), ""))
			docs := filepath.Join(t.TempDir(), "docs")
			if err := os.MkdirAll(docs, 0o755); err != nil {
				t.Fatal(err)
			}
			files := map[string]string{
				"falcon.md":  "Project Falcon moved all its records last spring.",
				"archive.md": "Quasar Archive: room 9, east wing, behind a green door.",
				"odd.md":     "A garbled passage about nothing much at all.",
			}
			for i := range 40 {
				files[fmt.Sprintf("filler%02d.md", i)] = fmt.Sprintf("Filler passage %d: zebras graze quietly near rivers while owls sleep.", i)
			}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rags := filepath.Join(e.configDir, "rags")
			if err := os.MkdirAll(rags, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(rags, "kb.yaml")
			settings := fmt.Sprintf("driver: %s\nembedding_model: fake:embed\nchunk_size: 500\nchunk_overlap: 0\ntop_k: 10\ndocument_paths:\n- %s\n", driver, docs)
			const question = "Where are the records of Project Falcon kept?"

			if err := os.WriteFile(file, []byte(settings), 0o644); err != nil {
				t.Fatal(err)
			}
			e.mustSucceed(e.run("", "--rag", "kb", "--rebuild-rag"))
			if r := e.run("", "--rag", "kb", question); !strings.Contains(r.stdout, "ANSWER NOT IN CONTEXT") {
				t.Fatalf("without an extractor the answer was found (the test proves nothing): %q %q", r.stdout, r.stderr)
			}

			if err := os.WriteFile(file, []byte(settings+"extractor_model: fake:gpt-4o-mini\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := e.run("", "--rag", "kb", "--rebuild-rag")
			e.mustSucceed(r)
			if !strings.Contains(r.stderr, "entities extracted from 42 chunks; 1 chunks left out of the knowledge graph") {
				t.Fatalf("stderr %q", r.stderr)
			}
			data, _ := os.ReadFile(file)
			if inYAML := strings.Contains(string(data), "knowledge_graph:"); inYAML != (driver == "yaml") {
				t.Fatalf("driver %s: knowledge_graph in the yaml: %v\n%.2000s", driver, inYAML, data)
			}
			if r := e.run("", "--rag", "kb", question); !strings.Contains(r.stdout, "ANSWER IN CONTEXT") {
				t.Fatalf("with the graph leg the answer was not found: %q %q", r.stdout, r.stderr)
			}
		})
	}
}
