package models

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// Merge combines the models a provider lists right now with what the
// catalog knows: every catalog model the provider still serves (by name or
// by real name, so that variants such as o4-mini-high follow o4-mini)
// keeps the catalog's facts — limits, prices, capabilities — and comes
// first, in catalog order; the models the catalog does not know follow, as
// the provider described them (often with unknown limits and prices).
func Merge(live, catalog []Model) []Model {
	served := make(map[string]bool, len(live))
	for _, m := range live {
		served[m.Name] = true
	}
	out := make([]Model, 0, len(live))
	known := map[string]bool{}
	for _, m := range catalog {
		if served[m.Name] || served[m.APIName()] {
			out = append(out, m)
			known[m.Name] = true
			known[m.APIName()] = true
		}
	}
	for _, m := range live {
		if !known[m.Name] {
			out = append(out, m)
			known[m.Name] = true
		}
	}
	return out
}

// CacheTTL is how long a client's discovered model list is used before
// the provider is asked again.
const CacheTTL = 24 * time.Hour

// cacheDoc is one client's cached model list. Key says what the list was
// asked of (the client's type and API base): a list fetched for another
// endpoint is not used.
type cacheDoc struct {
	Key       string    `json:"key"`
	FetchedAt time.Time `json:"fetched_at"`
	Models    []Model   `json:"models"`
}

// ListCache keeps each client's discovered model list in a directory, one
// JSON file per client.
type ListCache struct {
	Dir string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

func (c ListCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c ListCache) path(client string) string {
	// Client names are the user's; keep the file name to one path element.
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, client)
	if safe == "" || safe == "." || safe == ".." {
		safe = "_" + safe
	}
	return filepath.Join(c.Dir, safe+".json")
}

// Get returns the cached list of a client fetched for key, and whether
// it is still fresh. ok is false when there is none (or it is unreadable,
// or was fetched for another key).
func (c ListCache) Get(client, key string) (ms []Model, fresh, ok bool) {
	data, err := os.ReadFile(c.path(client))
	if err != nil {
		return nil, false, false
	}
	var doc cacheDoc
	if json.Unmarshal(data, &doc) != nil || doc.Key != key {
		return nil, false, false
	}
	age := c.now().Sub(doc.FetchedAt)
	return doc.Models, age >= 0 && age < CacheTTL, true
}

// Put stores a client's list, fetched now for key.
func (c ListCache) Put(client, key string, ms []Model) error {
	if c.Dir == "" {
		return errors.New("no cache directory")
	}
	data, err := json.Marshal(cacheDoc{Key: key, FetchedAt: c.now().UTC(), Models: ms})
	if err != nil {
		return err
	}
	if err := fsx.WriteFileAtomic(c.path(client), data, 0o600); err != nil {
		return fmt.Errorf("cache the models of client %q: %w", client, err)
	}
	return nil
}
