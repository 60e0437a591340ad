package models

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const syncedCatalog = `
- provider: openai
  models:
    - name: gpt-9
      max_input_tokens: 2000000
      input_price: 1.5
      output_price: 6
- provider: newco
  models:
    - name: newco-1
`

func TestOverrideIsReadOverTheBuiltinCatalog(t *testing.T) {
	path := filepath.Join(t.TempDir(), OverrideFile)
	np, nm, err := WriteOverride(path, "1.2.3", []byte(syncedCatalog))
	if err != nil || np != 2 || nm != 2 {
		t.Fatalf("WriteOverride = %d, %d, %v", np, nm, err)
	}
	var warnings []string
	UseOverride(path, "1.2.3", func(w string) { warnings = append(warnings, w) })
	t.Cleanup(func() { UseOverride("", "", nil) })
	if ms := Catalog("openai"); len(ms) != 1 || ms[0].Name != "gpt-9" || ms[0].InputPrice != 1.5 {
		t.Fatalf("openai from the override = %+v", ms)
	}
	if ms := Catalog("newco"); len(ms) != 1 {
		t.Fatalf("a provider only the override has = %+v", ms)
	}
	// A provider the override does not list keeps the built-in models.
	if ms := Catalog("claude"); len(ms) == 0 || len(ms) != len(Builtin("claude")) {
		t.Fatalf("claude = %d models, built-in %d", len(ms), len(Builtin("claude")))
	}
	if len(warnings) != 0 {
		t.Fatalf("warnings: %v", warnings)
	}
}

func TestOverrideIsIgnoredWithAWarning(t *testing.T) {
	dir := t.TempDir()
	synced := filepath.Join(dir, "synced.yaml")
	if _, _, err := WriteOverride(synced, "1.2.3", []byte(syncedCatalog)); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.yaml")
	if err := os.WriteFile(garbage, []byte("version: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, version, warning string
	}{
		{"another version", synced, "1.2.4", `synced by Coyote "1.2.3", not this 1.2.4`},
		{"not YAML", garbage, "1.2.3", "is not a synced catalog"},
		{"no file", filepath.Join(dir, "none.yaml"), "1.2.3", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warnings []string
			UseOverride(tc.path, tc.version, func(w string) { warnings = append(warnings, w) })
			t.Cleanup(func() { UseOverride("", "", nil) })
			if ms := Catalog("openai"); len(ms) != len(Builtin("openai")) {
				t.Fatalf("openai has %d models, want the built-in %d", len(ms), len(Builtin("openai")))
			}
			Catalog("claude") // read once: one warning, not one per look-up
			if tc.warning == "" {
				if len(warnings) != 0 {
					t.Fatalf("warnings %v", warnings)
				}
				return
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], tc.warning) {
				t.Fatalf("warnings %v, want one with %q", warnings, tc.warning)
			}
		})
	}
	if _, err := ReadOverride(synced, "0.0.1"); !errors.Is(err, ErrOverrideVersion) {
		t.Fatalf("ReadOverride of another version: %v", err)
	}
}

func TestWriteOverrideRejectsWhatIsNotACatalog(t *testing.T) {
	path := filepath.Join(t.TempDir(), OverrideFile)
	if err := os.WriteFile(path, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"<html>rate limited</html>", "- models: []\n", "[]\n"} {
		if _, _, err := WriteOverride(path, "1", []byte(body)); err == nil {
			t.Fatalf("WriteOverride accepted %q", body)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Fatalf("a rejected catalog replaced the file: %q", b)
	}
}

func TestMergeKeepsCatalogFactsAndShowsUnknownModels(t *testing.T) {
	catalog := []Model{
		{Name: "gpt-5", MaxInputTokens: 400000, InputPrice: 1.25},
		{Name: "o4-mini"},
		{Name: "o4-mini-high", RealName: "o4-mini"},
		{Name: "gpt-retired"},
	}
	live := []Model{{Name: "zeta-new"}, {Name: "o4-mini"}, {Name: "gpt-5", MaxInputTokens: 1}, {Name: "text-embedding-9", Type: TypeEmbedding}}
	got := Merge(live, catalog)
	var names []string
	for _, m := range got {
		names = append(names, m.Name)
	}
	if want := "gpt-5 o4-mini o4-mini-high zeta-new text-embedding-9"; strings.Join(names, " ") != want {
		t.Fatalf("merged %q, want %q", strings.Join(names, " "), want)
	}
	if got[0].MaxInputTokens != 400000 || got[0].InputPrice != 1.25 {
		t.Fatalf("gpt-5 lost the catalog's facts: %+v", got[0])
	}
	if got[3].MaxInputTokens != 0 || got[3].InputPrice != 0 {
		t.Fatalf("an unknown model got facts: %+v", got[3])
	}
}

func TestListCache(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := ListCache{Dir: filepath.Join(t.TempDir(), "models"), Now: func() time.Time { return now }}
	if _, _, ok := c.Get("openai", "k"); ok {
		t.Fatal("an empty cache has a list")
	}
	if err := c.Put("a/b", "k", []Model{{Name: "m1"}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		key       string
		after     time.Duration
		ok, fresh bool
	}{
		{"just fetched", "k", 0, true, true},
		{"a day less a second", "k", CacheTTL - time.Second, true, true},
		{"a day old", "k", CacheTTL, true, false},
		{"fetched for another endpoint", "other", 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			later := ListCache{Dir: c.Dir, Now: func() time.Time { return now.Add(tc.after) }}
			ms, fresh, ok := later.Get("a/b", tc.key)
			if ok != tc.ok || fresh != tc.fresh || (ok && (len(ms) != 1 || ms[0].Name != "m1")) {
				t.Fatalf("Get = %v, %v, %v", ms, fresh, ok)
			}
		})
	}
	if entries, _ := os.ReadDir(c.Dir); len(entries) != 1 || entries[0].Name() != "a_b.json" {
		t.Fatalf("cache files: %v", entries)
	}
}
