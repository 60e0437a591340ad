package convo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// envSetupPlugin makes the test binary coyote-rag-remote: a store that
// only attaches and asks for a host, as a third party's might.
const envSetupPlugin = "COYOTE_CONVO_TEST_SETUP_RAG"

func init() {
	if os.Getenv(envSetupPlugin) != "" {
		sdk.Serve(sdk.Info{Name: "remote", Version: "0.0.2", Capabilities: []string{ragstore.CapAttach}},
			ragstore.Plugin(setupStore{storetest.Reference()}))
	}
}

type setupStore struct{ ragstore.Store }

func (setupStore) Setup(_ context.Context, req *ragstore.SetupRequest) (*ragstore.SetupResponse, error) {
	return &ragstore.SetupResponse{Questions: []ragstore.Question{{Key: "host", Prompt: "Host", Required: true}}}, nil
}

func (setupStore) ValidateConfig(_ context.Context, req *ragstore.ValidateConfigRequest) error {
	if req.DriverConfig["host"] == nil {
		return fmt.Errorf("driver_config.host is missing: name the server: %w", sdk.ErrInvalidArgument)
	}
	return nil
}

// driverState is ragState with coyote-rag-remote installed too.
func driverState(t *testing.T) *State {
	st := ragState(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host, _ := st.d.Host()
	dir := host.Dirs()[0]
	script := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q\n", envSetupPlugin, exe)
	if err := os.WriteFile(filepath.Join(dir, plugins.BinaryName(sdk.KindRAG, "remote")), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestRAGDriversComeFromTheInstalledStorePlugins(t *testing.T) {
	st := driverState(t)
	got, err := st.RAGDrivers()
	if err != nil || !reflect.DeepEqual(got, []string{"keep", "mem", "remote"}) {
		t.Fatalf("drivers %v, %v", got, err)
	}
	ctx := context.Background()
	for _, tt := range []struct {
		driver string
		want   rag.Driver
	}{
		// A store that announces neither owned nor attach owns its RAGs.
		{"keep", rag.Driver{Name: "keep", Owned: true}},
		{"remote", rag.Driver{Name: "remote", Attach: true, Setup: true}},
	} {
		d, _, err := st.RAGDriver(ctx, tt.driver)
		if err != nil || d != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.driver, d, err, tt.want)
		}
	}
	_, _, err = st.RAGDriver(ctx, "nosuch")
	var ue *rag.UnknownDriverError
	if !errors.As(err, &ue) || !reflect.DeepEqual(ue.Installed, []string{"keep", "mem", "remote"}) {
		t.Fatalf("unknown driver: %v", err)
	}
}

func TestOpenRAGAsksTheDriversPlugin(t *testing.T) {
	st := driverState(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name, yaml, want string
	}{
		{"owned by a driver that only attaches", "driver: remote\ntop_k: 1\nchunk_size: 10\n", "the remote driver only attaches to an external collection"},
		{"driver_config refused by the plugin", "driver: remote\nattached: true\ntop_k: 1\ndriver_config:\n  other: x\n", "kb.yaml:4: driver_config.host is missing: name the server"},
		{"unknown driver", "driver: nosuch\ntop_k: 1\nchunk_size: 10\n", `RAG kb: unknown driver "nosuch": no store plugin coyote-rag-nosuch is installed (installed: keep, mem, remote)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(st.d.Paths.RagsDir, "kb.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := rag.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = st.OpenRAG(ctx, f, "kb", ragstore.ReadOnly)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestOpenRAGResolvesDriverConfigOnce: the driver_config's secrets are
// looked up once per open (each lookup reads and decrypts the vault),
// for both the plugin's check and the store's open.
func TestOpenRAGResolvesDriverConfigOnce(t *testing.T) {
	st := driverState(t)
	secret := st.d.Secret
	lookups := 0
	st.d.Secret = func(name string) (string, error) {
		lookups++
		return secret(name)
	}
	writeRAG(t, st, "kb", "driver: remote\nattached: true\ntop_k: 1\ndriver_config:\n  host: '{{KEY}}'\n")
	f, err := rag.Load(st.RAGPath("kb"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.OpenRAG(context.Background(), f, "kb", ragstore.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	CloseRAG(r)
	if lookups != 1 {
		t.Fatalf("opening a RAG whose driver_config names one secret looked it up %d times, want 1", lookups)
	}
}

// TestInspectRAGDriversAsksEveryStorePlugin: every installed store plugin
// is asked what its driver can do; one that cannot start is installed
// but left out of the drivers.
func TestInspectRAGDriversAsksEveryStorePlugin(t *testing.T) {
	st := driverState(t)
	host, _ := st.d.Host()
	broken := filepath.Join(host.Dirs()[0], plugins.BinaryName(sdk.KindRAG, "broken"))
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho not a plugin\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	drivers, installed, err := st.InspectRAGDrivers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []rag.Driver{
		{Name: "keep", Owned: true},
		{Name: "mem", Owned: true},
		{Name: "remote", Attach: true, Setup: true},
	}
	if !reflect.DeepEqual(drivers, want) || !reflect.DeepEqual(installed, []string{"broken", "keep", "mem", "remote"}) {
		t.Fatalf("drivers %+v, installed %v; want %+v and broken, keep, mem, remote", drivers, installed, want)
	}
}
