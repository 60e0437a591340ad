package cli

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/redact"
	"github.com/coyote-cli/coyote/kernel/vault"
	"github.com/coyote-cli/coyote/sdk"
	sdkvault "github.com/coyote-cli/coyote/sdk/vault"
)

// providerPlugins maps the secrets_provider types of the original's
// config.yaml to the names of the plugins that serve them
// (coyote-vault-<name>). Any other type names its plugin directly, so a
// third-party coyote-vault-<type> needs no entry here.
var providerPlugins = map[string]string{
	"aws_secrets_manager": "aws",
	"gcp_secret_manager":  "gcp",
	"azure_key_vault":     "azure",
	"gopass":              "gopass",
	"one_password":        "1password",
}

// providerConfig is config.yaml's secrets_provider block as written
// (placeholders are not allowed in it): its type and its other settings.
type providerConfig struct {
	Type     string
	Settings map[string]string
}

// readProviderConfig reads the secrets_provider block of config.yaml as
// written; nil when there is none (or it is the local vault). A block
// that is not a mapping with a type is an error naming the file.
func readProviderConfig(configFile string) (*providerConfig, error) {
	data, err := os.ReadFile(configFile)
	if err != nil {
		return nil, nil // no file: the local vault; reading errors are Config's to report
	}
	var doc struct {
		Provider yaml.Node `yaml:"secrets_provider"`
	}
	if yaml.Unmarshal(data, &doc) != nil || doc.Provider.Kind == 0 || doc.Provider.Tag == "!!null" {
		return nil, nil
	}
	if doc.Provider.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: secrets_provider must be a mapping with a type (local, aws_secrets_manager, gcp_secret_manager, azure_key_vault, gopass or one_password)", configFile, doc.Provider.Line)
	}
	pc := &providerConfig{Settings: map[string]string{}}
	for i := 0; i+1 < len(doc.Provider.Content); i += 2 {
		k, v := doc.Provider.Content[i], doc.Provider.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s:%d: secrets_provider.%s must be a single value", configFile, v.Line, k.Value)
		}
		if strings.Contains(v.Value, "{{") {
			return nil, fmt.Errorf("%s:%d: secrets_provider.%s cannot use a {{secret}}: the secrets provider's settings are read before any secret", configFile, v.Line, k.Value)
		}
		if k.Value == "type" {
			pc.Type = v.Value
			continue
		}
		if v.Tag != "!!null" {
			pc.Settings[k.Value] = v.Value
		}
	}
	switch pc.Type {
	case "":
		return nil, fmt.Errorf("%s:%d: secrets_provider needs a type (local, aws_secrets_manager, gcp_secret_manager, azure_key_vault, gopass or one_password)", configFile, doc.Provider.Line)
	case "local":
		return pc, nil
	}
	if strings.ContainsAny(pc.Type, "-/\\. ") {
		return nil, fmt.Errorf("%s:%d: secrets_provider type %q is not a provider name", configFile, doc.Provider.Line, pc.Type)
	}
	return pc, nil
}

// remoteStore is the secrets provider plugin config.yaml names, with the
// values it returned this run (a run asks the provider once per secret,
// and for every secret config.yaml names in one request).
type remoteStore struct {
	typ    string
	plugin *plugins.Vault

	mu      sync.Mutex
	values  map[string]string
	missing map[string]bool
}

// where names the provider in messages.
func (r *remoteStore) where() string { return "the secrets provider " + r.typ }

// fail makes a plugin's error one line naming the provider (and the
// secrets, which the plugin's message names too when it can), with what
// to do for the classes of failure every provider shares.
func (r *remoteStore) fail(op string, names []string, err error) error {
	what := op
	if len(names) > 0 {
		what += " " + strings.Join(names, ", ")
	}
	hint := ""
	var crash *plugins.CrashError
	switch {
	case errors.As(err, &crash):
	case errors.Is(err, sdk.ErrUnauthenticated):
		hint = " (sign in to the provider again: its credentials are missing or expired)"
	case errors.Is(err, sdk.ErrPermissionDenied):
		hint = " (the provider's credentials are not allowed to do this: ask for access)"
	case errors.Is(err, sdk.ErrUnavailable):
		hint = " (the provider cannot be reached: check the network and its settings, then try again)"
	}
	return fmt.Errorf("%s: %s: %w%s", r.where(), what, err, hint)
}

// prefetch asks the provider, in one request, for every name it has not
// been asked for yet, and keeps the answers for the run.
func (r *remoteStore) prefetch(ctx context.Context, names []string) error {
	r.mu.Lock()
	var want []string
	for _, n := range names {
		if _, ok := r.values[n]; !ok && !r.missing[n] && !slices.Contains(want, n) {
			want = append(want, n)
		}
	}
	r.mu.Unlock()
	if len(want) == 0 {
		return nil
	}
	resp, err := r.plugin.Get(ctx, &sdkvault.GetRequest{Names: want})
	if err != nil {
		return r.fail("get", want, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range want {
		if v, ok := resp.Values[n]; ok {
			r.values[n] = v
			redact.Add(n, v) // from now on, it never shows
		} else {
			r.missing[n] = true
		}
	}
	return nil
}

// get returns one secret, from this run's answers or from the provider.
func (r *remoteStore) get(ctx context.Context, name string) (string, error) {
	if err := r.prefetch(ctx, []string{name}); err != nil {
		return "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.values[name]; ok {
		return v, nil
	}
	return "", &vault.NotFoundIn{Name: name, Where: r.where()}
}

// forget drops a name from this run's answers after a change.
func (r *remoteStore) forget(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.values, name)
	delete(r.missing, name)
}

// checkedMarker is the file that records that a provider configuration
// passed the round-trip check, so that it is made once.
func checkedMarker(cacheDir string, pc *providerConfig) string {
	h := sha256.New()
	h.Write([]byte(pc.Type))
	for _, k := range slices.Sorted(maps.Keys(pc.Settings)) {
		fmt.Fprintf(h, "\x00%s=%s", k, pc.Settings[k])
	}
	return filepath.Join(cacheDir, "vault-checked", hex.EncodeToString(h.Sum(nil))[:32])
}

// roundTrip checks, the first time a provider configuration is used for
// the secret commands, that coyote can write, read back and delete a
// secret there (as the original does), so that a wrong setting or
// missing permission shows at once, in one line, rather than at the
// first run that needs a secret. A provider that cannot add or delete
// secrets is checked by reading alone.
func (r *remoteStore) roundTrip(ctx context.Context, marker string) error {
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	name := "COYOTE_CHECK_" + strings.ToUpper(hex.EncodeToString(b[:4]))
	value := hex.EncodeToString(b[4:])
	canSet, err := r.plugin.Has(ctx, sdkvault.CapSet)
	if err != nil {
		return r.fail("start", nil, err)
	}
	canDelete, _ := r.plugin.Has(ctx, sdkvault.CapDelete)
	failed := func(step string, err error) error {
		return fmt.Errorf("%s failed its first-use check (%s a test secret %s): %w", r.where(), step, name, err)
	}
	if canSet && canDelete {
		if err := r.plugin.Set(ctx, &sdkvault.SetRequest{Name: name, Value: value}); err != nil {
			return failed("adding", r.fail("add", []string{name}, err))
		}
		resp, err := r.plugin.Get(ctx, &sdkvault.GetRequest{Names: []string{name}})
		if err == nil && resp.Values[name] != value {
			err = errors.New("the value read back differs from the one written")
		}
		delErr := r.plugin.Delete(ctx, &sdkvault.DeleteRequest{Name: name})
		if err != nil {
			return failed("reading back", err)
		}
		if delErr != nil {
			return failed("deleting", r.fail("delete", []string{name}, delErr))
		}
	} else if _, err := r.plugin.Get(ctx, &sdkvault.GetRequest{Names: []string{name}}); err != nil {
		return failed("reading", r.fail("get", []string{name}, err))
	}
	if err := os.MkdirAll(filepath.Dir(marker), 0o700); err != nil {
		return nil // the check passed; it will be made again next time
	}
	_ = os.WriteFile(marker, nil, 0o600)
	return nil
}

// secretStore is where the secret commands act: the local vault or the
// configured provider.
type secretStore interface {
	where() string
	exists(ctx context.Context, name string) (bool, error)
	get(ctx context.Context, name string) (string, error)
	add(ctx context.Context, name, value string) error
	update(ctx context.Context, name, value string) error
	remove(ctx context.Context, name string) error
	list(ctx context.Context) ([]string, error)
}

func (r *remoteStore) exists(ctx context.Context, name string) (bool, error) {
	r.forget(name)
	_, err := r.get(ctx, name)
	if errors.Is(err, vault.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (r *remoteStore) add(ctx context.Context, name, value string) error {
	defer r.forget(name)
	if err := r.plugin.Set(ctx, &sdkvault.SetRequest{Name: name, Value: value}); err != nil {
		return r.fail("add", []string{name}, err)
	}
	return nil
}

func (r *remoteStore) update(ctx context.Context, name, value string) error {
	defer r.forget(name)
	if err := r.plugin.Update(ctx, &sdkvault.SetRequest{Name: name, Value: value}); err != nil {
		return r.fail("update", []string{name}, err)
	}
	return nil
}

func (r *remoteStore) remove(ctx context.Context, name string) error {
	defer r.forget(name)
	err := r.plugin.Delete(ctx, &sdkvault.DeleteRequest{Name: name})
	if errors.Is(err, sdk.ErrNotFound) {
		return &vault.NotFoundIn{Name: name, Where: r.where()}
	}
	if err != nil {
		return r.fail("delete", []string{name}, err)
	}
	return nil
}

func (r *remoteStore) list(ctx context.Context) ([]string, error) {
	names, err := r.plugin.List(ctx)
	if err != nil {
		return nil, r.fail("list", nil, err)
	}
	sort.Strings(names)
	return names, nil
}

// localStore is the local vault.
type localStore struct{ v *vault.Vault }

func (l localStore) where() string { return "the vault" }
func (l localStore) exists(_ context.Context, name string) (bool, error) {
	return l.v.Exists(name)
}
func (l localStore) get(_ context.Context, name string) (string, error) { return l.v.Get(name) }
func (l localStore) add(_ context.Context, name, value string) error    { return l.v.Add(name, value) }
func (l localStore) update(_ context.Context, name, value string) error { return l.v.Set(name, value) }
func (l localStore) remove(_ context.Context, name string) error        { return l.v.Delete(name) }
func (l localStore) list(context.Context) ([]string, error) {
	names, err := l.v.List()
	sort.Strings(names)
	return names, err
}
