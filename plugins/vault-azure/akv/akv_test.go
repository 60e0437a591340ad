package akv

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/coyote-cli/coyote/plugins/vault-azure/azurefake"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
	"github.com/coyote-cli/coyote/sdk/vault/vaulttest"
)

// testEnv gives DefaultAzureCredential the fake's service principal and
// authority, and nothing of the machine's.
func testEnv(t *testing.T, fake *azurefake.Server, secret string) {
	t.Setenv("AZURE_TENANT_ID", azurefake.TenantID)
	t.Setenv("AZURE_CLIENT_ID", azurefake.ClientID)
	t.Setenv("AZURE_CLIENT_SECRET", secret)
	t.Setenv("AZURE_AUTHORITY_HOST", fake.URL)
	t.Setenv("AZURE_CONFIG_DIR", t.TempDir())
	t.Setenv("AZURE_FEDERATED_TOKEN_FILE", "")
	t.Setenv("IDENTITY_ENDPOINT", "")
	t.Setenv("MSI_ENDPOINT", "")
}

func configured(t *testing.T, fake *azurefake.Server) *Vault {
	v := NewWith(azcore.ClientOptions{Transport: fake.Client(), Retry: policy.RetryOptions{MaxRetries: -1}})
	if err := v.Configure(context.Background(), &vault.ConfigureRequest{Settings: map[string]string{"vault_url": fake.URL}}); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRoundTripWithTheTokenFlow(t *testing.T) {
	fake := azurefake.New(nil)
	defer fake.Close()
	testEnv(t, fake, azurefake.ClientSecret)
	v := configured(t, fake)
	vaulttest.Run(t, v, vaulttest.Options{})
	if fake.Tokens() == 0 {
		t.Error("no token was asked for")
	}
	// Kept under Key Vault's names: dashes for underscores.
	if !slices.Contains(fake.Requests(), "PUT OPENAI-API-KEY") {
		t.Errorf("requests = %v, want PUT OPENAI-API-KEY", fake.Requests())
	}
}

func TestAzureFailuresAreOneLine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		secret string
		forbid bool
		want   error
		says   string
	}{
		{"bad client secret", "wrong", false, sdk.ErrUnauthenticated, "az login"},
		{"forbidden", azurefake.ClientSecret, true, sdk.ErrPermissionDenied, "access denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := azurefake.New(map[string]string{"OPENAI-API-KEY": "sk-never-shown"})
			defer fake.Close()
			if tc.forbid {
				fake.Forbid()
			}
			testEnv(t, fake, tc.secret)
			_, err := configured(t, fake).Get(context.Background(), &vault.GetRequest{Names: []string{"OPENAI_API_KEY"}})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, "OPENAI_API_KEY") || !strings.Contains(msg, tc.says) || strings.Contains(msg, "sk-never") {
				t.Errorf("message %q: want one line naming the secret and saying %q", msg, tc.says)
			}
		})
	}
	t.Run("settings", func(t *testing.T) {
		for _, s := range []map[string]string{{}, {"vault_name": "a", "vault_url": "https://a"}, {"vault": "x"}} {
			if err := New().Configure(context.Background(), &vault.ConfigureRequest{Settings: s}); !errors.Is(err, sdk.ErrInvalidArgument) {
				t.Errorf("settings %v: err = %v", s, err)
			}
		}
	})
}
