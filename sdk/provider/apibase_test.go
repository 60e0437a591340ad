package provider_test

import (
	"context"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// baseTeller fills in a default base URL, as a real provider does.
type baseTeller struct{ recorder }

func (b *baseTeller) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	base := req.Client.APIBase
	if base == "" {
		base = "https://api.example.com/v1"
	}
	return &provider.ConfigureResponse{APIBase: base}, nil
}

func TestConfigureTellsTheBaseTheClientCalls(t *testing.T) {
	p := plugintest.Provider(t, sdk.Info{Name: "x"}, &baseTeller{})
	resp, err := p.Configure(context.Background(), &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "a", Type: "x"}})
	if err != nil || resp.APIBase != "https://api.example.com/v1" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
}
