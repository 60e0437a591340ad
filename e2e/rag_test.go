package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// ragEnv is an environment with a fake server that chats and embeds, a
// directory of documents, and rags/kb.yaml over them (yaml driver).
func ragEnv(t *testing.T, fake *fakellm.OpenAI) (*env, string) {
	t.Helper()
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fmt.Sprintf(`
model: fake:gpt-4o-mini
clients:
  - type: openai-compatible
    name: fake
    api_base: %s
    api_key: k
    models:
      - name: gpt-4o-mini
        supports_function_calling: true
      - name: embed
        type: embedding
`, url))
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

func TestRAGIsBuiltAndAugmentsTheQuestion(t *testing.T) {
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "answered"} }}
	e, file := ragEnv(t, fake)
	r := e.run("", "--rag", "kb", "--rebuild-rag")
	e.mustSucceed(r)
	if !strings.Contains(r.stderr, "Rebuilt RAG kb: 3 files") {
		t.Fatalf("stderr %q", r.stderr)
	}
	data, _ := os.ReadFile(file)
	for _, want := range []string{"zebra.md", "Zebras have black", "vectors:", "0-0: "} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("the RAG file lacks %q:\n%s", want, data)
		}
	}
	r = e.run("", "--rag", "kb", "which", "animal", "has", "stripes?")
	e.mustSucceed(r)
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d chat requests", len(reqs))
	}
	sent := fmt.Sprint(reqs[0].Messages[len(reqs[0].Messages)-1]["content"])
	if !strings.Contains(sent, "[Source: "+filepath.Dir(filepath.Dir(file))) && !strings.Contains(sent, "zebra.md]") {
		t.Fatalf("the question was not given the RAG's context:\n%s", sent)
	}
	if !strings.Contains(sent, "Zebras have black and white stripes") || !strings.Contains(sent, "which animal has stripes?") {
		t.Fatalf("sent:\n%s", sent)
	}
	if len(fake.EmbedRequests()) < 2 {
		t.Fatal("the question was not embedded")
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
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send(".rag\r")
	p.expect("Embedding model [fake:embed]: ", replTimeout)
	p.send("\r")
	p.expect("Chunk size [1500]: ", replTimeout)
	p.send("\r")
	p.expect("Chunk overlap [75]: ", replTimeout)
	p.send("\r")
	p.expect("Driver (duckdb, yaml, qdrant) [duckdb]: ", replTimeout)
	p.send("yaml\r")
	p.expect("separate them with ;): ", replTimeout)
	p.send(docs + "\r")
	p.expect("RAG temp: 3 files indexed", replTimeout)
	p.expect("fake:gpt-4o-mini)> ", replTimeout)
	p.send("which animal has stripes?\r")
	p.expect("answered from the docs", replTimeout)
	p.send(".sources rag\r")
	p.expect("zebra.md", replTimeout)
	p.send(".info rag\r")
	p.expect("driver          yaml", replTimeout)
	p.send(".exit\r")
	if code := p.waitExit(replTimeout); code != 0 {
		t.Fatalf("exit %d", code)
	}
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
