package httpkit

import (
	"sync"

	"github.com/coyote-cli/coyote/sdk"
)

// Clients holds the configured clients of one plugin process by name. A
// plugin process serves every client of its type; Configure puts, each
// request gets.
type Clients[C interface{ Close() }] struct {
	// Label makes a client's name into the start of an error message, such
	// as `claude client "work"`.
	Label func(name string) string

	mu sync.Mutex
	m  map[string]C
}

// Put registers c under name, closing the client it replaces.
func (cs *Clients[C]) Put(name string, c C) {
	cs.mu.Lock()
	if cs.m == nil {
		cs.m = map[string]C{}
	}
	old, had := cs.m[name]
	cs.m[name] = c
	cs.mu.Unlock()
	if had {
		old.Close()
	}
}

// Get returns the client of a name, or an error wrapping
// sdk.ErrFailedPrecondition when Configure never registered it.
func (cs *Clients[C]) Get(name string) (C, error) {
	cs.mu.Lock()
	c, ok := cs.m[name]
	cs.mu.Unlock()
	if !ok {
		return c, &Error{Msg: cs.Label(name) + " is not configured", Kind: sdk.ErrFailedPrecondition}
	}
	return c, nil
}
