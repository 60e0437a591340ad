package llm

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// keyedBackend is a provider that accepts one key, and records the keys it
// was configured with.
type keyedBackend struct {
	fakeBackend
	accept     string
	configured []string
	options    []map[string]any
}

func (k *keyedBackend) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	k.configured = append(k.configured, req.Client.APIKey)
	k.options = append(k.options, req.Client.Options)
	return &provider.ConfigureResponse{}, nil
}

func (k *keyedBackend) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	if k.configured[len(k.configured)-1] != k.accept {
		k.chats = append(k.chats, req)
		if k.sendFirst {
			_ = send(&provider.ChatEvent{Text: "partial"})
		}
		return sdk.ErrUnauthenticated
	}
	return k.fakeBackend.Chat(ctx, req, send)
}

// TestOAuthTokenReachesThePluginAndIsRefreshedOnce: the plugin is
// configured with the login's token; a refused token is refreshed and the
// request sent once more, never after partial output and never twice.
func TestOAuthTokenReachesThePluginAndIsRefreshedOnce(t *testing.T) {
	for _, tc := range []struct {
		name       string
		tokens     []string // what Token returns: first without force, then forced
		accept     string
		sendFirst  bool
		refreshErr error
		chats      int
		configured []string
		wantErr    string
	}{
		{name: "valid token", tokens: []string{"t1"}, accept: "t1", chats: 1, configured: []string{"t1"}},
		{name: "refused, refreshed, retried", tokens: []string{"t1", "t2"}, accept: "t2", chats: 2, configured: []string{"t1", "t2"}},
		{name: "no retry after partial output", tokens: []string{"t1", "t2"}, accept: "t2", sendFirst: true, chats: 1, configured: []string{"t1"},
			wantErr: `client "c" logs in with OAuth; log in again with coyote --authenticate c`},
		{name: "refused again after the refresh", tokens: []string{"t1", "t2"}, accept: "t3", chats: 2, configured: []string{"t1", "t2"},
			wantErr: `client "c" logs in with OAuth; log in again with coyote --authenticate c`},
		{name: "refresh fails", tokens: []string{"t1"}, accept: "t2", refreshErr: errors.New(`client "c": its login expired: log in again`), chats: 1, configured: []string{"t1"},
			wantErr: `client "c": its login expired: log in again`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &keyedBackend{accept: tc.accept}
			b.sendFirst = tc.sendFirst
			n := 0
			cl := &config.Client{Name: "c", Type: "t", Options: map[string]any{"auth": "oauth", "oauth": map[string]any{"client_secret": "s"}}}
			cl.Token = func(_ context.Context, force bool) (string, error) {
				if force {
					n++
					if tc.refreshErr != nil {
						return "", tc.refreshErr
					}
				}
				return tc.tokens[min(n, len(tc.tokens)-1)], nil
			}
			c, _ := testConn(cl, &b.fakeBackend)
			c.provider = b
			out, err := chatOnce(c, models.Model{Name: "m"}, &provider.ChatRequest{})
			if tc.wantErr == "" && (err != nil || out != "ok") {
				t.Fatalf("out %q, err %v", out, err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if len(b.chats) != tc.chats || !reflect.DeepEqual(b.configured, tc.configured) {
				t.Fatalf("%d chats, configured with %q; want %d, %q", len(b.chats), b.configured, tc.chats, tc.configured)
			}
			for _, o := range b.options {
				if _, ok := o["oauth"]; ok || o["auth"] != "oauth" {
					t.Fatalf("the plugin was told %v: want auth: oauth and no oauth block", o)
				}
			}
			if _, ok := cl.Options["oauth"]; !ok {
				t.Fatal("the client's own options lost their oauth block")
			}
		})
	}
}

// TestOAuthTokenRenewedBeforeUse: a token the login renewed (near its
// expiry) is given to the plugin before the next request.
func TestOAuthTokenRenewedBeforeUse(t *testing.T) {
	b := &keyedBackend{accept: "t1"}
	tok := "t1"
	cl := &config.Client{Name: "c", Type: "t", Options: map[string]any{"auth": "oauth"}}
	cl.Token = func(context.Context, bool) (string, error) { return tok, nil }
	c, _ := testConn(cl, &b.fakeBackend)
	c.provider = b
	if _, err := chatOnce(c, models.Model{Name: "m"}, &provider.ChatRequest{}); err != nil {
		t.Fatal(err)
	}
	tok, b.accept = "t2", "t2"
	if _, err := chatOnce(c, models.Model{Name: "m"}, &provider.ChatRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rerank(context.Background(), models.Model{Name: "r"}, "q", []string{"d"}, 1); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.configured, []string{"t1", "t2"}) {
		t.Fatalf("configured %q", b.configured)
	}
}
