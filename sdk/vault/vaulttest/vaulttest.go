// Package vaulttest checks a secrets provider plugin against the contract
// of package vault: the same round trip of every operation, run by each
// plugin's tests against a fake of its service.
package vaulttest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

// Options say what a provider cannot keep.
type Options struct {
	// OneLine: values are one line (gopass keeps the first line as the
	// password); the round trip uses no line break.
	OneLine bool
}

// Run checks v, configured already and empty, through every operation it
// implements: a value with spaces, quotes and a line break comes back as
// it was set; a batch Get returns found and missing names together;
// Update and Delete of an unknown name wrap sdk.ErrNotFound; Set of an
// existing name fails; List has exactly the names set.
func Run(t *testing.T, v vault.Vault, o Options) {
	t.Helper()
	ctx := context.Background()
	st, canSet := v.(vault.Setter)
	if !canSet {
		t.Fatal("the plugin cannot set secrets; the round trip needs it")
	}
	values := map[string]string{
		"OPENAI_API_KEY": "sk-test-0123456789",
		"DB_PASSWORD":    "a value with spaces, 'quotes', \"double\" and\na second line",
	}
	if o.OneLine {
		values["DB_PASSWORD"] = "a value with spaces, 'quotes', \"double\" and $HOME"
	}
	for _, n := range []string{"OPENAI_API_KEY", "DB_PASSWORD"} {
		if err := st.Set(ctx, &vault.SetRequest{Name: n, Value: values[n]}); err != nil {
			t.Fatalf("Set %s: %v", n, err)
		}
	}
	if err := st.Set(ctx, &vault.SetRequest{Name: "OPENAI_API_KEY", Value: "other"}); err == nil {
		t.Error("Set of an existing secret succeeded; it must fail (use Update)")
	}
	resp, err := v.Get(ctx, &vault.GetRequest{Names: []string{"OPENAI_API_KEY", "NOPE_ONE", "DB_PASSWORD", "NOPE_TWO"}})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	for n, want := range values {
		if got, ok := resp.Values[n]; !ok || got != want {
			t.Errorf("Get %s = %q, %v; want %q", n, got, ok, want)
		}
	}
	missing := slices.Clone(resp.Missing)
	slices.Sort(missing)
	if !slices.Equal(missing, []string{"NOPE_ONE", "NOPE_TWO"}) {
		t.Errorf("Get missing = %v, want [NOPE_ONE NOPE_TWO]", resp.Missing)
	}
	if len(resp.Values) != 2 {
		t.Errorf("Get returned %d values, want 2: %v", len(resp.Values), keys(resp.Values))
	}
	if u, ok := v.(vault.Updater); ok {
		if err := u.Update(ctx, &vault.SetRequest{Name: "OPENAI_API_KEY", Value: "sk-rotated"}); err != nil {
			t.Fatalf("Update: %v", err)
		}
		resp, err := v.Get(ctx, &vault.GetRequest{Names: []string{"OPENAI_API_KEY"}})
		if err != nil || resp.Values["OPENAI_API_KEY"] != "sk-rotated" {
			t.Errorf("Get after Update = %v, %v; want sk-rotated", resp, err)
		}
		if err := u.Update(ctx, &vault.SetRequest{Name: "NOPE_ONE", Value: "x"}); !errors.Is(err, sdk.ErrNotFound) {
			t.Errorf("Update of a missing secret = %v, want sdk.ErrNotFound", err)
		}
	}
	if l, ok := v.(vault.Lister); ok {
		names, err := l.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"DB_PASSWORD", "OPENAI_API_KEY"}) {
			t.Errorf("List = %v, want [DB_PASSWORD OPENAI_API_KEY]", names)
		}
	}
	if d, ok := v.(vault.Deleter); ok {
		if err := d.Delete(ctx, &vault.DeleteRequest{Name: "DB_PASSWORD"}); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		resp, err := v.Get(ctx, &vault.GetRequest{Names: []string{"DB_PASSWORD"}})
		if err != nil || len(resp.Values) != 0 || !slices.Equal(resp.Missing, []string{"DB_PASSWORD"}) {
			t.Errorf("Get after Delete = %+v, %v; want it missing", resp, err)
		}
		if err := d.Delete(ctx, &vault.DeleteRequest{Name: "DB_PASSWORD"}); !errors.Is(err, sdk.ErrNotFound) {
			t.Errorf("Delete of a missing secret = %v, want sdk.ErrNotFound", err)
		}
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
