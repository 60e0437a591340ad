package gsm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/plugins/vault-gcp/gcpfake"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
	"github.com/coyote-cli/coyote/sdk/vault/vaulttest"
)

// testEnv makes the fake's service account the Application Default
// Credentials, as GOOGLE_APPLICATION_CREDENTIALS does for a user.
func testEnv(t *testing.T, fake *gcpfake.Server) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sa.json")
	if err := os.WriteFile(file, fake.CredentialsJSON(), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", file)
	t.Setenv("CLOUDSDK_CONFIG", dir)
	t.Setenv("GCE_METADATA_HOST", "127.0.0.1:1")
}

func configured(t *testing.T, fake *gcpfake.Server) *Vault {
	v := New()
	err := v.Configure(context.Background(), &vault.ConfigureRequest{Settings: map[string]string{"gcp_project_id": gcpfake.Project, "endpoint": fake.URL}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRoundTripAgainstTheFakeService(t *testing.T) {
	fake := gcpfake.New(nil)
	defer fake.Close()
	testEnv(t, fake)
	vaulttest.Run(t, configured(t, fake), vaulttest.Options{})
}

func TestGCPFailuresAreOneLine(t *testing.T) {
	t.Run("denied", func(t *testing.T) {
		fake := gcpfake.New(map[string]string{"OPENAI_API_KEY": "sk-never-shown"})
		defer fake.Close()
		fake.Deny()
		testEnv(t, fake)
		_, err := configured(t, fake).Get(context.Background(), &vault.GetRequest{Names: []string{"OPENAI_API_KEY"}})
		if !errors.Is(err, sdk.ErrPermissionDenied) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "OPENAI_API_KEY") || strings.Contains(err.Error(), "sk-never") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("another account's key", func(t *testing.T) {
		fake := gcpfake.New(map[string]string{"OPENAI_API_KEY": "sk-never-shown"})
		defer fake.Close()
		other := gcpfake.New(nil)
		defer other.Close()
		testEnv(t, other) // signed with a key the fake does not know
		_, err := configured(t, fake).Get(context.Background(), &vault.GetRequest{Names: []string{"OPENAI_API_KEY"}})
		if !errors.Is(err, sdk.ErrUnauthenticated) || !strings.Contains(err.Error(), "gcloud auth application-default login") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("settings", func(t *testing.T) {
		for _, s := range []map[string]string{{}, {"gcp_project_id": "p", "project": "x"}} {
			if err := New().Configure(context.Background(), &vault.ConfigureRequest{Settings: s}); !errors.Is(err, sdk.ErrInvalidArgument) {
				t.Errorf("settings %v: err = %v", s, err)
			}
		}
	})
}
