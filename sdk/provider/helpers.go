package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode"

	"github.com/coyote-cli/coyote/sdk"
)

// Configs keeps the clients the kernel configured, by name. Embed it in a
// provider that needs nothing more than the configuration to serve a
// client, and it implements Configure:
//
//	type mine struct{ provider.Configs }
//
//	func (m *mine) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
//		cfg, err := m.Client(req.Client)
//		if err != nil {
//			return err
//		}
//		// cfg.APIBase, cfg.APIKey, cfg.Options …
//	}
//
// A provider that builds something per client (an HTTP client with its
// timeouts, say) keeps that instead; sdk/httpkit's Clients does.
// The zero value is ready to use; it is safe for concurrent use.
type Configs struct {
	mu sync.Mutex
	m  map[string]ClientConfig
}

// Configure registers or replaces a client.
func (c *Configs) Configure(_ context.Context, req *ConfigureRequest) (*ConfigureResponse, error) {
	if req.Client.Name == "" {
		return nil, fmt.Errorf("configure: a client needs a name: %w", sdk.ErrInvalidArgument)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]ClientConfig{}
	}
	c.m[req.Client.Name] = req.Client
	return &ConfigureResponse{}, nil
}

// Client returns the configuration of a client, or an error wrapping
// sdk.ErrFailedPrecondition when Configure never registered it (what the
// kernel expects, and the conformance suite checks).
func (c *Configs) Client(name string) (ClientConfig, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cfg, ok := c.m[name]
	if !ok {
		return cfg, fmt.Errorf("client %q is not configured: %w", name, sdk.ErrFailedPrecondition)
	}
	return cfg, nil
}

// LastUserText is the text of the last user message, the question a
// one-shot prompt asks; "" when there is none.
func LastUserText(messages []Message) string {
	for i := len(messages) - 1; i >= 0; i-- {
		if messages[i].Role == RoleUser {
			return messages[i].Text()
		}
	}
	return ""
}

// StreamText sends text as a reply: in pieces of a word each (with the
// space before it), then the finish reason "stop". It is how a provider
// that has its whole answer at once (a local program, a cache) still
// streams, and it stops when ctx is cancelled or the kernel has gone.
func StreamText(ctx context.Context, send func(*ChatEvent) error, text string) error {
	for len(text) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		// A piece is the spaces before a word and the word.
		start := strings.IndexFunc(text, func(r rune) bool { return !unicode.IsSpace(r) })
		if start < 0 {
			start = len(text)
		}
		end := strings.IndexFunc(text[start:], unicode.IsSpace)
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		if err := send(&ChatEvent{Text: text[:end]}); err != nil {
			return err
		}
		text = text[end:]
	}
	return send(&ChatEvent{FinishReason: "stop"})
}

var _ interface {
	Configure(context.Context, *ConfigureRequest) (*ConfigureResponse, error)
} = (*Configs)(nil)
