package qdrantstore_test

import (
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantfake"
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantstore"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// fakes gives each test (and its subtests' reopened stores) one fake
// Qdrant, as the suite asks of a server-backed store.
type fakes struct {
	mu sync.Mutex
	m  map[*testing.T]*qdrantfake.Server
}

func (f *fakes) of(t *testing.T) *qdrantfake.Server {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.m[t]; ok {
		return s
	}
	s := qdrantfake.Start(t)
	f.m[t] = s
	t.Cleanup(func() {
		f.mu.Lock()
		delete(f.m, t)
		f.mu.Unlock()
	})
	return s
}

func ownedSuite() storetest.Suite {
	f := &fakes{m: map[*testing.T]*qdrantfake.Server{}}
	return storetest.Suite{
		Open: func(t *testing.T) ragstore.Store {
			f.of(t)
			s := qdrantstore.New()
			t.Cleanup(s.CloseAll)
			return s
		},
		Request: func(t *testing.T, req *ragstore.OpenRequest) {
			req.DriverConfig = map[string]any{"host": f.of(t).URL()}
		},
	}
}

func TestOwnedStoreKeepsTheStoreContract(t *testing.T) {
	ownedSuite().Run(t)
}

func TestOwnedStoreKeepsTheStoreContractOverGRPC(t *testing.T) {
	ownedSuite().RunGRPC(t)
}
