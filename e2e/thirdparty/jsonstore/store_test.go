package jsonstore

import (
	"context"
	"errors"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// TestConformance: the store passes the SDK's public suite, in process and
// over gRPC.
func TestConformance(t *testing.T) {
	s := storetest.Suite{Open: func(*testing.T) ragstore.Store { return New() }}
	s.Run(t)
	s.RunGRPC(t)
}

func TestDriverConfigDir(t *testing.T) {
	s := New()
	ctx := context.Background()
	if err := s.ValidateConfig(ctx, &ragstore.ValidateConfigRequest{DriverConfig: map[string]any{"dir": "relative"}}); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("relative dir: %v", err)
	}
	dir := t.TempDir()
	if err := s.ValidateConfig(ctx, &ragstore.ValidateConfigRequest{DriverConfig: map[string]any{"dir": dir}}); err != nil {
		t.Fatal(err)
	}
	if f, _ := fileOf("/rags/kb.yaml", map[string]any{"dir": dir}); f != dir+"/kb.jsonfile.json" {
		t.Fatalf("file %s", f)
	}
	if f, _ := fileOf("/rags/kb.yaml", nil); f != "/rags/kb.jsonfile.json" {
		t.Fatalf("file %s", f)
	}
}
