package duckdbstore

import (
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// The shared contract suite, in process and over gRPC as the kernel sees
// the plugin.

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) ragstore.Store {
		d := New()
		t.Cleanup(func() { _ = d.CloseAll() })
		return d
	})
}

func TestContractOverGRPC(t *testing.T) {
	storetest.RunGRPC(t, func(t *testing.T) ragstore.Store {
		d := New()
		t.Cleanup(func() { _ = d.CloseAll() })
		return d
	})
}
