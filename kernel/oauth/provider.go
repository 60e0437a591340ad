// Package oauth signs a client in to its provider with OAuth ("auth:
// oauth" in config.yaml) and keeps its access token fresh: the
// authorization-code flow with PKCE (the browser comes back to a localhost
// callback, or the provider shows a code the user pastes back), the device
// authorization grant (RFC 8628, optionally with PKCE) and client
// credentials. Tokens are cached in <cache>/oauth/<client>_oauth_tokens.json
// (mode 0600, written atomically), refreshed shortly before they expire and
// when the provider refuses one.
//
// Which endpoints a provider uses is data: Presets holds the known
// providers' settings, by client type or name, and a client's `oauth:`
// block sets or overrides any of them (which is also how a test points a
// login at a fake server). The package never switches on a provider.
//
// Tokens are secrets: nothing here logs them or puts them in an error.
package oauth

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Flows.
const (
	// FlowPKCE is the authorization-code flow with PKCE (RFC 7636).
	FlowPKCE = "pkce"
	// FlowDeviceCode is the device authorization grant (RFC 8628).
	FlowDeviceCode = "device_code"
	// FlowClientCredentials is the client-credentials grant: no user, a
	// client id and secret (an Entra service principal, a company gateway).
	FlowClientCredentials = "client_credentials"
)

// Token request formats.
const (
	FormatForm = "form_url_encoded"
	FormatJSON = "json"
)

// Provider is how one client logs in: the flow, the endpoints, and the
// quirks a provider has. The JSON names are those of a client's `oauth:`
// block in config.yaml (the original's).
type Provider struct {
	Flow         string `json:"flow,omitempty"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthorizeURL string `json:"authorize_url,omitempty"`
	TokenURL     string `json:"token_url,omitempty"`
	// DeviceAuthorizationURL is the device flow's first endpoint.
	DeviceAuthorizationURL string   `json:"device_authorization_url,omitempty"`
	Scopes                 []string `json:"scopes,omitempty"`
	// RedirectURI, when set, is a page of the provider's that shows the
	// code for the user to paste back (Claude's); otherwise the browser
	// comes back to http://localhost:<RedirectPort><RedirectPath>.
	RedirectURI string `json:"redirect_uri,omitempty"`
	// RedirectPort is the localhost callback's port; 0 picks a free one.
	// Providers that register a fixed redirect need theirs.
	RedirectPort int `json:"redirect_port,omitempty"`
	// RedirectPath is the callback's path (default /callback).
	RedirectPath string `json:"redirect_path,omitempty"`
	// TokenRequestFormat is FormatForm (the default) or FormatJSON.
	TokenRequestFormat string `json:"token_request_format,omitempty"`
	// ExtraAuthorizeParams are added to the authorization URL.
	ExtraAuthorizeParams map[string]string `json:"extra_authorize_params,omitempty"`
	// UsePKCEInDeviceFlow sends a code challenge with the device request
	// and the verifier with the token request.
	UsePKCEInDeviceFlow bool `json:"use_pkce_in_device_flow,omitempty"`
	// StateInTokenRequest sends the state with the code exchange (Claude
	// asks for it).
	StateInTokenRequest bool `json:"state_in_token_request,omitempty"`
	// EchoPKCEInTokenExchange is the original's name of the same quirk.
	EchoPKCEInTokenExchange bool `json:"echo_pkce_in_token_exchange,omitempty"`
	// TenantID fills {tenant_id} in the URLs (Microsoft Entra).
	TenantID string `json:"tenant_id,omitempty"`
}

// Presets are the known providers' logins, by client type ("openai",
// "claude", "gemini", "azure-openai") or, for an openai-compatible client,
// by name ("xai"). A client's `oauth:` block overrides any field.
//
// OpenAI's is the ChatGPT/Codex login of OpenAI's own command-line tool;
// Claude's is Claude Code's, with the code pasted back; Google's needs the
// user's own OAuth client (a "Desktop app" client id and secret of their
// Google Cloud project), since Google gives out none for third parties.
var Presets = map[string]Provider{
	"openai": {
		Flow:         FlowPKCE,
		ClientID:     "app_EMoamEEZ73f0CkXaXp7hrann",
		AuthorizeURL: "https://auth.openai.com/oauth/authorize",
		TokenURL:     "https://auth.openai.com/oauth/token",
		Scopes:       []string{"openid", "profile", "email", "offline_access"},
		RedirectPort: 1455,
		RedirectPath: "/auth/callback",
		ExtraAuthorizeParams: map[string]string{
			"id_token_add_organizations": "true",
			"codex_cli_simplified_flow":  "true",
		},
	},
	"claude": {
		Flow:                FlowPKCE,
		ClientID:            "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
		AuthorizeURL:        "https://claude.ai/oauth/authorize",
		TokenURL:            "https://console.anthropic.com/v1/oauth/token",
		RedirectURI:         "https://console.anthropic.com/oauth/code/callback",
		Scopes:              []string{"org:create_api_key", "user:profile", "user:inference"},
		TokenRequestFormat:  FormatJSON,
		StateInTokenRequest: true,
		ExtraAuthorizeParams: map[string]string{
			"code": "true",
		},
	},
	"gemini": {
		Flow:         FlowPKCE,
		AuthorizeURL: "https://accounts.google.com/o/oauth2/v2/auth",
		TokenURL:     "https://oauth2.googleapis.com/token",
		Scopes: []string{
			"https://www.googleapis.com/auth/cloud-platform",
			"https://www.googleapis.com/auth/generative-language.retriever",
		},
		// A refresh token is only given with offline access, and again
		// only when consent is asked again.
		ExtraAuthorizeParams: map[string]string{"access_type": "offline", "prompt": "consent"},
	},
	"azure-openai": {
		Flow:     FlowClientCredentials,
		TokenURL: "https://login.microsoftonline.com/{tenant_id}/oauth2/v2.0/token",
		Scopes:   []string{"https://cognitiveservices.azure.com/.default"},
	},
	"xai": {
		Flow:               FlowPKCE,
		ClientID:           "b1a00492-073a-47ea-816f-4c329264a828",
		AuthorizeURL:       "https://auth.x.ai/oauth2/authorize",
		TokenURL:           "https://auth.x.ai/oauth2/token",
		Scopes:             []string{"openid", "profile", "email", "offline_access", "grok-cli:access", "api:access"},
		RedirectPort:       56121,
		TokenRequestFormat: FormatForm,
		ExtraAuthorizeParams: map[string]string{
			"plan":     "generic",
			"referrer": "coyote",
		},
		EchoPKCEInTokenExchange: true,
	},
}

// ForClient is the login of a client of type typ named name: the preset of
// its type, else of its name, with the fields of its `oauth:` block (a
// mapping, or nil) laid over it. It fails when the block is malformed or
// the result lacks what its flow needs.
func ForClient(typ, name string, block any) (Provider, error) {
	p, ok := Presets[typ]
	if !ok {
		p = Presets[name]
	}
	p.Scopes = slices.Clone(p.Scopes)
	p.ExtraAuthorizeParams = maps.Clone(p.ExtraAuthorizeParams)
	if block != nil {
		m, ok := block.(map[string]any)
		if !ok {
			return Provider{}, fmt.Errorf("oauth must be a mapping (flow, client_id, token_url, ...)")
		}
		data, err := json.Marshal(m)
		if err != nil {
			return Provider{}, fmt.Errorf("oauth: %v", err)
		}
		var over Provider
		if err := json.Unmarshal(data, &over); err != nil {
			return Provider{}, fmt.Errorf("oauth: %v", strings.TrimPrefix(err.Error(), "json: "))
		}
		p.overlay(&over)
	}
	if p.StateInTokenRequest || p.EchoPKCEInTokenExchange {
		p.StateInTokenRequest = true
	}
	for _, u := range []*string{&p.AuthorizeURL, &p.TokenURL, &p.DeviceAuthorizationURL} {
		if strings.Contains(*u, "{tenant_id}") {
			if p.TenantID == "" {
				return Provider{}, fmt.Errorf("oauth: %s needs your tenant: set oauth.tenant_id", *u)
			}
			*u = strings.ReplaceAll(*u, "{tenant_id}", p.TenantID)
		}
	}
	return p, p.check()
}

// overlay sets every field o sets.
func (p *Provider) overlay(o *Provider) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&p.Flow, o.Flow)
	set(&p.ClientID, o.ClientID)
	set(&p.ClientSecret, o.ClientSecret)
	set(&p.AuthorizeURL, o.AuthorizeURL)
	set(&p.TokenURL, o.TokenURL)
	set(&p.DeviceAuthorizationURL, o.DeviceAuthorizationURL)
	set(&p.RedirectURI, o.RedirectURI)
	set(&p.RedirectPath, o.RedirectPath)
	set(&p.TokenRequestFormat, o.TokenRequestFormat)
	set(&p.TenantID, o.TenantID)
	if o.Scopes != nil {
		p.Scopes = o.Scopes
	}
	if o.RedirectPort != 0 {
		p.RedirectPort = o.RedirectPort
	}
	if o.ExtraAuthorizeParams != nil {
		if p.ExtraAuthorizeParams == nil {
			p.ExtraAuthorizeParams = map[string]string{}
		}
		maps.Copy(p.ExtraAuthorizeParams, o.ExtraAuthorizeParams)
	}
	p.UsePKCEInDeviceFlow = p.UsePKCEInDeviceFlow || o.UsePKCEInDeviceFlow
	p.StateInTokenRequest = p.StateInTokenRequest || o.StateInTokenRequest
	p.EchoPKCEInTokenExchange = p.EchoPKCEInTokenExchange || o.EchoPKCEInTokenExchange
}

// check says what the flow still needs.
func (p *Provider) check() error {
	var missing []string
	need := func(v, key string) {
		if v == "" {
			missing = append(missing, key)
		}
	}
	switch p.Flow {
	case FlowPKCE:
		need(p.ClientID, "client_id")
		need(p.AuthorizeURL, "authorize_url")
		need(p.TokenURL, "token_url")
	case FlowDeviceCode:
		need(p.ClientID, "client_id")
		need(p.DeviceAuthorizationURL, "device_authorization_url")
		need(p.TokenURL, "token_url")
	case FlowClientCredentials:
		need(p.ClientID, "client_id")
		need(p.ClientSecret, "client_secret")
		need(p.TokenURL, "token_url")
	case "":
		return fmt.Errorf("oauth: no flow: set oauth.flow to %s, %s or %s", FlowPKCE, FlowDeviceCode, FlowClientCredentials)
	default:
		return fmt.Errorf("oauth: unknown flow %q (use %s, %s or %s)", p.Flow, FlowPKCE, FlowDeviceCode, FlowClientCredentials)
	}
	switch p.TokenRequestFormat {
	case "", FormatForm, FormatJSON:
	default:
		return fmt.Errorf("oauth: token_request_format %q is neither %s nor %s", p.TokenRequestFormat, FormatForm, FormatJSON)
	}
	if len(missing) > 0 {
		return fmt.Errorf("oauth: the %s flow needs %s: set it under oauth:", p.Flow, strings.Join(missing, " and "))
	}
	return nil
}
