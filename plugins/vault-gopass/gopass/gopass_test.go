package gopass

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/plugins/vault-gopass/gopassfake"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
	"github.com/coyote-cli/coyote/sdk/vault/vaulttest"
)

// The test binary is also the stand-in gopass (package gopassfake) when
// run under that name.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "gopass" {
		os.Exit(gopassfake.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// standIn puts the stand-in gopass first on PATH and returns its
// directory.
func standIn(t *testing.T) string {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "gopass")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("GOPASS_FAKE_DIR", dir)
	return dir
}

func argvLog(t *testing.T, dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, "argv.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestRoundTripThroughGopass(t *testing.T) {
	for _, store := range []string{"", "team"} {
		t.Run("store="+store, func(t *testing.T) {
			dir := standIn(t)
			v := New()
			settings := map[string]string{}
			if store != "" {
				settings["store"] = store
			}
			if err := v.Configure(context.Background(), &vault.ConfigureRequest{Settings: settings}); err != nil {
				t.Fatal(err)
			}
			vaulttest.Run(t, v, vaulttest.Options{OneLine: true})
			for _, line := range argvLog(t, dir) {
				for _, secret := range []string{"sk-test", "sk-rotated", "quotes"} {
					if strings.Contains(line, secret) {
						t.Errorf("a value reached gopass's command line: %q", line)
					}
				}
				if store != "" && strings.Contains(line, "OPENAI_API_KEY") && !strings.Contains(line, "team/OPENAI_API_KEY") {
					t.Errorf("entry outside the store %s: %q", store, line)
				}
			}
			if store != "" {
				des, _ := os.ReadDir(filepath.Join(dir, "entries"))
				var names []string
				for _, de := range des {
					names = append(names, de.Name())
				}
				sort.Strings(names)
				if strings.Join(names, ",") != "team%OPENAI_API_KEY" {
					t.Errorf("entries = %v, want team/OPENAI_API_KEY alone", names)
				}
			}
		})
	}
}

func TestGopassRefusals(t *testing.T) {
	standIn(t)
	ctx := context.Background()
	v := New()
	if err := v.Configure(ctx, &vault.ConfigureRequest{Settings: map[string]string{"vault": "x"}}); !errors.Is(err, sdk.ErrInvalidArgument) || !strings.Contains(err.Error(), `"vault"`) {
		t.Errorf("unknown setting: %v", err)
	}
	err := v.Set(ctx, &vault.SetRequest{Name: "MULTI", Value: "line one\nline two"})
	if !errors.Is(err, sdk.ErrInvalidArgument) || strings.Contains(err.Error(), "line one") {
		t.Errorf("multi-line value: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if err := New().Configure(ctx, &vault.ConfigureRequest{}); !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), "not installed") {
		t.Errorf("no gopass: %v", err)
	}
}
