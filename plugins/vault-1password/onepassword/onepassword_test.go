package onepassword

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/plugins/vault-1password/opfake"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
	"github.com/coyote-cli/coyote/sdk/vault/vaulttest"
)

// The test binary is also the stand-in op (package opfake) when run under
// that name.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "op" {
		os.Exit(opfake.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

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
	if err := os.Symlink(self, filepath.Join(bin, "op")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("OP_FAKE_DIR", dir)
	return dir
}

func TestRoundTripThroughOp(t *testing.T) {
	for _, vaultName := range []string{"", "Production"} {
		t.Run("vault="+vaultName, func(t *testing.T) {
			dir := standIn(t)
			v := New()
			settings := map[string]string{"account": "my.1password.com"}
			if vaultName != "" {
				settings["vault"] = vaultName
			}
			if err := v.Configure(context.Background(), &vault.ConfigureRequest{Settings: settings}); err != nil {
				t.Fatal(err)
			}
			vaulttest.Run(t, v, vaulttest.Options{})
			b, _ := os.ReadFile(filepath.Join(dir, "argv.log"))
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				for _, secret := range []string{"sk-test", "sk-rotated", "quotes"} {
					if strings.Contains(line, secret) {
						t.Errorf("a value reached op's command line: %q", line)
					}
				}
				if !strings.Contains(line, "--account\x00my.1password.com") {
					t.Errorf("command without the account: %q", line)
				}
				if vaultName != "" && !strings.Contains(line, "--vault\x00"+vaultName) {
					t.Errorf("command without the vault: %q", line)
				}
			}
		})
	}
}

func TestOpSignedOutIsUnauthenticated(t *testing.T) {
	standIn(t)
	t.Setenv("OP_FAKE_SIGNED_OUT", "1")
	v := New()
	if err := v.Configure(context.Background(), &vault.ConfigureRequest{}); err != nil {
		t.Fatal(err)
	}
	_, err := v.Get(context.Background(), &vault.GetRequest{Names: []string{"OPENAI_API_KEY"}})
	if !errors.Is(err, sdk.ErrUnauthenticated) || !strings.Contains(err.Error(), "op signin") || strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("signed out: %v", err)
	}
}
