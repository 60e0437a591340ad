package convo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// The kernel knows no RAG driver by name: the drivers are the store
// plugins installed (coyote-rag-<driver>), and what each can do comes from
// the plugin itself (Describe's capabilities, and its setup questions).

// RAGDrivers lists the drivers whose store plugins are installed, sorted,
// found by binary name in the plugin directories: it starts no plugin.
func (s *State) RAGDrivers() ([]string, error) {
	_, found, err := s.ragPlugins()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(found))
	for _, f := range found {
		out = append(out, f.Name)
	}
	slices.Sort(out)
	return out, nil
}

// ragPlugins finds the installed store plugins, starting none.
func (s *State) ragPlugins() (*plugins.Host, []plugins.Found, error) {
	if s.d.Host == nil {
		return nil, nil, errors.New("no plugin host")
	}
	host, err := s.d.Host()
	if err != nil {
		return nil, nil, err
	}
	var found []plugins.Found
	for _, f := range plugins.Discover(host.Dirs()) {
		if f.Kind == sdk.KindRAG && f.Name != "" {
			found = append(found, f)
		}
	}
	return host, found, nil
}

// DefaultRAGDriver is the driver a new RAG gets unless the user picks
// another: rag_default_driver.
func (s *State) DefaultRAGDriver() string {
	return s.d.Config.String("rag_default_driver")
}

// RAGDriver asks a driver's store plugin (starting it) what the driver
// can do. A driver with no plugin installed is a *rag.UnknownDriverError
// listing those that are.
func (s *State) RAGDriver(ctx context.Context, driver string) (rag.Driver, *plugins.RagStore, error) {
	store, err := s.ragStore("", driver)
	if err != nil {
		return rag.Driver{}, nil, err
	}
	desc, err := store.Describe(ctx)
	if err != nil {
		return rag.Driver{}, nil, fmt.Errorf("driver %q: %w", driver, err)
	}
	return driverOf(driver, desc), store, nil
}

// InspectRAGDrivers asks every installed store plugin what its driver can
// do, without keeping them: each is started (in parallel) and stopped
// again, except one this conversation already runs. A plugin that cannot
// be started or described is left out (`coyote plugins` says why);
// installed lists every driver found, sorted.
func (s *State) InspectRAGDrivers(ctx context.Context) (drivers []rag.Driver, installed []string, err error) {
	host, found, err := s.ragPlugins()
	if err != nil {
		return nil, nil, err
	}
	for _, rep := range host.Inspect(ctx, found, nil) {
		installed = append(installed, rep.Name)
		if rep.Err == nil && rep.Desc != nil {
			drivers = append(drivers, driverOf(rep.Name, rep.Desc))
		}
	}
	slices.Sort(installed)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(drivers, func(a, b rag.Driver) int { return strings.Compare(a.Name, b.Name) })
	return drivers, installed, nil
}

// driverOf is what a driver can do, as its plugin described itself.
func driverOf(name string, desc *sdk.Description) rag.Driver {
	d := rag.Driver{
		Name:      name,
		Owned:     desc.Has(ragstore.CapOwned),
		Attach:    desc.Has(ragstore.CapAttach),
		ListFiles: desc.Has(ragstore.CapListFiles),
		Setup:     desc.Has(ragstore.CapSetup),
		Graph:     desc.Has(ragstore.CapGraph),
	}
	if !d.Owned && !d.Attach {
		// A store that says neither keeps what it is given: every store
		// implements Upsert.
		d.Owned = true
	}
	return d
}

// RAGSetup returns the questions that set up a new RAG of a driver (none
// for a driver without setup).
func (s *State) RAGSetup(ctx context.Context, d rag.Driver, store *plugins.RagStore, name string, attached bool) (*ragstore.SetupResponse, error) {
	if !d.Setup {
		return &ragstore.SetupResponse{}, nil
	}
	resp, err := store.Setup(ctx, &ragstore.SetupRequest{Store: name, Attached: attached})
	if err != nil {
		return nil, fmt.Errorf("driver %q: %w", d.Name, err)
	}
	return resp, nil
}

// checkDriverConfig asks the driver's plugin to check a RAG's
// driver_config, cfg ({{SECRET}}s resolved), when the driver has setup. A
// refusal names the RAG's file.
func checkDriverConfig(ctx context.Context, d rag.Driver, store *plugins.RagStore, name string, f *rag.File, cfg map[string]any) error {
	if !d.Setup {
		return nil
	}
	err := store.ValidateConfig(ctx, &ragstore.ValidateConfigRequest{Store: name, DriverConfig: cfg, Attached: f.Attached})
	if errors.Is(err, sdk.ErrInvalidArgument) {
		return f.DriverConfigError(err)
	}
	return err
}
