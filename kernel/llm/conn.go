package llm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/suggest"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Retry policy for rate limits and server errors: a few tries, waiting the
// upstream's Retry-After when it says (up to maxRetryWait), else backing off.
const (
	chatRetries   = 2
	retryBase     = time.Second
	maxRetryWait  = 60 * time.Second
	liveListLimit = 10 * time.Second
)

// Conn is a configured client bound to the provider plugin that serves its
// type.
type Conn struct {
	Client   *config.Client
	provider backend
	// EmbedRetries is how often a failed embeddings batch is retried:
	// COYOTE_EMBEDDINGS_RETRY_LIMIT is the attempts in all, as the
	// original's (default 2: one retry).
	EmbedRetries int
	// OnRetry, when set, is told before each wait for a retry of a chat or
	// rerank call: how long, which try comes next of how many, and why.
	// The REPL and one-shot runs show it in a terminal, so the wait is not
	// silent.
	OnRetry func(wait time.Duration, next, of int, err error)
	// sleep waits between retries; tests replace it.
	sleep func(context.Context, time.Duration) error

	// tokenMu guards token, the OAuth access token the plugin was last
	// configured with (auth: oauth clients).
	tokenMu sync.Mutex
	token   string
}

// backend is what a Conn needs of a provider plugin; *plugins.Provider is
// one, tests use fakes.
type backend interface {
	provider.Provider
	provider.Embedder
	provider.Reranker
	Prepare(ctx context.Context, client string) error
}

// Connect finds the plugin of the client's type and records the client's
// configuration with it. It starts nothing; see Prepare.
func Connect(ctx context.Context, host *plugins.Host, c *config.Client) (*Conn, error) {
	p, err := host.Provider(c.Type)
	if err != nil {
		var nf *plugins.NotFoundError
		if errors.As(err, &nf) {
			return nil, unknownTypeError(c, host.Dirs())
		}
		return nil, fmt.Errorf("client %q has type %q, which no installed plugin serves: %w", c.Name, c.Type, err)
	}
	conn := &Conn{Client: c, provider: p, EmbedRetries: EmbedRetriesFromEnv(os.Getenv), sleep: sleepCtx}
	cfg := PluginConfig(c)
	if c.Token != nil {
		tok, err := c.Token(ctx, false)
		if err != nil {
			return nil, err
		}
		cfg.APIKey, conn.token = tok, tok
	}
	if _, err := p.Configure(ctx, &provider.ConfigureRequest{Client: cfg}); err != nil {
		return nil, err
	}
	return conn, nil
}

// freshToken makes sure the plugin holds a valid OAuth access token for
// an auth: oauth client: one refreshed before it expires, or (force)
// after the provider refused it. The token goes only to the plugin that
// serves this client, through Configure. A client with a key is left
// alone.
func (c *Conn) freshToken(ctx context.Context, force bool) error {
	if c.Client.Token == nil {
		return nil
	}
	c.tokenMu.Lock()
	defer c.tokenMu.Unlock()
	tok, err := c.Client.Token(ctx, force)
	if err != nil {
		return err
	}
	if tok == c.token {
		return nil
	}
	cfg := PluginConfig(c.Client)
	cfg.APIKey = tok
	if _, err := c.provider.Configure(ctx, &provider.ConfigureRequest{Client: cfg}); err != nil {
		return err
	}
	c.token = tok
	return nil
}

// EmbedRetriesFromEnv is how often a failed embeddings batch is retried
// by COYOTE_EMBEDDINGS_RETRY_LIMIT (the attempts in all; default 2, as
// the original; a value that is not a whole number of at least 1 is the
// default).
func EmbedRetriesFromEnv(getenv func(string) string) int {
	limit := 2
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("COYOTE_EMBEDDINGS_RETRY_LIMIT"))); err == nil && n >= 1 {
		limit = n
	}
	return limit - 1
}

// unknownTypeError says that no plugin serves a client's type: the types
// the installed provider plugins serve, the nearest one when the type
// looks like a typo of it, and where plugins were looked for.
func unknownTypeError(c *config.Client, dirs []string) error {
	var types []string
	for _, f := range plugins.Discover(dirs) {
		if f.Kind == "provider" {
			types = append(types, f.Name)
		}
	}
	where := fmt.Sprintf("line %d of the config file", c.Line)
	if c.Line == 0 {
		where = "the environment"
	}
	msg := fmt.Sprintf("client %q (%s) has type %q, which no installed plugin serves", c.Name, where, c.Type)
	if s := suggest.Closest(c.Type, types); s != "" {
		msg += fmt.Sprintf(": did you mean %q?", s)
	}
	if len(types) == 0 {
		return fmt.Errorf("%s; no provider plugin is installed (searched %s)", msg, strings.Join(dirs, ", "))
	}
	return fmt.Errorf("%s; the installed provider plugins serve: %s (a plugin coyote-provider-%s in %s would serve it; see coyote plugins)",
		msg, strings.Join(types, ", "), c.Type, strings.Join(dirs, ", "))
}

// PluginConfig is what a plugin is told about a client. The `oauth:`
// block (a client secret, the endpoints) stays in the kernel, which logs
// in: the plugin gets the access token as the key, and `auth: oauth` to
// say it is one.
func PluginConfig(c *config.Client) provider.ClientConfig {
	ms := make([]provider.Model, 0, len(c.Models))
	for _, m := range c.Models {
		ms = append(ms, toProviderModel(m))
	}
	opts := c.Options
	if _, ok := opts["oauth"]; ok {
		opts = maps.Clone(opts)
		delete(opts, "oauth")
	}
	return provider.ClientConfig{Name: c.Name, Type: c.Type, APIBase: c.APIBase, APIKey: c.APIKey, Options: withUserAgent(opts, c.UserAgent), Models: ms}
}

// withUserAgent is a client's options with the user_agent setting in
// extra.user_agent, where every provider plugin reads it (httpkit), unless
// the entry sets its own; the client's options are not changed.
func withUserAgent(options map[string]any, ua string) map[string]any {
	if ua == "" {
		return options
	}
	extra, _ := options["extra"].(map[string]any)
	if _, set := extra["user_agent"]; set {
		return options
	}
	if options["extra"] != nil && extra == nil {
		return options // not a mapping: the plugin says so
	}
	out := make(map[string]any, len(options)+1)
	for k, v := range options {
		out[k] = v
	}
	merged := make(map[string]any, len(extra)+1)
	for k, v := range extra {
		merged[k] = v
	}
	merged["user_agent"] = ua
	out["extra"] = merged
	return out
}

func toProviderModel(m models.Model) provider.Model {
	typ := m.Type
	if typ == "" {
		typ = provider.ModelChat
	}
	return provider.Model{
		Name: m.Name, Type: typ, MaxInputTokens: m.MaxInputTokens, MaxOutputTokens: m.MaxOutputTokens,
		SupportsVision: m.SupportsVision, SupportsFunctionCalling: m.SupportsFunctionCalling, ReasoningLevels: m.ReasoningLevels,
	}
}

// Prepare starts the plugin (if needed) and configures the client in it, so
// that the first request pays neither cost.
func (c *Conn) Prepare(ctx context.Context) error {
	return c.Explain(c.provider.Prepare(ctx, c.Client.Name), "")
}

// Chat sends a conversation to a model and reports the reply through send.
// req needs Messages and may set the sampling options; Chat fills in the
// client, the model's real name, max tokens when the model requires them,
// the request patches, and the model's system-message quirks. A rate limit
// or server error before any event arrived is retried.
func (c *Conn) Chat(ctx context.Context, m models.Model, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	r := *req
	r.Client, r.Model = c.Client.Name, m.APIName()
	if r.MaxOutputTokens == 0 && m.RequireMaxTokens {
		r.MaxOutputTokens = m.MaxOutputTokens
	}
	if m.NoStream {
		r.Stream = false
	}
	r.Messages = adaptSystem(r.Messages, m)
	patches, err := Patches(c.Client, m, config.APIChat)
	if err != nil {
		return err
	}
	r.Patches = append(patches, r.Patches...)
	reauthed := false
	for attempt := 0; ; attempt++ {
		if err := c.freshToken(ctx, false); err != nil {
			return err
		}
		delivered := false
		err := c.provider.Chat(ctx, &r, func(ev *provider.ChatEvent) error {
			delivered = true
			return send(ev)
		})
		// A refused OAuth token is refreshed and the request sent once
		// more, unless part of the answer was already shown.
		if errors.Is(err, sdk.ErrUnauthenticated) && !delivered && !reauthed && c.Client.Token != nil {
			reauthed = true
			if rerr := c.freshToken(ctx, true); rerr != nil {
				return rerr
			}
			attempt--
			continue
		}
		if err == nil || delivered || attempt == chatRetries {
			return c.Explain(err, m.Name)
		}
		if werr := c.backoff(ctx, err, attempt, chatRetries+1); werr != nil {
			return c.Explain(werr, m.Name)
		}
	}
}

// Bound is a connection bound to one model, so that it can be used where a
// plain chat function is expected.
type Bound struct {
	Conn  *Conn
	Model models.Model
}

// Chat is Conn.Chat with the bound model.
func (b Bound) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	return b.Conn.Chat(ctx, b.Model, req, send)
}

// embedParallel is how many embedding batches are in flight at once: an
// embedding call is mostly waiting (for the network, the server, the
// plugin), so a few at a time multiply throughput.
const embedParallel = 4

// Embed returns one vector per input, splitting the inputs into batches of
// the model's max_batch_size (sent a few at a time) and retrying a failed
// batch.
func (c *Conn) Embed(ctx context.Context, m models.Model, inputs []string, inputType string) ([][]float32, error) {
	patches, err := Patches(c.Client, m, config.APIEmbeddings)
	if err != nil {
		return nil, err
	}
	size := int(m.MaxBatchSize)
	if size <= 0 {
		size = 100
	}
	out := make([][]float32, len(inputs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	slots := make(chan struct{}, embedParallel)
	for start := 0; start < len(inputs); start += size {
		end := min(start+size, len(inputs))
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		if err := c.freshToken(ctx, false); err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			req := &provider.EmbedRequest{Client: c.Client.Name, Model: m.APIName(), Inputs: inputs[start:end], InputType: inputType, Patches: patches}
			vecs, err := c.embedBatch(ctx, req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				return
			}
			copy(out[start:end], vecs)
		}()
	}
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return nil, c.Explain(firstErr, m.Name)
	}
	return out, nil
}

// embedBatch sends one batch, retrying transient failures.
func (c *Conn) embedBatch(ctx context.Context, req *provider.EmbedRequest) ([][]float32, error) {
	for attempt := 0; ; attempt++ {
		resp, err := c.provider.Embed(ctx, req)
		if err == nil {
			if len(resp.Vectors) != len(req.Inputs) {
				return nil, fmt.Errorf("embeddings: %d vectors for %d inputs: %w", len(resp.Vectors), len(req.Inputs), sdk.ErrBadResponse)
			}
			return resp.Vectors, nil
		}
		if attempt >= c.EmbedRetries {
			return nil, err
		}
		if werr := c.backoff(ctx, err, attempt, 0); werr != nil {
			return nil, werr
		}
	}
}

// Rerank scores documents against a query with a reranker model, best
// first, at most topN (0 means all).
func (c *Conn) Rerank(ctx context.Context, m models.Model, query string, docs []string, topN int) ([]provider.RerankResult, error) {
	patches, err := Patches(c.Client, m, config.APIRerank)
	if err != nil {
		return nil, err
	}
	req := &provider.RerankRequest{Client: c.Client.Name, Model: m.APIName(), Query: query, Documents: docs, TopN: topN, Patches: patches}
	if err := c.freshToken(ctx, false); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		resp, err := c.provider.Rerank(ctx, req)
		if err == nil {
			return resp.Results, nil
		}
		if attempt == chatRetries {
			return nil, c.Explain(err, m.Name)
		}
		if werr := c.backoff(ctx, err, attempt, chatRetries+1); werr != nil {
			return nil, c.Explain(werr, m.Name)
		}
	}
}

// LiveModels asks the provider which models the client has right now (an
// Ollama server lists what it has pulled), as catalog models.
func (c *Conn) LiveModels(ctx context.Context) ([]models.Model, error) {
	ctx, cancel := context.WithTimeout(ctx, liveListLimit)
	defer cancel()
	if err := c.freshToken(ctx, false); err != nil {
		return nil, err
	}
	resp, err := c.provider.ListModels(ctx, &provider.ListModelsRequest{Client: c.Client.Name})
	if err != nil {
		return nil, c.Explain(err, "")
	}
	out := make([]models.Model, 0, len(resp.Models))
	for _, m := range resp.Models {
		typ := m.Type
		if typ == provider.ModelChat {
			typ = ""
		}
		out = append(out, models.Model{Name: m.Name, Type: typ, MaxInputTokens: m.MaxInputTokens, MaxOutputTokens: m.MaxOutputTokens,
			SupportsVision: m.SupportsVision, SupportsFunctionCalling: m.SupportsFunctionCalling, ReasoningLevels: m.ReasoningLevels})
	}
	return out, nil
}

// backoff waits before retry number attempt+1 of a failed call, or returns
// err when it is not worth retrying. of is how many tries the call gets,
// for OnRetry (0: a background call, such as an embeddings batch, that is
// not reported).
func (c *Conn) backoff(ctx context.Context, err error, attempt, of int) error {
	if !errors.Is(err, sdk.ErrRateLimited) && !errors.Is(err, sdk.ErrUnavailable) {
		return err
	}
	var crash *plugins.CrashError
	if errors.As(err, &crash) {
		return err
	}
	wait := retryBase << attempt
	if d, ok := sdk.RetryAfter(err); ok {
		if d > maxRetryWait {
			return fmt.Errorf("%w (the server asks to wait %s before retrying)", err, d.Round(time.Second))
		}
		wait = d
	}
	if c.OnRetry != nil && of > 0 {
		c.OnRetry(wait, attempt+2, of, err)
	}
	if serr := c.sleep(ctx, wait); serr != nil {
		return serr
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// adaptSystem applies a model's system-message quirks: a prefix some
// models need before the system prompt, and folding the system prompt into
// the first user message for models that take no system message.
func adaptSystem(msgs []provider.Message, m models.Model) []provider.Message {
	if m.SystemPromptPrefix == "" && !m.NoSystemMessage {
		return msgs
	}
	out := make([]provider.Message, 0, len(msgs))
	var system string
	hasSystem := false
	for _, msg := range msgs {
		if msg.Role == provider.RoleSystem {
			hasSystem = true
			if system != "" {
				system += "\n\n"
			}
			system += msg.Text()
			continue
		}
		out = append(out, msg)
	}
	if m.SystemPromptPrefix != "" {
		if system != "" {
			system = m.SystemPromptPrefix + "\n" + system
		} else {
			system = m.SystemPromptPrefix
		}
		hasSystem = true
	}
	if !hasSystem {
		return msgs
	}
	if !m.NoSystemMessage {
		return append([]provider.Message{provider.TextMessage(provider.RoleSystem, system)}, out...)
	}
	for i := range out {
		if out[i].Role == provider.RoleUser {
			parts := append([]provider.Part{{Text: system + "\n\n"}}, out[i].Parts...)
			out[i] = provider.Message{Role: provider.RoleUser, Parts: parts}
			return out
		}
	}
	return append([]provider.Message{provider.TextMessage(provider.RoleUser, system)}, out...)
}
