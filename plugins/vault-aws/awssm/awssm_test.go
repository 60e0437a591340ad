package awssm

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/plugins/vault-aws/awsfake"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
	"github.com/coyote-cli/coyote/sdk/vault/vaulttest"
)

// testEnv points the AWS SDK's credential chain at the fake's keys and
// away from the machine's own configuration.
func testEnv(t *testing.T, secret string) {
	dir := t.TempDir()
	t.Setenv("AWS_ACCESS_KEY_ID", awsfake.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", dir+"/config")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", dir+"/credentials")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

func configured(t *testing.T, fake *awsfake.Server) *Vault {
	v := New()
	err := v.Configure(context.Background(), &vault.ConfigureRequest{Settings: map[string]string{"aws_region": awsfake.Region, "endpoint": fake.URL}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRoundTripAgainstTheFakeService(t *testing.T) {
	testEnv(t, awsfake.SecretAccessKey)
	fake := awsfake.New(nil)
	defer fake.Close()
	vaulttest.Run(t, configured(t, fake), vaulttest.Options{})
}

func TestGetIsOneBatchedRequest(t *testing.T) {
	testEnv(t, awsfake.SecretAccessKey)
	fake := awsfake.New(map[string]string{"A": "1", "B": "2", "C": "3"})
	defer fake.Close()
	v := configured(t, fake)
	resp, err := v.Get(context.Background(), &vault.GetRequest{Names: []string{"A", "B", "C", "D"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Values) != 3 || resp.Values["C"] != "3" || !slices.Equal(resp.Missing, []string{"D"}) {
		t.Errorf("get = %+v", resp)
	}
	if got := fake.Requests(); !slices.Equal(got, []string{"BatchGetSecretValue"}) {
		t.Errorf("requests = %v, want one BatchGetSecretValue", got)
	}
	// 45 names take three requests of at most 20.
	names := make([]string, 45)
	for i := range names {
		names[i] = "N" + strings.Repeat("X", i)
	}
	if _, err := v.Get(context.Background(), &vault.GetRequest{Names: names}); err != nil {
		t.Fatal(err)
	}
	if got := len(fake.Requests()); got != 4 {
		t.Errorf("requests after 45 names = %d, want 4", got)
	}
}

func TestFailuresAreOneLineWithTheirClass(t *testing.T) {
	for _, tc := range []struct {
		name   string
		secret string // the secret access key the plugin signs with
		deny   bool
		want   error
		says   string
	}{
		{"wrong credentials", "not-the-key", false, sdk.ErrUnauthenticated, "aws sso login"},
		{"denied", awsfake.SecretAccessKey, true, sdk.ErrPermissionDenied, "IAM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testEnv(t, tc.secret)
			fake := awsfake.New(map[string]string{"OPENAI_API_KEY": "sk-should-never-show"})
			defer fake.Close()
			if tc.deny {
				fake.Deny("OPENAI_API_KEY")
			}
			_, err := configured(t, fake).Get(context.Background(), &vault.GetRequest{Names: []string{"OPENAI_API_KEY"}})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, "OPENAI_API_KEY") || !strings.Contains(msg, tc.says) || strings.Contains(msg, "sk-should") {
				t.Errorf("message = %q: want one line naming the secret, saying %q, without the value", msg, tc.says)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		testEnv(t, awsfake.SecretAccessKey)
		fake := awsfake.New(nil)
		url := fake.URL
		fake.Close()
		v := New()
		if err := v.Configure(context.Background(), &vault.ConfigureRequest{Settings: map[string]string{"aws_region": "us-east-1", "endpoint": url}}); err != nil {
			t.Fatal(err)
		}
		_, err := v.Get(context.Background(), &vault.GetRequest{Names: []string{"X"}})
		if !errors.Is(err, sdk.ErrUnavailable) || strings.Contains(err.Error(), "\n") {
			t.Errorf("err = %v, want one line, sdk.ErrUnavailable", err)
		}
	})
	t.Run("unknown setting", func(t *testing.T) {
		err := New().Configure(context.Background(), &vault.ConfigureRequest{Settings: map[string]string{"region": "x"}})
		if !errors.Is(err, sdk.ErrInvalidArgument) || !strings.Contains(err.Error(), `"region"`) {
			t.Errorf("err = %v", err)
		}
	})
}
