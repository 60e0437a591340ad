package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantfake"
)

// ragEnv is an environment with a fake server that chats and embeds, a
// directory of documents (docs), and rags/kb.yaml over them (file, yaml
// driver).
func ragEnv(t *testing.T, fake *fakellm.OpenAI) (e *env, file, docs string) {
	t.Helper()
	url := fakellm.StartOpenAI(t, fake)
	e = newEnv(t, fakeConfig(url, ""))
	docs = filepath.Join(t.TempDir(), "docs")
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
	file = filepath.Join(rags, "kb.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf("driver: yaml\nembedding_model: fake:embed\nchunk_size: 500\nchunk_overlap: 0\ntop_k: 3\ndocument_paths:\n- %s\n", docs)), 0o644); err != nil {
		t.Fatal(err)
	}
	return e, file, docs
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
			fake := answering("answered")
			e, file, _ := ragEnv(t, fake)
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
			// The RAG holds the user's documents: private, as its store's files.
			if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("rags/kb.yaml: %v, mode %v, want 0600", err, st.Mode().Perm())
			}
			if tc.sidecar != "" {
				if st, err := os.Stat(filepath.Join(filepath.Dir(file), tc.sidecar)); err != nil || st.Mode().Perm() != 0o600 {
					t.Fatalf("store file: %v, want it 0600", err)
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
		if slices.Contains(offered(req), "rag__query") {
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "c1", Name: "rag__query", Arguments: `{"query":"owls night","top_k":3}`}}}
		}
		return fakellm.Reply{Text: "no rag__query offered"}
	}}
	e, _, _ := ragEnv(t, fake)
	e.mustSucceed(e.run("", "--rag", "kb", "--rebuild-rag"))
	r := e.run("", "--rag", "kb", "tell", "me", "about", "owls")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, `"rag_name":"kb"`) || !strings.Contains(r.stdout, "Owls hunt at night") || !strings.Contains(r.stdout, `"count":3`) {
		t.Fatalf("stdout %q", r.stdout)
	}
}

// TestExecuteAsksWithTheRAGsPassages: -e (a shell command, whose menu
// sends the request itself) asks with the RAG's passages around the
// question, as every other turn does.
func TestExecuteAsksWithTheRAGsPassages(t *testing.T) {
	fake := answering("```sh\necho zebra\n```")
	e, _, _ := ragEnv(t, fake)
	e.mustSucceed(e.run("", "--rag", "kb", "--rebuild-rag"))
	r := e.run("", "--rag", "kb", "-e", "which", "animal", "has", "stripes?")
	e.mustSucceed(r)
	if strings.TrimSpace(r.stdout) != "echo zebra" {
		t.Fatalf("stdout %q, want the command alone", r.stdout)
	}
	reqs := fake.Requests()
	if sent := lastText(&reqs[len(reqs)-1]); !strings.Contains(sent, "Zebras have black and white stripes") || !strings.Contains(sent, "which animal has stripes?") {
		t.Fatalf("-e did not ask with the RAG's passage:\n%s", sent)
	}
}

// TestRAGRefusalsOnTheCommandLine: --rag with a RAG that cannot be used
// exits 1 with one line saying why and what to do.
func TestRAGRefusalsOnTheCommandLine(t *testing.T) {
	for _, tc := range []struct {
		name, rag string
		addToFile string // appended to rags/kb.yaml
		want      []string
	}{
		{"missing", "nope", "", []string{"RAG nope does not exist", ".rag nope"}},
		{"secret not in the vault", "kb", "driver_config:\n  api_key: '{{QDRANT_KEY}}'\n", []string{"QDRANT_KEY", "driver_config api_key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, file, _ := ragEnv(t, &fakellm.OpenAI{})
			data, _ := os.ReadFile(file)
			if err := os.WriteFile(file, append(data, tc.addToFile...), 0o644); err != nil {
				t.Fatal(err)
			}
			line := oneLineError(t, e.run("", "--rag", tc.rag, "hi"))
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Fatalf("%q lacks %q", line, w)
				}
			}
		})
	}
}

func TestTemporaryRAGInTheREPL(t *testing.T) {
	fake := answering("answered from the docs")
	e, _, docs := ragEnv(t, fake)
	p := e.startREPL()
	p.enter(".rag", "Embedding model [fake:embed]: ")
	p.enter("", "Chunk size [1500]: ") // Enter takes the default
	p.enter("", "Chunk overlap [75]: ")
	p.enter("", "Driver (duckdb, qdrant, yaml) [duckdb]: ")
	p.enter("yaml", "none to skip): ")
	p.enter("", "separate them with ;): ") // no extractor
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

// TestAttachedQdrantRAGInTheREPL attaches a RAG to a collection of a
// Qdrant server (the in-process fake, reached by the real coyote-rag-qdrant
// binary over gRPC) with the wizard, leaving no other store plugin
// running, asks a question, and finds that the attached RAG cannot be
// rebuilt.
func TestAttachedQdrantRAGInTheREPL(t *testing.T) {
	fake := answering("answered from qdrant")
	e, _, _ := ragEnv(t, fake)
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
	// Every store plugin was asked whether it attaches; only the chosen
	// one runs on.
	if running := storePlugins(p.pid()); !slices.Equal(running, []string{"coyote-rag-qdrant"}) {
		t.Fatalf("store plugins running after .rag attach: %v, want coyote-rag-qdrant alone", running)
	}
	p.enter("where do herons fish?", "answered from qdrant")
	p.enter(".sources rag", "https://wiki.example/1")
	p.enter(".rebuild rag", "does not own its documents: it cannot rebuild it")
	p.enter(".edit rag-docs", "does not own its documents: there are none to edit")
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

// TestRAGAttachWithoutADriverThatAttachesSaysSo: with no store plugin
// that attaches installed (a coyote whose plugins directory lacks
// coyote-rag-qdrant), .rag attach says so, naming the drivers that are
// installed, and writes no RAG.
func TestRAGAttachWithoutADriverThatAttachesSaysSo(t *testing.T) {
	e, _, _ := ragEnv(t, answering("answered"))
	e.exe = coyoteWithPlugins(t, "provider-openai", "provider-openai-compatible", "rag-duckdb", "rag-yaml")
	p := e.startREPL()
	p.enter(".rag attach ext", "no installed store plugin can attach to an external collection (installed drivers: duckdb, yaml)", "install one that announces the attach capability", replPrompt)
	// Asking the store plugins started them; none is left running.
	if running := storePlugins(p.pid()); len(running) != 0 {
		t.Fatalf("store plugins left running after .rag attach: %v", running)
	}
	p.exit()
	if _, err := os.Stat(filepath.Join(e.configDir, "rags", "ext.yaml")); !os.IsNotExist(err) {
		t.Fatalf("a refused attach left rags/ext.yaml: %v", err)
	}
}

// storePlugins lists the store plugins (coyote-rag-<driver>) running as
// children of the coyote process pid, sorted.
func storePlugins(pid int) []string {
	var out []string
	for _, cmdline := range children(pid) {
		if args := strings.Fields(cmdline); len(args) > 0 && strings.HasPrefix(filepath.Base(args[0]), "coyote-rag-") {
			out = append(out, filepath.Base(args[0]))
		}
	}
	slices.Sort(out)
	return out
}

// coyoteWithPlugins is a coyote binary whose own plugins directory holds
// only the named plugins of those built (links to them).
func coyoteWithPlugins(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	exe := filepath.Join(dir, "coyote")
	// A hard link, not a symbolic one: coyote finds its plugins beside the
	// file it was started as, with symbolic links resolved.
	if err := os.Link(filepath.Join(binDir, "coyote"), exe); err != nil {
		data, err := os.ReadFile(filepath.Join(binDir, "coyote"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exe, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if err := os.Symlink(filepath.Join(binDir, "plugins", "coyote-"+name), filepath.Join(dir, "plugins", "coyote-"+name)); err != nil {
			t.Fatal(err)
		}
	}
	return exe
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
	fake := answering("answered")
	e, file, _ := ragEnv(t, fake)
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

// TestNamedRAGInTheREPL uses a built DuckDB RAG with .rag NAME, adds a
// document with .edit rag-docs (only the new file is embedded), rebuilds
// it with .rebuild rag (everything is embedded again), stops using it
// with .exit rag (rag__query goes with it), and deletes it with .delete
// rag (the store file with the yaml), which refuses while the RAG is in
// use.
func TestNamedRAGInTheREPL(t *testing.T) {
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: fmt.Sprintf("offered: %v", offered(req))}
	}}
	e, file, _ := ragEnv(t, fake)
	setDriver(t, file, "duckdb")
	e.mustSucceed(e.run("", "--rag", "kb", "--rebuild-rag"))
	more := filepath.Join(t.TempDir(), "bat.md")
	if err := os.WriteFile(more, []byte("Bats fly at night and find insects by echolocation."), 0o644); err != nil {
		t.Fatal(err)
	}
	// The editor adds a line: the new document.
	editor := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\necho '"+more+"' >> \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.set("EDITOR=" + editor)
	const ragPrompt = "fake:gpt-4o-mini)@kb> "

	p := e.startREPL()
	p.enter(".rag kb", ragPrompt)
	p.enter(".edit rag-docs", "RAG kb: 1 files indexed, 0 removed, 3 unchanged.", ragPrompt)
	p.enter(".rebuild rag", "every document is read and embedded again", "RAG kb: 4 files indexed", ragPrompt)
	// Indexed, the REPL holds the store read-only: another coyote can ask it.
	e.mustSucceed(e.run("", "--rag", "kb", "zebras?"))
	p.enter("how do bats find insects?", "offered: [", "rag__query", ragPrompt)
	p.enter(".sources rag", "bat.md", ragPrompt)
	p.enter(".delete rag", "Delete which")
	p.enter("1", "kb is in use: leave it first (.exit rag", ragPrompt)
	p.enter(".exit rag", replPrompt)
	p.enter("and now?", "offered: [", replPrompt)
	p.enter(".delete rag", "Delete which")
	p.enter("1", "Deleted kb", replPrompt)
	p.exit()

	reqs := fake.Requests()[1:] // the first came from the other coyote
	if len(reqs) != 2 {
		t.Fatalf("%d chat requests from the REPL, want 2", len(reqs))
	}
	if !strings.Contains(lastText(&reqs[0]), "Bats fly at night") {
		t.Fatalf("the question was not given the added document:\n%s", lastText(&reqs[0]))
	}
	if slices.Contains(offered(&reqs[1]), "rag__query") || strings.Contains(lastText(&reqs[1]), "Bats") {
		t.Fatalf("after .exit rag the request still had the RAG: %v\n%s", offered(&reqs[1]), lastText(&reqs[1]))
	}
	// zebra.md was embedded by --rebuild-rag and by .rebuild rag, not by
	// the re-sync of .edit rag-docs.
	zebras := 0
	for _, c := range fake.EmbedRequests() {
		zebras += strings.Count(strings.Join(c.Inputs, "\n"), "Zebras have")
	}
	if zebras != 2 {
		t.Fatalf("zebra.md was embedded %d times, want twice", zebras)
	}
	for _, f := range []string{"kb.yaml", "kb.duckdb"} {
		if _, err := os.Stat(filepath.Join(e.configDir, "rags", f)); !os.IsNotExist(err) {
			t.Fatalf("rags/%s after .delete rag: %v", f, err)
		}
	}
}

// TestRAGBeingIndexedIsALockConflictNotAHang: while one coyote indexes a
// DuckDB RAG (its embeddings request held by the fake server), a second
// coyote asking that RAG a question fails at once with one line naming
// the other process; once the indexing ends the question works.
func TestRAGBeingIndexedIsALockConflictNotAHang(t *testing.T) {
	indexing, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	fake := answering("answered")
	fake.RespondEmbed = func(c *fakellm.EmbedCall) fakellm.Reply {
		if strings.Contains(strings.Join(c.Inputs, " "), "Zebras") {
			// A batch of documents: the indexing run has the store open
			// read-write.
			once.Do(func() { close(indexing) })
			<-release
		}
		return fakellm.Reply{}
	}
	e, file, _ := ragEnv(t, fake)
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free) // before the fake server closes
	setDriver(t, file, "duckdb")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	indexer := e.command(ctx, "", "--rag", "kb", "--rebuild-rag")
	var indexerErr bytes.Buffer
	indexer.Stderr = &indexerErr
	if err := indexer.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-indexing:
	case <-time.After(replTimeout):
		t.Fatalf("the indexing run sent no embeddings batch; stderr %s\nlog:\n%s", indexerErr.String(), e.log())
	}

	line := oneLineError(t, e.run("", "--rag", "kb", "which", "animal", "has", "stripes?"))
	if !strings.Contains(line, "RAG kb is being indexed by another coyote process (PID ") {
		t.Fatalf("%q", line)
	}

	free()
	if err := indexer.Wait(); err != nil {
		t.Fatalf("the indexing run: %v\n%s", err, indexerErr.String())
	}
	if !strings.Contains(indexerErr.String(), "Rebuilt RAG kb: 3 files") {
		t.Fatalf("the indexing run: %s", indexerErr.String())
	}
	e.mustSucceed(e.run("", "--rag", "kb", "which", "animal", "has", "stripes?"))
	if sent := lastText(&fake.Requests()[0]); !strings.Contains(sent, "Zebras have black and white stripes") {
		t.Fatalf("sent:\n%s", sent)
	}
}
