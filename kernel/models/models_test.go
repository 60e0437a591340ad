package models

import (
	"bytes"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/internal/compat"
)

// The embedded JSON must be what `go generate ./assets` makes of
// assets/models.yaml today.
func TestEmbeddedCatalogIsUpToDate(t *testing.T) {
	data, err := os.ReadFile("../../assets/models.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, err := CatalogJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for name, body := range files {
		want = append(want, strings.TrimSuffix(name, ".json"))
		got, ok := assets.CatalogProvider(strings.TrimSuffix(name, ".json"))
		if !ok || !bytes.Equal(got, body) {
			t.Fatalf("assets/catalog/%s is stale: run `go generate ./assets`", name)
		}
	}
	sort.Strings(want)
	if got := BuiltinProviders(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("embedded providers %v, catalog has %v: run `go generate ./assets`", got, want)
	}
}

func TestBuiltinDecodesOneProvider(t *testing.T) {
	ms := Builtin("claude")
	if len(ms) == 0 {
		t.Fatal("no claude models")
	}
	var found bool
	for _, m := range ms {
		if m.Name == "claude-opus-4-6:thinking" {
			found = true
			if m.APIName() != "claude-opus-4-6" || !m.RequireMaxTokens || m.MaxOutputTokens != 24000 || m.Patch == nil {
				t.Fatalf("thinking variant = %+v", m)
			}
		}
	}
	if !found {
		t.Fatal("claude-opus-4-6:thinking missing")
	}
	if Builtin("no-such-provider") != nil || Builtin("../etc") != nil {
		t.Fatal("found a provider that does not exist")
	}
}

func TestParseCatalogAcceptsTheOriginalFile(t *testing.T) {
	data := compat.ReadFile(t, "models.yaml")
	ps, err := ParseCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	var gemini *Provider
	for i := range ps {
		if ps[i].Provider == "gemini" {
			gemini = &ps[i]
		}
	}
	if len(ps) != 24 || gemini == nil {
		t.Fatalf("%d providers", len(ps))
	}
	// default_reasoning_level is read as default_reasoning_effort.
	if m := gemini.Models[0]; m.DefaultReasoningEffort != "medium" || m.Type != "" || !m.IsChat() {
		t.Fatalf("gemini model = %+v", m)
	}
	if _, err := ParseCatalog([]byte("- models: [{name: x}]")); err == nil {
		t.Fatal("an entry without a provider was accepted")
	}
}
