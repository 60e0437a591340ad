package openai

import (
	"context"
	"testing"

	"github.com/coyote-cli/coyote/sdk/provider"
)

func TestConfigureSaysTheBaseItCalls(t *testing.T) {
	for _, tc := range []struct{ base, want string }{
		{"", DefaultAPIBase},
		{"http://127.0.0.1:9/v1/", "http://127.0.0.1:9/v1"},
	} {
		resp, err := New().Configure(context.Background(), &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "c", Type: "openai", APIBase: tc.base, APIKey: "k"}})
		if err != nil || resp.APIBase != tc.want {
			t.Errorf("api_base %q: resp %+v, err %v; want %q", tc.base, resp, err, tc.want)
		}
	}
}
