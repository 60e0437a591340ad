package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// A kind that exists only in this test, to show what a new kind gets from
// its declaration alone: discovery, launch, the kind check, replay of its
// setup into a new process after a crash, and crash reports. Its wire
// contract is the provider's, under another kind name.
var testKind = Declare(&Kind[provider.Provider, string]{
	Name:   "testkind",
	Noun:   "a test kind",
	Plugin: renamedKind{provider.Plugin(nil)},
	// The setup under a client's name is its api_base.
	Replay: func(ctx context.Context, c provider.Provider, client, apiBase string) error {
		_, err := c.Configure(ctx, &provider.ConfigureRequest{Client: provider.ClientConfig{Name: client, APIBase: apiBase}})
		return err
	},
})

type renamedKind struct{ sdk.Plugin }

func (renamedKind) Kind() string { return "testkind" }

const envKindPlugin = "COYOTE_TEST_KIND_PLUGIN"

func init() {
	if os.Getenv(envKindPlugin) != "" {
		sdk.Serve(sdk.Info{Name: "x", Version: "0.0.1"}, renamedKind{provider.Plugin(&testProvider{})})
	}
}

func TestANewKindJoinsByDeclaringItself(t *testing.T) {
	if kind, name, ok := ParseBinaryName("coyote-testkind-x"); !ok || kind != "testkind" || name != "x" {
		t.Fatalf("discovery does not know the declared kind: %q %q %v", kind, name, ok)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q\n", envKindPlugin, exe)
	if err := os.WriteFile(filepath.Join(dir, "coyote-testkind-x"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h := New(Options{Dirs: []string{dir}, Logger: hclog.New(&hclog.LoggerOptions{Output: testWriter{t}, Level: hclog.Debug})})
	t.Cleanup(h.Close)
	if found := Discover(h.Dirs()); len(found) != 1 || found[0].Kind != "testkind" {
		t.Fatalf("Discover = %+v", found)
	}
	hd, err := handleOf(h, testKind, "x")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ask := func(text string) (string, error) {
		var out string
		err := hd.CallFor(ctx, "c", func(_ *Process, c provider.Provider) error {
			return c.Chat(ctx, &provider.ChatRequest{Client: "c", Messages: []provider.Message{provider.TextMessage(provider.RoleUser, text)}},
				func(ev *provider.ChatEvent) error { out += ev.Text; return nil })
		})
		return out, err
	}
	if _, err := ask("hi"); err == nil || err.Error() != `plugin coyote-testkind-x was given no setup "c": failed precondition` {
		t.Fatalf("a call before any setup: %v", err)
	}
	hd.Remember("c", "fine")
	before, err := ask("pid")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ask("crash"); !errors.As(err, new(*CrashError)) {
		t.Fatalf("crash: %v", err)
	}
	// The setup is replayed into the new process: a setup the plugin
	// refuses shows that it was sent.
	hd.Remember("c", "reject")
	if _, err := ask("pid"); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("the new process was not given the setup: %v", err)
	}
	hd.Remember("c", "fine")
	after, err := ask("pid")
	if err != nil || after == before || hd.Plugin().cur.Gen != 2 {
		t.Fatalf("after the crash: pid %s (before %s), %v, generation %d", after, before, err, hd.Plugin().cur.Gen)
	}
	// A binary of another kind named like this one is refused readably.
	if err := os.WriteFile(filepath.Join(dir, "coyote-testkind-y"), []byte(fmt.Sprintf("#!/bin/sh\nCOYOTE_TEST_PLUGIN=y exec %q\n", exe)), 0o755); err != nil {
		t.Fatal(err)
	}
	other, err := handleOf(h, testKind, "y")
	if err != nil {
		t.Fatal(err)
	}
	err = other.Call(ctx, func(*Process, provider.Provider) error { return nil })
	if !errors.Is(err, sdk.ErrUnsupported) || err.Error() != "plugin coyote-testkind-y is not a test kind (it serves: provider): not supported" {
		t.Fatalf("a provider named like a test kind: %v", err)
	}
}

// A client configured again with the same setup (a second connection to
// it, an OAuth token that did not change) must not be replayed, or the
// plugin would replace the client and drop the connection it opened
// ahead of the request.
func TestRememberingTheSameSetupAgainIsNoChange(t *testing.T) {
	type setup struct {
		Base    string
		Options map[string]any
	}
	hd := &Handle[provider.Provider, setup]{setup: map[string]setupEntry[setup]{}}
	hd.Remember("c", setup{Base: "a", Options: map[string]any{"k": []any{1}}})
	rev := hd.revs
	hd.Remember("c", setup{Base: "a", Options: map[string]any{"k": []any{1}}})
	if hd.revs != rev {
		t.Fatalf("an equal setup made revision %d (was %d): the live process would be configured again", hd.revs, rev)
	}
	hd.Remember("c", setup{Base: "b"})
	if hd.revs == rev || hd.setup["c"].s.Base != "b" {
		t.Fatalf("a changed setup was not recorded: revision %d, setup %+v", hd.revs, hd.setup["c"].s)
	}
}
