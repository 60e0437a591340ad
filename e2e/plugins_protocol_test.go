package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// coyote-provider-old (internal/testplugins/oldprovider) is built from the
// first provider contract, before embeddings and reranking joined it, and
// imports no SDK code: what a plugin built with that SDK release looks
// like to this kernel.

func TestPluginOfThePreviousContractKeepsWorking(t *testing.T) {
	e := newEnv(t, "model: o:m\nclients:\n  - {type: old, name: o, models: [{name: m}]}\n").
		set("COYOTE_PLUGINS_DIR=" + testPluginDir)
	r := e.run("", "hello", "from", "today")
	e.mustSucceed(r)
	if r.stdout != "old plugin: hello from today\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
	row := listedRow(t, e, "coyote-provider-old")
	if f := strings.Fields(row); len(f) != 6 || f[2] != "0.9.0" || f[3] != "1" || f[4] != "chat,streaming" {
		t.Fatalf("coyote plugins row: %q", row)
	}
}

func TestCapabilityTheOldPluginLacksIsReadablyUnsupported(t *testing.T) {
	h := plugins.New(plugins.Options{Dirs: []string{testPluginDir}})
	defer h.Close()
	p, err := h.Provider("old")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, _ = p.Configure(ctx, &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "o", Type: "old"}})
	// What the old contract had works...
	if resp, err := p.ListModels(ctx, &provider.ListModelsRequest{Client: "o"}); err != nil || len(resp.Models) != 1 {
		t.Fatalf("ListModels: %+v, %v", resp, err)
	}
	// ...and what joined it later is refused by name, without a call the
	// plugin could not answer.
	_, err = p.Embed(ctx, &provider.EmbedRequest{Client: "o", Model: "m", Inputs: []string{"x"}})
	if !errors.Is(err, sdk.ErrUnsupported) || err.Error() != "embeddings is not supported by plugin coyote-provider-old v0.9.0: not supported" {
		t.Fatalf("Embed: %v", err)
	}
	_, err = p.Rerank(ctx, &provider.RerankRequest{Client: "o", Model: "m", Query: "q", Documents: []string{"d"}})
	if !errors.Is(err, sdk.ErrUnsupported) || !strings.HasPrefix(err.Error(), "reranking is not supported by plugin coyote-provider-old v0.9.0") {
		t.Fatalf("Rerank: %v", err)
	}
	// Even asked without the capability check, the old plugin's answer
	// (gRPC's Unimplemented) is a readable refusal, not a crash.
	err = p.Plugin().Call(ctx, func(proc *plugins.Process) error {
		raw, err := proc.Dispense(sdk.KindProvider)
		if err != nil {
			return err
		}
		_, err = raw.(provider.Embedder).Embed(ctx, &provider.EmbedRequest{Client: "o", Model: "m", Inputs: []string{"x"}})
		return err
	})
	if !errors.Is(err, sdk.ErrUnsupported) || !strings.HasPrefix(err.Error(), "Embed of coyotecli.sdk.provider.v1.Provider is not supported by plugin coyote-provider-old v0.9.0") {
		t.Fatalf("raw Embed: %v", err)
	}
	// The refusals are not failures of the plugin: it still answers.
	var out strings.Builder
	err = p.Chat(ctx, &provider.ChatRequest{Client: "o", Model: "m", Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "still there?")}},
		func(ev *provider.ChatEvent) error { out.WriteString(ev.Text); return nil })
	if err != nil || out.String() != "old plugin: still there?" {
		t.Fatalf("Chat after the refusals: %q, %v", out.String(), err)
	}
}
