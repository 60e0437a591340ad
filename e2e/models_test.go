package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/kernel/buildinfo"
)

// deadURL is the URL of a local port nothing listens on: a provider that
// cannot be reached.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// countingServer serves h and counts its model-list requests.
func countingServer(t *testing.T, h http.Handler) (url string, lists *atomic.Int64) {
	t.Helper()
	lists = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			lists.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, lists
}

// Clients without models: are asked for theirs (OpenAI, Claude and Gemini
// through their plugins), the answers are merged with the catalog and
// cached for a day, --refresh asks again, and an unreachable client is
// named on stderr without failing the listing.
func TestListModelsAsksTheProvidersAndCachesTheirAnswers(t *testing.T) {
	oaURL, oaLists := countingServer(t, (&fakellm.OpenAI{Models: []string{"gpt-4o-mini", "gpt-brand-new", "text-embedding-3-small"}}).Handler())
	clURL, clLists := countingServer(t, (&fakellm.Anthropic{APIKey: "ak", Models: []string{"claude-sonnet-4-5", "claude-next"}}).Handler())
	gmURL, gmLists := countingServer(t, (&fakellm.Gemini{APIKey: "gk", Models: []string{"gemini-2.5-flash", "gemini-9-preview", "text-embedding-004"}}).Handler())
	cfg := fmt.Sprintf(`clients:
  - type: openai
    api_base: %s/v1
    api_key: ok
  - type: claude
    api_base: %s/v1
    api_key: ak
  - type: gemini
    api_base: %s
    api_key: gk
  - type: openai-compatible
    name: dead
    api_base: %s
  - type: openai-compatible
    name: mine
    api_base: %s
    models: [{name: listed-by-hand}]
`, oaURL, clURL, gmURL, deadURL(t), deadURL(t))
	e := newEnv(t, cfg)

	want := []string{"openai:gpt-4o-mini", "openai:gpt-brand-new", "claude:claude-sonnet-4-5", "claude:claude-next",
		"gemini:gemini-2.5-flash", "gemini:gemini-9-preview", "mine:listed-by-hand"}
	check := func(r result, lists int64) {
		t.Helper()
		e.mustSucceed(r)
		if got := strings.Fields(r.stdout); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("--list-models printed\n%s\nwant\n%s", r.stdout, strings.Join(want, "\n"))
		}
		if !strings.Contains(r.stderr, `client "dead"`) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Fatalf("stderr should be one line naming the unreachable client: %q", r.stderr)
		}
		for name, n := range map[string]*atomic.Int64{"openai": oaLists, "claude": clLists, "gemini": gmLists} {
			if n.Load() != lists {
				t.Fatalf("%s was asked for its models %d times, want %d", name, n.Load(), lists)
			}
		}
	}
	check(e.run("", "--list-models"), 1)
	check(e.run("", "--list-models"), 1) // from the cache
	check(e.run("", "--list-models", "--refresh"), 2)

	// The cache keeps the catalog's facts for the models it knows, and
	// none for the others.
	b := mustRead(t, filepath.Join(e.cacheDir, "models", "openai.json"))
	if !strings.Contains(string(b), `"name":"gpt-4o-mini","max_input_tokens":`) || !strings.Contains(string(b), `{"name":"gpt-brand-new"}`) {
		t.Fatalf("openai's cached list: %s", b)
	}

	// A list older than a day is fetched again.
	old := []byte(strings.Replace(string(b), `"fetched_at":"2`, `"fetched_at":"1`, 1))
	if err := os.WriteFile(filepath.Join(e.cacheDir, "models", "openai.json"), old, 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "--list-models")
	e.mustSucceed(r)
	if oaLists.Load() != 3 || clLists.Load() != 2 {
		t.Fatalf("after openai's list expired: openai asked %d times, claude %d", oaLists.Load(), clLists.Load())
	}

	if r := e.run("", "--refresh"); r.code != 2 || !strings.Contains(r.stderr, "--refresh goes with --list-models") {
		t.Fatalf("--refresh alone: exit %d stderr %q", r.code, r.stderr)
	}
}

// A client that was listed once and is unreachable now shows its last
// list, and says so.
func TestListModelsOfAnUnreachableClientShowsItsLastList(t *testing.T) {
	fake := &fakellm.OpenAI{Models: []string{"qwen3:8b"}}
	srv := httptest.NewServer(fake.Handler())
	e := newEnv(t, fmt.Sprintf("clients:\n  - type: openai-compatible\n    name: local\n    api_base: %s\n", srv.URL))
	e.mustSucceed(e.run("", "--list-models", "--refresh"))
	srv.Close()
	r := e.run("", "--list-models", "--refresh")
	e.mustSucceed(r)
	if r.stdout != "local:qwen3:8b\n" || !strings.Contains(r.stderr, `client "local"`) {
		t.Fatalf("stdout %q stderr %q", r.stdout, r.stderr)
	}
}

const syncedCatalogYAML = `
- provider: openai
  models:
    - name: gpt-synced
      max_input_tokens: 1000
      input_price: 2
- provider: newco
  models:
    - name: newco-1
    - name: newco-embed
      type: embedding
`

// --sync-models writes the catalog it fetches to models-override.yaml,
// which the catalog is read from afterwards; one written by another
// version is ignored with a warning.
func TestSyncModels(t *testing.T) {
	var body atomic.Value
	body.Store(syncedCatalogYAML)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/models.yaml" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body.Load())
	}))
	t.Cleanup(srv.Close)
	dead := deadURL(t)
	cfg := fmt.Sprintf("sync_models_url: %s/models.yaml\nclients:\n  - type: openai-compatible\n    name: newco\n    api_base: %s\n", srv.URL, dead)
	e := newEnv(t, cfg)

	before := e.run("", "--list-models")
	e.mustSucceed(before)
	if before.stdout != "" {
		t.Fatalf("newco is in no catalog yet, but --list-models printed %q", before.stdout)
	}

	r := e.run("", "--sync-models")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "Synced 3 models of 2 providers") {
		t.Fatalf("--sync-models printed %q", r.stdout)
	}
	path := filepath.Join(e.configDir, "models-override.yaml")
	if b := mustRead(t, path); !strings.HasPrefix(string(b), "version: "+buildinfo.Version+"\n") {
		t.Fatalf("models-override.yaml:\n%s", b)
	}
	r = e.run("", "--list-models")
	e.mustSucceed(r)
	if r.stdout != "newco:newco-1\n" {
		t.Fatalf("after the sync --list-models printed %q (stderr %q)", r.stdout, r.stderr)
	}

	// A failed fetch keeps the synced catalog.
	body.Store("<html>try later</html>")
	r = e.run("", "--sync-models")
	if r.code == 0 || !strings.Contains(r.stderr, "not in the models.yaml format") {
		t.Fatalf("a bad catalog: exit %d stderr %q", r.code, r.stderr)
	}
	if b := mustRead(t, path); !strings.Contains(string(b), "newco-1") {
		t.Fatalf("a failed sync replaced the override:\n%s", b)
	}

	// Another version's file is ignored, with a warning.
	b := mustRead(t, path)
	other := strings.Replace(string(b), "version: "+buildinfo.Version, "version: 0.0.1", 1)
	if err := os.WriteFile(path, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	r = e.run("", "--list-models")
	e.mustSucceed(r)
	if r.stdout != "" || !strings.Contains(r.stderr, `synced by Coyote "0.0.1"`) {
		t.Fatalf("another version's override: stdout %q stderr %q", r.stdout, r.stderr)
	}
}
