package plugins

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/coyote-cli/coyote/sdk"
)

// Kind declares one kind of plugin to the host: how its binaries are
// named, the kernel's side of its go-plugin plugin map entry, and how a
// new process of it is given again what the kernel had set up in the
// process before it (after a crash, say). Launch, supervision, the
// per-process bookkeeping and the replay itself are the host's, written
// once for every kind; a kind's typed handle (Provider, RagStore,
// MCPBridge) only adds its contract's methods on top of a *Handle.
//
// A new kind joins with one package-level Declare call in this package,
// beside its typed handle (see provider.go). C is the client
// the kind's SDK package dispenses in the kernel (provider.Provider); S is
// one piece of setup the kernel gives a process and that each new process
// must be given again before the first call that needs it (a client's
// configuration, an open store), kept under a key (the client's name, the
// store's name).
type Kind[C, S any] struct {
	// Name is the kind as plugins announce it in Describe, and the <kind>
	// of its binaries' names: one of the sdk.Kind constants.
	Name string
	// Noun names a plugin of the kind in messages: "a RAG store".
	Noun string
	// Singleton marks a kind served by one binary, coyote-<kind>, rather
	// than one binary per name, coyote-<kind>-<name>.
	Singleton bool
	// Plugin is the kernel's side of the kind in go-plugin's plugin map
	// (the SDK kind package's Plugin(nil)). Nil for a kind whose binaries
	// are found and listed but that the kernel has no contract for yet.
	Plugin sdk.Plugin
	// Replay gives a process one piece of setup it does not have yet, or
	// has in an older revision, before a call that needs it.
	Replay func(ctx context.Context, c C, key string, setup S) error
	// Missing is the error for a call that needs setup under key that the
	// kernel never gave (or withdrew): "client … has no configuration".
	// Nil gives a generic one.
	Missing func(binary, key string) error
	// EnvPrefixes are the environment variables a plugin of the kind is
	// given beyond the ones every plugin gets (envlist.Base, the proxies):
	// those whose names start with one of them, or are one of them. They
	// carry the credentials of the services the kind's plugins reach
	// (AWS_, AZURE_), never a secret the kernel resolved.
	EnvPrefixes []string
}

// kindInfo is what the host needs to know of a kind without its types.
type kindInfo struct {
	singleton bool
	plugin    sdk.Plugin
	env       []string
}

// kinds are the declared kinds by name. Declare fills it while the
// package's variables are initialised, so reading needs no lock.
var kinds = map[string]*kindInfo{}

// Declare makes a kind known to the host (discovery, the plugin map) and
// returns it. Call it once per kind, from a package-level variable.
func Declare[C, S any](k *Kind[C, S]) *Kind[C, S] {
	if k.Name == "" || strings.Contains(k.Name, "-") {
		panic(fmt.Sprintf("plugins: kind name %q must be one word", k.Name))
	}
	if _, dup := kinds[k.Name]; dup {
		panic("plugins: kind " + k.Name + " declared twice")
	}
	kinds[k.Name] = &kindInfo{singleton: k.Singleton, plugin: k.Plugin, env: k.EnvPrefixes}
	return k
}

// kindNames lists the names of the declared kinds, sorted.
func kindNames() []string {
	out := make([]string, 0, len(kinds))
	for n := range kinds {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// kindEnv is the part of environ that the plugins of a kind get on top
// of every plugin's (Kind.EnvPrefixes).
func kindEnv(kind string, environ []string) []string {
	k := kinds[kind]
	if k == nil || len(k.env) == 0 {
		return nil
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		for _, p := range k.env {
			if strings.HasPrefix(name, p) {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}

// hostPlugins is the kernel's side of every declared kind.
func hostPlugins() map[int]goplugin.PluginSet {
	var ps []sdk.Plugin
	for _, name := range kindNames() {
		if p := kinds[name].plugin; p != nil {
			ps = append(ps, p)
		}
	}
	return sdk.VersionedPlugins(sdk.Info{}, ps...)
}

// Handle is the typed, supervised handle on one plugin of a kind. Calls
// go to the live process (started on first use); the setup the kernel
// gives the plugin is remembered by key and revision, and replayed into
// each new process before the first call that needs it.
type Handle[C, S any] struct {
	kind *Kind[C, S]
	pl   *Plugin

	mu    sync.Mutex
	setup map[string]setupEntry[S]
	revs  int // the last revision handed out
	typed any // the kind's typed handle on top of this one
}

type setupEntry[S any] struct {
	s   S
	rev int
}

// conn is what one process has of a handle: its client, once dispensed,
// and the revision of each piece of setup it was given.
type conn[C any] struct {
	mu      sync.Mutex
	client  C
	ready   bool
	applied map[string]int
}

// handleOf returns the handle of kind k on the plugin named name (empty
// for a singleton kind), without starting it. Aliases of one binary share
// one plugin and so one handle.
func handleOf[C, S any](h *Host, k *Kind[C, S], name string) (*Handle[C, S], error) {
	pl, err := h.Lookup(k.Name, name)
	if err != nil {
		return nil, err
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if hd, ok := pl.handles[k.Name].(*Handle[C, S]); ok {
		return hd, nil
	}
	hd := &Handle[C, S]{kind: k, pl: pl, setup: map[string]setupEntry[S]{}}
	pl.handles[k.Name] = hd
	return hd, nil
}

// typedHandle returns the kind's typed handle (a *Provider) on top of hd,
// making it with mk the first time, so that a host has one per plugin.
// The wrapper holds nothing but hd, yet its identity is part of the
// contract: callers compare handles (convo.UseRAG keeps a reopened RAG's
// store open when its Store is the one it had, and a fresh wrapper for
// the same plugin would have it close the store it just opened).
func typedHandle[T any, C, S any](hd *Handle[C, S], mk func(*Handle[C, S]) T) T {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	if t, ok := hd.typed.(T); ok {
		return t
	}
	t := mk(hd)
	hd.typed = t
	return t
}

// Plugin is the supervised plugin behind the handle.
func (hd *Handle[C, S]) Plugin() *Plugin { return hd.pl }

// Remember records setup under key, to be given to each process before
// its next call that needs it (the live one included: it has an older
// revision). The same setup again changes nothing: a process that has it
// keeps it (a provider plugin keeps the connection it opened for it).
func (hd *Handle[C, S]) Remember(key string, s S) {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	if old, ok := hd.setup[key]; ok && reflect.DeepEqual(old.s, s) {
		return
	}
	hd.revs++
	hd.setup[key] = setupEntry[S]{s: s, rev: hd.revs}
}

// Knows reports whether setup is remembered under key.
func (hd *Handle[C, S]) Knows(key string) bool {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	_, ok := hd.setup[key]
	return ok
}

// Call runs fn with the live process's client, giving it no setup.
func (hd *Handle[C, S]) Call(ctx context.Context, fn func(*Process, C) error) error {
	return hd.pl.Call(ctx, func(proc *Process) error {
		c, err := hd.conn(proc)
		if err != nil {
			return err
		}
		return fn(proc, c.client)
	})
}

// CallFor runs fn with the live process's client once the setup under key
// is in it. Setup never given is refused with the kind's Missing error,
// before any process starts.
func (hd *Handle[C, S]) CallFor(ctx context.Context, key string, fn func(*Process, C) error) error {
	if !hd.Knows(key) {
		return hd.missing(key)
	}
	return hd.pl.Call(ctx, func(proc *Process) error {
		c, err := hd.conn(proc)
		if err != nil {
			return err
		}
		c.mu.Lock()
		err = hd.replay(ctx, proc, c, key)
		c.mu.Unlock()
		if err != nil {
			return err
		}
		return fn(proc, c.client)
	})
}

// CallSetUp runs fn with the live process's client once all remembered
// setup is in it.
func (hd *Handle[C, S]) CallSetUp(ctx context.Context, fn func(*Process, C) error) error {
	return hd.pl.Call(ctx, func(proc *Process) error {
		c, err := hd.conn(proc)
		if err != nil {
			return err
		}
		c.mu.Lock()
		for _, key := range hd.keys() {
			if err = hd.replay(ctx, proc, c, key); err != nil {
				break
			}
		}
		c.mu.Unlock()
		if err != nil {
			return err
		}
		return fn(proc, c.client)
	})
}

// Update gives the live process (starting one if needed) new setup under
// key at once: apply runs with the process's client and whether the
// process had setup under that key already. On success the setup is
// remembered for later processes; on failure it is forgotten, so no later
// process is given setup that failed.
func (hd *Handle[C, S]) Update(ctx context.Context, key string, s S, apply func(c C, had bool) error) error {
	hd.mu.Lock()
	hd.revs++
	rev := hd.revs
	hd.mu.Unlock()
	err := hd.pl.Call(ctx, func(proc *Process) error {
		c, err := hd.conn(proc)
		if err != nil {
			return err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		_, had := c.applied[key]
		delete(c.applied, key)
		if err := apply(c.client, had); err != nil {
			return err
		}
		c.applied[key] = rev
		return nil
	})
	hd.mu.Lock()
	defer hd.mu.Unlock()
	if err != nil {
		delete(hd.setup, key)
		return err
	}
	hd.setup[key] = setupEntry[S]{s: s, rev: rev}
	return nil
}

// Withdraw forgets the setup under key. A live process that has it is
// told through undo (closing a store); no process is started for that.
func (hd *Handle[C, S]) Withdraw(ctx context.Context, key string, undo func(C) error) error {
	hd.mu.Lock()
	_, known := hd.setup[key]
	delete(hd.setup, key)
	hd.mu.Unlock()
	if !known || hd.pl.live() == nil {
		return nil
	}
	return hd.pl.Call(ctx, func(proc *Process) error {
		c, err := hd.conn(proc)
		if err != nil {
			return err
		}
		c.mu.Lock()
		_, had := c.applied[key]
		delete(c.applied, key)
		c.mu.Unlock()
		if !had {
			return nil
		}
		return undo(c.client)
	})
}

func (hd *Handle[C, S]) missing(key string) error {
	if hd.kind.Missing != nil {
		return hd.kind.Missing(hd.pl.Binary, key)
	}
	return fmt.Errorf("plugin %s was given no setup %q: %w", hd.pl.Binary, key, sdk.ErrFailedPrecondition)
}

// keys are the keys of the remembered setup, sorted, so a process is set
// up in the same order every time.
func (hd *Handle[C, S]) keys() []string {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	out := make([]string, 0, len(hd.setup))
	for k := range hd.setup {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// replay gives the process the setup under key if it lacks it or has an
// older revision; c.mu is held.
func (hd *Handle[C, S]) replay(ctx context.Context, proc *Process, c *conn[C], key string) error {
	hd.mu.Lock()
	e, ok := hd.setup[key]
	hd.mu.Unlock()
	if !ok { // withdrawn meanwhile
		return hd.missing(key)
	}
	if c.applied[key] == e.rev {
		return nil
	}
	if proc.Gen > 1 {
		if _, had := c.applied[key]; !had {
			hd.pl.log.Debug("setting up again in a new process", "kind", hd.kind.Name, "key", key, "generation", proc.Gen)
		}
	}
	if err := hd.kind.Replay(ctx, c.client, key, e.s); err != nil {
		return err
	}
	c.applied[key] = e.rev
	return nil
}

// conn returns what the process has of this handle, dispensing its client
// on first use. A plugin that does not serve the kind (a binary named like
// one kind that serves another) is refused readably.
func (hd *Handle[C, S]) conn(proc *Process) (*conn[C], error) {
	c := proc.State(hd.kind.Name, func() any { return &conn[C]{applied: map[string]int{}} }).(*conn[C])
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ready {
		return c, nil
	}
	client, err := dispense[C](proc, hd.pl.Binary, hd.kind.Name, hd.kind.Noun)
	if err != nil {
		return nil, err
	}
	c.client, c.ready = client, true
	return c, nil
}

// dispense returns the process's client of a kind, as type T. A plugin
// that does not serve the kind is refused readably; what names the kind
// in errors ("a RAG store", "the MCP bridge").
func dispense[T any](proc *Process, binary, kind, what string) (T, error) {
	var zero T
	desc := proc.Description()
	if !slices.Contains(desc.Kinds, kind) {
		return zero, fmt.Errorf("plugin %s is not %s (it serves: %s): %w", binary, what, strings.Join(desc.Kinds, ", "), sdk.ErrUnsupported)
	}
	raw, err := proc.Dispense(kind)
	if err != nil {
		return zero, fmt.Errorf("plugin %s: %w", binary, err)
	}
	c, ok := raw.(T)
	if !ok {
		return zero, fmt.Errorf("plugin %s: dispensed %T, not %s", binary, raw, what)
	}
	return c, nil
}
