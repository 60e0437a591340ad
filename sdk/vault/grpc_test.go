package vault_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/vault"
	"github.com/coyote-cli/coyote/sdk/vault/vaulttest"
)

// memory is a complete Vault kept in a map.
type memory struct {
	mu       sync.Mutex
	settings map[string]string
	m        map[string]string
}

func (v *memory) Configure(_ context.Context, req *vault.ConfigureRequest) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.settings = req.Settings
	return nil
}

func (v *memory) Get(_ context.Context, req *vault.GetRequest) (*vault.GetResponse, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := &vault.GetResponse{Values: map[string]string{}}
	for _, n := range req.Names {
		if s, ok := v.m[n]; ok {
			out.Values[n] = s
		} else {
			out.Missing = append(out.Missing, n)
		}
	}
	return out, nil
}

func (v *memory) Set(_ context.Context, req *vault.SetRequest) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.m[req.Name]; ok {
		return fmt.Errorf("secret %s exists: %w", req.Name, sdk.ErrFailedPrecondition)
	}
	v.m[req.Name] = req.Value
	return nil
}

func (v *memory) Update(_ context.Context, req *vault.SetRequest) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.m[req.Name]; !ok {
		return fmt.Errorf("secret %s: %w", req.Name, sdk.ErrNotFound)
	}
	v.m[req.Name] = req.Value
	return nil
}

func (v *memory) Delete(_ context.Context, req *vault.DeleteRequest) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.m[req.Name]; !ok {
		return fmt.Errorf("secret %s: %w", req.Name, sdk.ErrNotFound)
	}
	delete(v.m, req.Name)
	return nil
}

func (v *memory) List(context.Context) ([]string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Sorted(maps.Keys(v.m)), nil
}

// readOnly is a Vault with Get alone.
type readOnly struct{ memory }

type getOnly struct{ v *readOnly }

func (g getOnly) Configure(ctx context.Context, req *vault.ConfigureRequest) error {
	return g.v.Configure(ctx, req)
}
func (g getOnly) Get(ctx context.Context, req *vault.GetRequest) (*vault.GetResponse, error) {
	return g.v.Get(ctx, req)
}

func TestRoundTripOverTheWire(t *testing.T) {
	mem := &memory{m: map[string]string{}}
	conn := plugintest.Serve(t, sdk.Info{Name: "mem", Version: "1"}, vault.Plugin(mem))
	c := conn.Dispense(t, sdk.KindVault).(vault.Client)
	desc := conn.Describe(t)
	for _, capab := range []string{vault.CapSet, vault.CapUpdate, vault.CapDelete, vault.CapList} {
		if !desc.Has(capab) {
			t.Errorf("capability %s not announced: %v", capab, desc.Capabilities)
		}
	}
	if err := c.Configure(context.Background(), &vault.ConfigureRequest{Settings: map[string]string{"aws_region": "eu-west-1"}}); err != nil {
		t.Fatal(err)
	}
	if mem.settings["aws_region"] != "eu-west-1" {
		t.Errorf("settings = %v", mem.settings)
	}
	vaulttest.Run(t, c, vaulttest.Options{})
}

func TestAnOperationThePluginLacksIsUnsupported(t *testing.T) {
	ro := &readOnly{memory{m: map[string]string{"A": "1"}}}
	conn := plugintest.Serve(t, sdk.Info{Name: "ro", Version: "1"}, vault.Plugin(getOnly{ro}))
	c := conn.Dispense(t, sdk.KindVault).(vault.Client)
	if caps := conn.Describe(t).Capabilities; len(caps) != 0 {
		t.Errorf("capabilities = %v, want none", caps)
	}
	ctx := context.Background()
	for name, err := range map[string]error{
		"set":    c.Set(ctx, &vault.SetRequest{Name: "B", Value: "2"}),
		"update": c.Update(ctx, &vault.SetRequest{Name: "A", Value: "2"}),
		"delete": c.Delete(ctx, &vault.DeleteRequest{Name: "A"}),
	} {
		if !errors.Is(err, sdk.ErrUnsupported) {
			t.Errorf("%s = %v, want sdk.ErrUnsupported", name, err)
		}
	}
	if _, err := c.List(ctx); !errors.Is(err, sdk.ErrUnsupported) {
		t.Errorf("list = %v, want sdk.ErrUnsupported", err)
	}
	resp, err := c.Get(ctx, &vault.GetRequest{Names: []string{"A", "B"}})
	if err != nil || resp.Values["A"] != "1" || !slices.Equal(resp.Missing, []string{"B"}) {
		t.Errorf("get = %+v, %v", resp, err)
	}
}
