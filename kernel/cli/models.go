package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/kernel/buildinfo"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/models"
)

// defaultSyncModelsURL is where --sync-models fetches the catalog when
// sync_models_url is unset: this project's own models.yaml.
const defaultSyncModelsURL = "https://raw.githubusercontent.com/coyote-cli/coyote/main/assets/models.yaml"

// syncModelsLimit bounds the whole download, and maxCatalogBytes its size.
const (
	syncModelsLimit = 30 * time.Second
	maxCatalogBytes = 16 << 20
)

// runSyncModels fetches the catalog from sync_models_url into
// models-override.yaml, which the catalog is read from from then on.
func runSyncModels(ctx context.Context, f *Factory) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	p, err := f.Paths()
	if err != nil {
		return err
	}
	url := cfg.String("sync_models_url")
	if url == "" {
		url = defaultSyncModelsURL
	}
	data, err := fetchCatalog(ctx, url)
	if err != nil {
		return fmt.Errorf("sync the models from %s: %w (set sync_models_url to another copy of the catalog)", url, err)
	}
	path := filepath.Join(p.ConfigDir, models.OverrideFile)
	np, nm, err := models.WriteOverride(path, buildinfo.Version, data)
	if err != nil {
		return fmt.Errorf("sync the models from %s: %w", url, err)
	}
	_, err = fmt.Fprintf(f.IO.Out, "Synced %d models of %d providers from %s into %s.\n", nm, np, url, path)
	return err
}

func fetchCatalog(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, syncModelsLimit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "coyote/"+buildinfo.Version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the server answered %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxCatalogBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxCatalogBytes {
		return nil, fmt.Errorf("the catalog is larger than %d MiB", maxCatalogBytes>>20)
	}
	return data, nil
}

// runListModels prints every chat model of every client, one id per line.
// A client that lists its own models shows those. Any other client is
// asked for the models it serves (through its plugin), merged with the
// catalog's facts and cached for a day; refresh asks again whatever the
// cache holds. A client that cannot be asked is named on stderr and shows
// what is known of it (its last list, else the catalog's), and the others
// are still listed.
func runListModels(ctx context.Context, f *Factory, refresh bool) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	p, err := f.Paths()
	if err != nil {
		return err
	}
	lists := discoverModels(ctx, f, cfg, models.ListCache{Dir: filepath.Join(p.CacheDir, "models")}, refresh)
	var b strings.Builder
	for i := range cfg.Clients {
		c := &cfg.Clients[i]
		for _, m := range lists[i] {
			if m.IsChat() {
				fmt.Fprintf(&b, "%s:%s\n", c.Name, m.Name)
			}
		}
	}
	_, err = io.WriteString(f.IO.Out, b.String())
	return err
}

// discoverModels returns the models of each client, in config order,
// asking the providers of the clients whose lists are not cached at the
// same time.
func discoverModels(ctx context.Context, f *Factory, cfg *config.Config, cache models.ListCache, refresh bool) [][]models.Model {
	lists := make([][]models.Model, len(cfg.Clients))
	// Each goroutine writes only its own client's slots.
	var wg sync.WaitGroup
	fails := make([]error, len(cfg.Clients))
	for i := range cfg.Clients {
		c := &cfg.Clients[i]
		if len(c.Models) > 0 {
			lists[i] = c.Models
			continue
		}
		key := discoveryKey(c)
		cached, fresh, ok := cache.Get(c.Name, key)
		if ok && fresh && !refresh {
			lists[i] = cached
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			live, err := liveModels(ctx, f, c)
			if err == nil && len(live) == 0 {
				err = errors.New("it lists no models")
			}
			if err != nil {
				fails[i] = err
				if ok {
					lists[i] = cached
				} else {
					lists[i] = llm.ClientModels(c)
				}
				return
			}
			lists[i] = models.Merge(live, llm.ClientModels(c))
			if err := cache.Put(c.Name, key, lists[i]); err != nil {
				f.Logger().Warn("cache a model list", "client", c.Name, "error", err)
			}
		}()
	}
	wg.Wait()
	for i, err := range fails {
		if err != nil {
			fmt.Fprintf(f.IO.ErrOut, "warning: cannot ask client %q for its models, so its known models are listed: %v\n", cfg.Clients[i].Name, err)
		}
	}
	return lists
}

// discoveryKey is what a client's model list depends on: a list asked of
// another type or endpoint is not reused.
func discoveryKey(c *config.Client) string { return c.Type + " " + c.APIBase }

func liveModels(ctx context.Context, f *Factory, c *config.Client) ([]models.Model, error) {
	host, err := f.Host()
	if err != nil {
		return nil, err
	}
	conn, err := llm.Connect(ctx, host, c)
	if err != nil {
		return nil, err
	}
	return conn.LiveModels(ctx)
}
