package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/vault"
	"github.com/coyote-cli/coyote/sdk"
)

func TestReadProviderConfig(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       *providerConfig
		err        string
	}{
		{"none", "model: x\n", nil, ""},
		{"null", "secrets_provider: null\n", nil, ""},
		{"local", "secrets_provider:\n  type: local\n  password_file: ~/.pw\n", &providerConfig{Type: "local", Settings: map[string]string{"password_file": "~/.pw"}}, ""},
		{"aws", "secrets_provider:\n  type: aws_secrets_manager\n  aws_profile: default\n  aws_region: us-east-1\n",
			&providerConfig{Type: "aws_secrets_manager", Settings: map[string]string{"aws_profile": "default", "aws_region": "us-east-1"}}, ""},
		{"optional left null", "secrets_provider:\n  type: gopass\n  store: null\n", &providerConfig{Type: "gopass", Settings: map[string]string{}}, ""},
		{"no type", "secrets_provider:\n  vault: x\n", nil, "needs a type"},
		{"not a mapping", "secrets_provider: aws\n", nil, "must be a mapping"},
		{"templated", "secrets_provider:\n  type: gcp_secret_manager\n  gcp_project_id: '{{P}}'\n", nil, "cannot use a {{secret}}"},
		{"bad type", "secrets_provider:\n  type: ../evil\n", nil, "not a provider name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(file, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := readProviderConfig(file)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), file) {
					t.Fatalf("err = %v, want one naming the file and saying %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestRemoteFailuresNameTheProviderAndSayWhatToDo(t *testing.T) {
	r := &remoteStore{typ: "aws_secrets_manager"}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x: %w", sdk.ErrUnauthenticated), "sign in to the provider again"},
		{fmt.Errorf("x: %w", sdk.ErrPermissionDenied), "ask for access"},
		{fmt.Errorf("x: %w", sdk.ErrUnavailable), "cannot be reached"},
		{&plugins.CrashError{}, ""},
	} {
		err := r.fail("get", []string{"A", "B"}, tc.err)
		msg := err.Error()
		if !strings.HasPrefix(msg, "the secrets provider aws_secrets_manager: get A, B: ") || !strings.Contains(msg, tc.want) || !errors.Is(err, tc.err) {
			t.Errorf("fail(%v) = %q", tc.err, msg)
		}
	}
	missing := vault.MissingIn([]string{"A", "B"}, r.where())
	if want := `secrets "A" and "B" are not in the secrets provider aws_secrets_manager: add each with coyote --add-secret NAME`; missing.Error() != want {
		t.Errorf("missing = %q", missing)
	}
}
