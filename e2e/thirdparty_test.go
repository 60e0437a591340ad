package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// The plugins of e2e/thirdparty are built from a module that depends on
// Coyote's SDK alone (through a replace to ../../sdk), as a third party's
// are: coyote-provider-acme talks to the made-up Acme API (acmefake), and
// coyote-rag-jsonfile keeps a RAG's chunks in a JSON file. These tests drop
// them into $COYOTE_PLUGINS_DIR and use them through the real coyote
// binary, exactly as the in-tree plugins are used.

// startAcme starts the fake Acme API and returns its URL.
func startAcme(t *testing.T, env ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(thirdPartyDir, "acmefake"))
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close() // acmefake exits when its stdin closes
		_ = cmd.Wait()
	})
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("acmefake: %v", err)
	}
	return strings.TrimSpace(url)
}

// thirdPartyEnv is an environment whose chat model is acme:acme-1 (the
// third-party provider) and whose embedding model fake:embed comes from
// the fake OpenAI API, with the third-party plugins in the plugin path and
// a RAG of driver jsonfile (the third-party store) over a planted
// document.
func thirdPartyEnv(t *testing.T) (e *env, docs string) {
	t.Helper()
	acme := startAcme(t, "ACMEFAKE_KEY=acme-secret")
	openai := fakellm.StartOpenAI(t, &fakellm.OpenAI{})
	e = newEnv(t, fmt.Sprintf(`model: acme:acme-1
clients:
  - type: acme
    name: acme
    api_base: %s
    api_key: acme-secret
    models: [{name: acme-1}]
  - type: openai-compatible
    name: fake
    api_base: %s
    api_key: k
    models: [{name: embed, type: embedding}]
`, acme, openai)).set("COYOTE_PLUGINS_DIR=" + thirdPartyDir)
	docs = filepath.Join(t.TempDir(), "docs")
	for name, text := range map[string]string{
		"lighthouse.md": "The keeper of the lighthouse on Gull Rock is named Periwinkle Jones.",
		"bread.md":      "Sourdough bread rises slowly because of its wild yeast.",
	} {
		if err := os.MkdirAll(docs, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rags := filepath.Join(e.configDir, "rags")
	if err := os.MkdirAll(rags, 0o755); err != nil {
		t.Fatal(err)
	}
	kb := fmt.Sprintf("driver: jsonfile\nembedding_model: fake:embed\nchunk_size: 500\nchunk_overlap: 0\ntop_k: 2\ndocument_paths:\n- %s\n", docs)
	if err := os.WriteFile(filepath.Join(rags, "kb.yaml"), []byte(kb), 0o644); err != nil {
		t.Fatal(err)
	}
	return e, docs
}

func TestThirdPartyPluginsAreListed(t *testing.T) {
	e, _ := thirdPartyEnv(t)
	// Each started and answered Describe: a plugin that failed would show
	// "error: …" where its version and capabilities are.
	for name, want := range map[string][]string{
		"coyote-provider-acme": {"provider", "0.1.0", "1", "chat,streaming,tools", filepath.Join(thirdPartyDir, "coyote-provider-acme")},
		"coyote-rag-jsonfile":  {"rag", "0.1.0", "1", "keyword-search,drop,setup,owned", filepath.Join(thirdPartyDir, "coyote-rag-jsonfile")},
	} {
		f := strings.Fields(listedRow(t, e, name))
		if len(f) < len(want)+1 || !slices.Equal(f[1:len(want)+1], want) {
			t.Errorf("coyote plugins row of %s: %q, want %q", name, f, want)
		}
	}
}

func TestPromptThroughAThirdPartyProvider(t *testing.T) {
	e, _ := thirdPartyEnv(t)
	r := e.run("", "hello", "acme")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "acme heard: hello acme") {
		t.Fatalf("stdout %q", r.stdout)
	}
}

// TestRAGOfAThirdPartyStoreAnswersFromItsDocuments builds a RAG whose
// driver is the third-party store, then asks the third-party provider a
// question that is answered from the planted document.
func TestRAGOfAThirdPartyStoreAnswersFromItsDocuments(t *testing.T) {
	e, _ := thirdPartyEnv(t)
	e.mustSucceed(e.run("", "--rag", "kb", "--rebuild-rag"))
	if _, err := os.Stat(filepath.Join(e.configDir, "rags", "kb.jsonfile.json")); err != nil {
		t.Fatalf("the jsonfile store wrote nothing beside the RAG: %v", err)
	}
	r := e.run("", "--rag", "kb", "who", "keeps", "the", "lighthouse?")
	e.mustSucceed(r)
	// acmefake echoes what it was sent: the question laid out in
	// rag_template with the best chunks, the planted one among them.
	if !strings.Contains(r.stdout, "<context>") || !strings.Contains(r.stdout, "Periwinkle Jones") {
		t.Fatalf("the answer was not given the lighthouse document: %q", r.stdout)
	}
	if r := e.run("", "--list-rags"); r.stdout != "kb\n" {
		t.Fatalf("--list-rags: %q", r.stdout)
	}
}

func TestUnknownDriverListsTheInstalledStores(t *testing.T) {
	e, _ := thirdPartyEnv(t)
	if err := os.WriteFile(filepath.Join(e.configDir, "rags", "odd.yaml"), []byte("driver: nosuch\nembedding_model: fake:embed\nchunk_size: 500\ntop_k: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	line := oneLineError(t, e.run("", "--rag", "odd", "hi"))
	if want := `unknown driver "nosuch": no store plugin coyote-rag-nosuch is installed (installed: duckdb, jsonfile, qdrant, yaml)`; !strings.Contains(line, want) {
		t.Fatalf("%q lacks %q", line, want)
	}
	// A driver_config the store refuses is reported by the store.
	if err := os.WriteFile(filepath.Join(e.configDir, "rags", "odd.yaml"), []byte("driver: jsonfile\nembedding_model: fake:embed\nchunk_size: 500\ntop_k: 1\ndriver_config:\n  dir: relative/path\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	line = oneLineError(t, e.run("", "--rag", "odd", "--rebuild-rag"))
	if want := "odd.yaml:5: driver_config.dir must be an absolute directory"; !strings.Contains(line, want) {
		t.Fatalf("%q lacks %q", line, want)
	}
}

// TestRAGWizardOffersAThirdPartyStore builds a RAG with the REPL's .rag
// wizard, picking the third-party driver and answering its own question.
func TestRAGWizardOffersAThirdPartyStore(t *testing.T) {
	e, docs := thirdPartyEnv(t)
	store := t.TempDir()
	p := e.startPTY()
	p.expect("acme:acme-1)> ", replTimeout)
	p.enter(".rag notes", "Embedding model [fake:embed]: ")
	p.enter("", "Chunk size [1500]: ")
	p.enter("", "Chunk overlap [75]: ")
	p.enter("", "Driver (duckdb, jsonfile, qdrant, yaml) [duckdb]: ")
	p.enter("jsonfile", "Directory of the store's file (empty: beside the RAG's file): ")
	p.enter(store, "none to skip): ")
	p.enter("", "separate them with ;): ") // no extractor
	p.enter(docs, "RAG notes: 2 files indexed", "acme:acme-1)@notes> ")
	p.enter("who keeps the lighthouse?", "Periwinkle Jones")
	p.exit()
	if _, err := os.Stat(filepath.Join(store, "notes.jsonfile.json")); err != nil {
		t.Fatalf("the store's file is not in the directory the wizard was given: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(e.configDir, "rags", "notes.yaml"))
	if err != nil || !strings.Contains(string(data), "driver: jsonfile") || !strings.Contains(string(data), "dir: "+store) {
		t.Fatalf("rags/notes.yaml: %v\n%s", err, data)
	}
}
