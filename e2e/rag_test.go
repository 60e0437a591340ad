package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantfake"
)

// ragEnv is an environment with a fake server that chats and embeds, a
// directory of documents, and rags/kb.yaml over them (yaml driver).
func ragEnv(t *testing.T, fake *fakellm.OpenAI) (*env, string) {
	t.Helper()
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, ""))
	docs := filepath.Join(t.TempDir(), "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"zebra.md": "Zebras have black and white stripes and live in herds on the savanna.",
		"go.md":    "Go compiles quickly to a single static binary; goroutines are cheap.",
		"owl.md":   "Owls hunt at night and see well in the dark.",
	} {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rags := filepath.Join(e.configDir, "rags")
	if err := os.MkdirAll(rags, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(rags, "kb.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf("driver: yaml\nembedding_model: fake:embed\nchunk_size: 500\nchunk_overlap: 0\ntop_k: 3\ndocument_paths:\n- %s\n", docs)), 0o644); err != nil {
		t.Fatal(err)
	}
	return e, file
}

// TestRAGIsBuiltAndAugmentsTheQuestion builds the same RAG with each
// local store driver through its real plugin binary: DuckDB (the default,
// <name>.duckdb beside the yaml) and the original's yaml file.
func TestRAGIsBuiltAndAugmentsTheQuestion(t *testing.T) {
	for _, tc := range []struct {
		driver string
		// inYAML must be in rags/kb.yaml after the build; sidecar beside it.
		inYAML  []string
		sidecar string
	}{
		{driver: "duckdb", inYAML: []string{"zebra.md", "hash: "}, sidecar: "kb.duckdb"},
		{driver: "yaml", inYAML: []string{"zebra.md", "Zebras have black", "vectors:", "0-0: "}},
	} {
		t.Run(tc.driver, func(t *testing.T) {
			fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "answered"} }}
			e, file := ragEnv(t, fake)
			setDriver(t, file, tc.driver)
			r := e.run("", "--rag", "kb", "--rebuild-rag")
			e.mustSucceed(r)
			if !strings.Contains(r.stderr, "Rebuilt RAG kb: 3 files") {
				t.Fatalf("stderr %q", r.stderr)
			}
			data, _ := os.ReadFile(file)
			for _, want := range tc.inYAML {
				if !strings.Contains(string(data), want) {
					t.Fatalf("the RAG file lacks %q:\n%s", want, data)
				}
			}
			if tc.sidecar != "" {
				if _, err := os.Stat(filepath.Join(filepath.Dir(file), tc.sidecar)); err != nil {
					t.Fatalf("no store file: %v", err)
				}
				if strings.Contains(string(data), "0-0: ") {
					t.Fatalf("the vectors went into the yaml file, not the store:\n%s", data)
				}
			}
			r = e.run("", "--rag", "kb", "which", "animal", "has", "stripes?")
			e.mustSucceed(r)
			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d chat requests", len(reqs))
			}
			sent := fmt.Sprint(reqs[0].Messages[len(reqs[0].Messages)-1]["content"])
			if !strings.Contains(sent, "zebra.md]") {
				t.Fatalf("the question was not given the RAG's sources:\n%s", sent)
			}
			if !strings.Contains(sent, "Zebras have black and white stripes") || !strings.Contains(sent, "which animal has stripes?") {
				t.Fatalf("sent:\n%s", sent)
			}
			if len(fake.EmbedRequests()) < 2 {
				t.Fatal("the question was not embedded")
			}
		})
	}
}

// setDriver changes the driver line of a RAG file, and nothing else.
func setDriver(t *testing.T, file, driver string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(string(data), "driver: yaml\n", "driver: "+driver+"\n", 1)
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTheModelCanQueryTheRAG(t *testing.T) {
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		if res := toolResultOf(req); res != "" {
			return fakellm.Reply{Text: "tool said: " + res}
		}
		for _, tool := range req.Tools {
			if fn, _ := tool["function"].(map[string]any); fn["name"] == "rag__query" {
				return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "c1", Name: "rag__query", Arguments: `{"query":"owls night","top_k":3}`}}}
			}
		}
		return fakellm.Reply{Text: "no rag__query offered"}
	}}
	e, _ := ragEnv(t, fake)
	e.mustSucceed(e.run("", "--rag", "kb", "--rebuild-rag"))
	r := e.run("", "--rag", "kb", "tell", "me", "about", "owls")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, `"rag_name":"kb"`) || !strings.Contains(r.stdout, "Owls hunt at night") || !strings.Contains(r.stdout, `"count":3`) {
		t.Fatalf("stdout %q", r.stdout)
	}
}

func TestRAGMustExistOnTheCommandLine(t *testing.T) {
	fake := &fakellm.OpenAI{}
	e, _ := ragEnv(t, fake)
	r := e.run("", "--rag", "nope", "hi")
	line := oneLineError(t, r)
	if !strings.Contains(line, "RAG nope does not exist") || !strings.Contains(line, ".rag nope") {
		t.Fatalf("%q", line)
	}
}

func TestTemporaryRAGInTheREPL(t *testing.T) {
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "answered from the docs"} }}
	e, file := ragEnv(t, fake)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, docs, _ := strings.Cut(string(data), "document_paths:\n- ")
	docs = strings.TrimSpace(docs)
	p := e.startREPL()
	p.enter(".rag", "Embedding model [fake:embed]: ")
	p.enter("", "Chunk size [1500]: ") // Enter takes the default
	p.enter("", "Chunk overlap [75]: ")
	p.enter("", "Driver (duckdb, yaml, qdrant) [duckdb]: ")
	p.enter("yaml", "separate them with ;): ")
	p.enter(docs, "RAG temp: 3 files indexed", "fake:gpt-4o-mini)@temp> ")
	p.enter("which animal has stripes?", "answered from the docs")
	p.enter(".sources rag", "zebra.md")
	p.enter(".info rag", "driver          yaml")
	p.exit()
	if _, err := os.Stat(filepath.Join(e.configDir, "rags", "temp.yaml")); err == nil {
		t.Fatal("the temporary RAG was saved in rags/")
	}
	sent := fmt.Sprint(fake.Requests()[0].Messages)
	if !strings.Contains(sent, "Zebras have black and white stripes") {
		t.Fatalf("the question was not given the RAG's context: %s", sent)
	}
}

func TestRAGDriverConfigSecretsComeFromTheVault(t *testing.T) {
	fake := &fakellm.OpenAI{}
	e, file := ragEnv(t, fake)
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, append(data, []byte("driver_config:\n  api_key: '{{QDRANT_KEY}}'\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "--rag", "kb", "hi")
	line := oneLineError(t, r)
	if !strings.Contains(line, "QDRANT_KEY") || !strings.Contains(line, "driver_config api_key") {
		t.Fatalf("%q", line)
	}
}

// TestAttachedQdrantRAGInTheREPL attaches a RAG to a collection of a
// Qdrant server (the in-process fake, reached by the real coyote-rag-qdrant
// binary over gRPC) with the wizard, asks a question, and finds that the
// attached RAG cannot be rebuilt.
func TestAttachedQdrantRAGInTheREPL(t *testing.T) {
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "answered from qdrant"} }}
	e, _ := ragEnv(t, fake)
	srv := qdrantfake.Start(t)
	dims := fakellm.DefaultEmbedDims
	srv.AddCollection("docs", qdrantfake.CollectionConfig{Dimension: dims})
	srv.AddCollection("empty", qdrantfake.CollectionConfig{Dimension: dims})
	for i, text := range []string{"Herons stand still in shallow water to fish.", "Badgers dig long tunnels called setts."} {
		srv.AddPoint("docs", uint64(i+1), fakellm.FakeVector(text, dims), map[string]any{
			"page_content": text,
			"metadata":     map[string]any{"source": fmt.Sprintf("https://wiki.example/%d", i+1)},
		})
	}
	p := e.startREPL()

	attach := func(name, collection string) {
		p.enter(".rag attach "+name, "Qdrant host [http://localhost:6333]: ")
		p.enter(srv.URL(), "(empty: the server needs none): ")
		p.enter("", "2. empty", "Collection (number or name): ")
		p.enter(collection, "[fake:embed]: ")
		p.send("\r")
	}
	attach("void", "empty")
	p.expect("Collection empty is empty", replTimeout)
	p.expect("Attach anyway? [y/N] ", replTimeout)
	p.enter("n", "attach cancelled")
	if _, err := os.Stat(filepath.Join(e.configDir, "rags", "void.yaml")); err == nil {
		t.Fatal("a cancelled attach wrote its RAG file")
	}

	attach("ext", "1")
	p.expect("Attached RAG ext to collection docs", replTimeout)
	p.enter("where do herons fish?", "answered from qdrant")
	p.enter(".sources rag", "https://wiki.example/1")
	p.enter(".rebuild rag", "does not own its documents")
	p.exit()
	data, err := os.ReadFile(filepath.Join(e.configDir, "rags", "ext.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"driver: qdrant", "attached: true", "collection: docs", "embedding_model: fake:embed"} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("rags/ext.yaml lacks %q:\n%s", want, data)
		}
	}
	sent := fmt.Sprint(fake.Requests()[0].Messages)
	if !strings.Contains(sent, "Herons stand still") {
		t.Fatalf("the question was not given the collection's passages: %s", sent)
	}
	if srv.Count("docs") != 2 {
		t.Fatal("attaching wrote to the collection")
	}
}

// TestRAGOverACrawledSite builds a RAG from a document path ending in **
// (a small site served here), through the real binaries, and asks it.
func TestRAGOverACrawledSite(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pages := map[string]string{
			"/docs/":           `<h1>Guide</h1><p>See <a href="howl.html">howling</a> and <a href="/shop/">the shop</a>.</p>`,
			"/docs/howl.html":  `<p>Coyotes howl to find their pack at dusk.</p><script>ignored()</script>`,
			"/shop/index.html": `<p>Buy things.</p>`,
		}
		page, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	}))
	defer site.Close()
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "answered"} }}
	e, file := ragEnv(t, fake)
	if err := os.WriteFile(file, []byte("driver: duckdb\nembedding_model: fake:embed\nchunk_size: 500\nchunk_overlap: 0\ntop_k: 2\ndocument_paths:\n- "+site.URL+"/docs/**\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "--rag", "kb", "--rebuild-rag")
	e.mustSucceed(r)
	if !strings.Contains(r.stderr, "Rebuilt RAG kb: 2 files") {
		t.Fatalf("stderr %q", r.stderr)
	}
	e.mustSucceed(e.run("", "--rag", "kb", "when", "do", "coyotes", "howl?"))
	sent := fmt.Sprint(fake.Requests()[0].Messages)
	if !strings.Contains(sent, "Coyotes howl to find their pack at dusk.") || !strings.Contains(sent, site.URL+"/docs/howl.html") || strings.Contains(sent, "ignored()") {
		t.Fatalf("sent: %s", sent)
	}
}
