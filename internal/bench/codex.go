package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// codexBench measures the OpenAI plugin in its ChatGPT mode (a cached
// subscription login; the Codex Responses API against its fake) next to
// the same plugin on chat completions with a key, in one run: the one-shot
// time to first byte and the per-chunk cost of a 2,000-chunk reply. The
// runs of the two are interleaved, so that the machine's load falls on
// each alike.
func codexBench(coyote, bin, work string, runs int) ([]row, error) {
	if _, err := os.Stat(filepath.Join(bin, "plugins", "coyote-provider-openai")); err != nil {
		return []row{{"openai (codex responses): not measured", "-", "", "", "plugin coyote-provider-openai is not built"}}, nil
	}
	var chunks atomic.Int64
	respond := func(*fakellm.ChatRequest) fakellm.Reply {
		n := int(chunks.Load())
		return fakellm.Reply{Text: strings.Repeat("word ", n), Chunks: n}
	}
	const account = "acct-bench"
	openai := httptest.NewServer((&fakellm.OpenAI{Respond: respond}).Handler())
	defer openai.Close()
	codex := httptest.NewServer((&fakellm.Codex{AccountID: account, Respond: respond}).Handler())
	defer codex.Close()

	dir := filepath.Join(work, "codex")
	if err := os.MkdirAll(filepath.Join(dir, "cache", "oauth"), 0o700); err != nil {
		return nil, err
	}
	const tokenURL = "https://auth.example.invalid/oauth/token"
	cfg := fmt.Sprintf(`clients:
  - type: openai
    api_base: %s/v1
    api_key: sk-bench
    models: [{name: gpt-4o-mini}]
  - type: openai
    name: chatgpt
    api_base: %s%s
    wire_api: responses
    auth: oauth
    oauth: {client_id: bench, authorize_url: https://auth.example.invalid/oauth/authorize, token_url: %s}
    models: [{name: gpt-5-codex}]
`, openai.URL, codex.URL, fakellm.CodexPath, tokenURL)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	// A login made earlier, as --authenticate writes it: a token whose
	// claims name the account.
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{"https://api.openai.com/auth": map[string]string{"chatgpt_account_id": account}})
	token := enc([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc(claims) + "." + enc([]byte("bench"))
	cached, _ := json.Marshal(map[string]any{"access_token": token, "refresh_token": "r", "expires_at": time.Now().Add(24 * time.Hour),
		"token_url": tokenURL, "client_id": "bench"})
	if err := os.WriteFile(filepath.Join(dir, "cache", "oauth", "chatgpt_oauth_tokens.json"), cached, 0o600); err != nil {
		return nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "COYOTE_CONFIG_DIR=" + dir, "COYOTE_CACHE_DIR=" + filepath.Join(dir, "cache")}
	models := []string{"openai:gpt-4o-mini", "chatgpt:gpt-5-codex"}
	ttfb, one, many, err := modelTimings(coyote, env, models, runs, &chunks)
	if err != nil {
		return nil, err
	}
	us := func(d time.Duration) string { return fmt.Sprintf("%.4f ms", float64(d)/float64(time.Millisecond)) }
	ref, sub := models[0], models[1]
	per := func(m string) time.Duration { return (many[m] - one[m]) / 1999 }
	return []row{
		{"openai (chat completions): one-shot first byte (reference)", ms(ttfb[ref]), "", "API key, same run", "measured"},
		{"openai (codex responses): one-shot first byte", ms(ttfb[sub]), "≤ openai + 5 ms", "cached ChatGPT login; openai " + ms(ttfb[ref]),
			verdict(ttfb[sub] <= ttfb[ref]+5*time.Millisecond, "%+.2f ms vs openai", float64(ttfb[sub]-ttfb[ref])/float64(time.Millisecond))},
		{"openai (chat completions): per-chunk cost (reference)", us(per(ref)), "", "2,000 chunks − 1 chunk, same run", "measured"},
		{"openai (codex responses): per-chunk cost", us(per(sub)), "report", "openai " + us(per(ref)), fmt.Sprintf("x%.2f openai", ratio(per(sub), per(ref)))},
	}, nil
}
