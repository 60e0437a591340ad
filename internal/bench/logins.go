package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// loginsBench measures a one-shot prompt's first byte through the OpenAI
// plugin with a key, as an azure-openai client (deployment path,
// api-version, api-key header), and with auth: oauth (a cached login's
// token, and an Entra client-credentials token, fetched on the first run
// and cached after): what a login costs a run once it is cached.
func loginsBench(bin string, runs int) ([]row, error) {
	coyote := filepath.Join(bin, "coyote")
	if _, err := os.Stat(filepath.Join(bin, "plugins", "coyote-provider-azure-openai")); err != nil {
		return nil, fmt.Errorf("logins: %w (run make build)", err)
	}
	work, err := os.MkdirTemp("", "coyote-bench-logins-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	const key, token = "sk-bench", "bench-access-token"
	inner := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		if a := req.Authorization; a != "Bearer "+key && a != "Bearer "+token {
			return fakellm.Reply{Status: 401}
		}
		return fakellm.Reply{Text: "ok"}
	}}
	openaiSrv := httptest.NewServer(inner.Handler())
	defer openaiSrv.Close()
	azure := &fakellm.Azure{APIKey: key, Token: token, OpenAI: &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "ok"} }}}
	azureSrv := httptest.NewServer(azure.Handler())
	defer azureSrv.Close()
	var tokenCalls atomic.Int32
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tokenCalls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, token)
	}))
	defer tokenSrv.Close()

	envFor := func(name, cfg string) ([]string, error) {
		dir := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Join(dir, "config"), 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "config", "config.yaml"), []byte(cfg), 0o600); err != nil {
			return nil, err
		}
		return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
			"COYOTE_CONFIG_DIR=" + filepath.Join(dir, "config"), "COYOTE_CACHE_DIR=" + filepath.Join(dir, "cache")}, nil
	}
	keyEnv, err := envFor("key", fmt.Sprintf("model: c:m\nclients:\n  - type: openai-compatible\n    name: c\n    api_base: %s/v1\n    api_key: %s\n    models: [{name: m}]\n", openaiSrv.URL, key))
	if err != nil {
		return nil, err
	}
	azureEnv, err := envFor("azure", fmt.Sprintf("model: az:m\nclients:\n  - type: azure-openai\n    name: az\n    api_base: %s\n    api_key: %s\n    models: [{name: m}]\n", azureSrv.URL, key))
	if err != nil {
		return nil, err
	}
	const tokenURL = "https://auth.example.invalid/token"
	oauthEnv, err := envFor("oauth", fmt.Sprintf("model: c:m\nclients:\n  - type: openai-compatible\n    name: c\n    api_base: %s/v1\n    auth: oauth\n    oauth: {flow: pkce, client_id: bench, authorize_url: https://auth.example.invalid/authorize, token_url: %s}\n    models: [{name: m}]\n", openaiSrv.URL, tokenURL))
	if err != nil {
		return nil, err
	}
	// A login made earlier: the token file --authenticate would write.
	cached, _ := json.Marshal(map[string]any{"access_token": token, "refresh_token": "r", "expires_at": time.Now().Add(24 * time.Hour), "token_url": tokenURL, "client_id": "bench"})
	if err := os.MkdirAll(filepath.Join(work, "oauth", "cache", "oauth"), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(work, "oauth", "cache", "oauth", "c_oauth_tokens.json"), cached, 0o600); err != nil {
		return nil, err
	}
	entraEnv, err := envFor("entra", fmt.Sprintf("model: az:m\nclients:\n  - type: azure-openai\n    name: az\n    api_base: %s\n    auth: oauth\n    oauth: {client_id: sp, client_secret: s, token_url: %s}\n    models: [{name: m}]\n", azureSrv.URL, tokenSrv.URL))
	if err != nil {
		return nil, err
	}
	oneShot := func(env []string) func() time.Duration {
		return func() time.Duration {
			c := exec.Command(coyote, "hi")
			c.Env = env
			var stderr strings.Builder
			c.Stderr = &stderr
			first, _, err := firstByte(c)
			if err != nil {
				err = fmt.Errorf("%v: %s", err, stderr.String())
			}
			return mustDuration(first, err)
		}
	}
	keyT := median(runs, oneShot(keyEnv))
	azureT := median(runs, oneShot(azureEnv))
	oauthT := median(runs, oneShot(oauthEnv))
	entraT := median(runs, oneShot(entraEnv))
	return []row{
		{"one-shot first byte, OpenAI plugin, API key", ms(keyT), "", "", ""},
		{"one-shot first byte, azure-openai, api-key", ms(azureT), "", "vs key " + ms(azureT-keyT), ""},
		{"one-shot first byte, auth: oauth, cached login", ms(oauthT), "", "vs key " + ms(oauthT-keyT), ""},
		{"one-shot first byte, azure-openai, Entra token", ms(entraT), "", fmt.Sprintf("vs api-key %s; %d token requests in %d runs", ms(entraT-azureT), tokenCalls.Load(), runs+1), ""},
	}, nil
}
