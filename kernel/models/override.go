package models

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// OverrideFile is the name of the synced catalog in the config directory.
const OverrideFile = "models-override.yaml"

// overrideDoc is models-override.yaml: the Coyote version that wrote it
// and a catalog in the models.yaml format.
type overrideDoc struct {
	Version string     `yaml:"version"`
	List    []Provider `yaml:"list"`
}

// override is the catalog read from models-override.yaml, read once, on
// the first look-up that needs it (most commands never consult the
// catalog, and parsing a whole catalog takes milliseconds).
var override struct {
	mu       sync.Mutex
	path     string
	version  string
	warn     func(string)
	loaded   bool
	provider map[string][]Model
}

// UseOverride makes Catalog read the synced catalog at path over the
// built-in one. The file is read on first use; a file written by another
// Coyote version, or one that does not parse, is ignored and warn is told
// why (warn may be nil). An empty path turns the override off.
func UseOverride(path, version string, warn func(string)) {
	override.mu.Lock()
	defer override.mu.Unlock()
	override.path, override.version, override.warn = path, version, warn
	override.loaded, override.provider = false, nil
}

// Catalog returns the catalog's models of a provider: the synced
// catalog's when models-override.yaml is in use and lists that provider,
// else the built-in one's.
func Catalog(provider string) []Model {
	if ms, ok := overridden(provider); ok {
		return ms
	}
	return Builtin(provider)
}

func overridden(provider string) ([]Model, bool) {
	override.mu.Lock()
	defer override.mu.Unlock()
	if override.path == "" {
		return nil, false
	}
	if !override.loaded {
		override.loaded = true
		ps, err := ReadOverride(override.path, override.version)
		if err != nil {
			if override.warn != nil && !errors.Is(err, fs.ErrNotExist) {
				override.warn(err.Error())
			}
		} else {
			override.provider = map[string][]Model{}
			for _, p := range ps {
				override.provider[p.Provider] = append(override.provider[p.Provider], p.Models...)
			}
		}
	}
	ms, ok := override.provider[provider]
	return ms, ok
}

// ErrOverrideVersion means models-override.yaml was written by another
// version of Coyote, whose catalog may not suit this one.
var ErrOverrideVersion = errors.New("version mismatch")

// ReadOverride reads a models-override.yaml. It fails with an error
// wrapping fs.ErrNotExist when there is none, and ErrOverrideVersion when
// another version of Coyote wrote it.
func ReadOverride(path, version string) ([]Provider, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc overrideDoc
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not a synced catalog, so it is ignored (run `coyote --sync-models` again): %v", path, err)
	}
	if doc.Version != version {
		return nil, fmt.Errorf("%s was synced by Coyote %q, not this %s, so it is ignored (run `coyote --sync-models` again): %w", path, doc.Version, version, ErrOverrideVersion)
	}
	for i, p := range doc.List {
		if p.Provider == "" {
			return nil, fmt.Errorf("%s: catalog entry %d has no provider, so the file is ignored", path, i+1)
		}
	}
	return doc.List, nil
}

// WriteOverride checks that catalog is a catalog in the models.yaml format
// and writes it to path (atomically) as the synced catalog of this
// version. It returns how many providers and models it holds.
func WriteOverride(path, version string, catalog []byte) (providers, models int, err error) {
	ps, err := ParseCatalog(catalog)
	if err != nil {
		return 0, 0, fmt.Errorf("the fetched catalog is not in the models.yaml format: %w", err)
	}
	if len(ps) == 0 {
		return 0, 0, errors.New("the fetched catalog lists no providers")
	}
	for _, p := range ps {
		models += len(p.Models)
	}
	out, err := yaml.Marshal(overrideDoc{Version: version, List: ps})
	if err != nil {
		return 0, 0, err
	}
	if err := fsx.WriteFileAtomic(path, out, 0o644); err != nil {
		return 0, 0, err
	}
	return len(ps), models, nil
}
