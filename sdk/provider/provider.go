// Package provider is the contract between the Coyote kernel and an LLM
// provider plugin, such as coyote-provider-openai.
//
// A provider plugin implements [Provider] and serves it with sdk.Serve:
//
//	sdk.Serve(sdk.Info{Name: "echo", Version: "0.1.0"}, provider.Plugin(&echo{}))
//
// One plugin process serves every configured client of its type: the kernel
// calls Configure once per client (again after a restart) and every later
// request names the client it is for.
//
// Chat streams its reply as events through the send callback: text and
// reasoning deltas as they arrive, each tool call once it is complete, then
// usage and the finish reason. Return an error wrapping one of the sdk
// sentinels (sdk.ErrUnauthenticated for a rejected key, sdk.ErrNotFound for an
// unknown model, sdk.ErrRateLimited, sdk.ErrUnavailable,
// sdk.ErrBadResponse for a malformed stream) so the kernel can tell the user
// what to do; pass an upstream's Retry-After on with sdk.WithRetryAfter.
// A request for a client Configure never registered is
// sdk.ErrFailedPrecondition. A reply with tool calls finishes with the
// reason "tool_calls". Stop promptly when ctx is cancelled: the user
// pressed Ctrl-C.
//
// Helpers: Configs keeps the configured clients (embed it to get
// Configure), StreamText streams an answer the provider has whole, and
// package sdk/httpkit is the HTTP plumbing of a provider that calls an
// HTTP API (client with proxy and timeouts, status → SDK error with
// Retry-After, server-sent events).
//
// Package sdk/provider/providertest holds the conformance suite every
// provider passes, Coyote's own and a third party's: run it from a test
// with a fake of your service.
package provider

import (
	"context"
	"fmt"
	"strings"
)

// Provider is implemented by provider plugins, and by the kernel's client
// for them.
type Provider interface {
	// Configure registers or replaces the client named in the request.
	Configure(ctx context.Context, req *ConfigureRequest) (*ConfigureResponse, error)
	// ListModels lists the models a configured client offers right now.
	ListModels(ctx context.Context, req *ListModelsRequest) (*ListModelsResponse, error)
	// Chat sends a conversation and reports the reply through send, which
	// returns an error when the receiver has gone (stop then).
	Chat(ctx context.Context, req *ChatRequest, send func(*ChatEvent) error) error
}

// Embedder is implemented by providers that can embed texts. A provider
// plugin that implements it announces CapEmbeddings.
type Embedder interface {
	// Embed returns one vector per input, in input order.
	Embed(ctx context.Context, req *EmbedRequest) (*EmbedResponse, error)
}

// Reranker is implemented by providers that can rerank documents. A provider
// plugin that implements it announces CapRerank.
type Reranker interface {
	// Rerank scores req.Documents against req.Query, best first.
	Rerank(ctx context.Context, req *RerankRequest) (*RerankResponse, error)
}

// Capabilities a provider announces in Describe. CapChat and CapStreaming
// come with every provider; CapEmbeddings and CapRerank with the optional
// interfaces; the plugin's sdk.Info adds the others.
const (
	CapChat       = "chat"
	CapStreaming  = "streaming"
	CapTools      = "tools"
	CapReasoning  = "reasoning"
	CapEmbeddings = "embeddings"
	CapRerank     = "rerank"
)

// ClientConfig is one client from the user's configuration.
type ClientConfig struct {
	// Name is unique among the user's clients, such as "openai" or "groq".
	Name string
	// Type is the client type that selected this plugin, such as "openai".
	Type    string
	APIBase string
	// APIKey is already resolved from the environment or the vault. Never log
	// it: String and GoString redact it.
	APIKey string
	// Options holds every other key of the client's entry in config.yaml.
	Options map[string]any
	// Models are the models the user listed for the client, if any.
	Models []Model
}

// String describes the client without its key.
func (c ClientConfig) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("client %q (type %s, api_base %q, api key %s)", c.Name, c.Type, c.APIBase, key)
}

// GoString is String, so that %#v cannot print the key either.
func (c ClientConfig) GoString() string { return c.String() }

// ConfigureRequest carries one client's configuration.
type ConfigureRequest struct {
	Client ClientConfig
}

// ConfigureResponse says how the client was configured; fields may be
// added.
type ConfigureResponse struct {
	// APIBase is the base URL the client calls, with the plugin's default
	// filled in when the configuration has none. Optional: the kernel
	// needs it only to route a client through the sandbox's credential
	// proxy, and says so when a plugin leaves it empty.
	APIBase string
}

// ListModelsRequest names the client whose models are wanted.
type ListModelsRequest struct {
	Client string
}

// ListModelsResponse lists models.
type ListModelsResponse struct {
	Models []Model
}

// Model types.
const (
	ModelChat      = "chat"
	ModelEmbedding = "embedding"
	ModelReranker  = "reranker"
)

// Model describes one model of a client.
type Model struct {
	Name string
	// Type is ModelChat, ModelEmbedding or ModelReranker.
	Type                    string
	MaxInputTokens          int64
	MaxOutputTokens         int64
	SupportsVision          bool
	SupportsFunctionCalling bool
	ReasoningLevels         []string
}

// ChatRequest is one call to the model.
type ChatRequest struct {
	// Client names a client set up with Configure.
	Client string
	// Model is the model's name at the provider (without "client:").
	Model    string
	Messages []Message
	// Temperature and TopP are nil when unset.
	Temperature     *float64
	TopP            *float64
	MaxOutputTokens int64
	Tools           []Tool
	// Stream asks for the reply as it is generated. Without it the plugin
	// makes one non-streamed request and still reports it as events.
	Stream          bool
	ReasoningEffort string
	// Patches change the HTTP request before it is sent, in order (see
	// RequestPatch.Apply).
	Patches []RequestPatch
}

// EmbedRequest asks for the vectors of a batch of texts.
type EmbedRequest struct {
	Client string
	Model  string
	Inputs []string
	// InputType is "query" or "document" for models that embed the two
	// differently; empty when the caller does not say.
	InputType string
	// Dimensions asks models that can shorten their vectors for this size;
	// 0 means the model's default.
	Dimensions int
	Patches    []RequestPatch
}

// Input types of an EmbedRequest.
const (
	InputQuery    = "query"
	InputDocument = "document"
)

// EmbedResponse holds one vector per input, in input order.
type EmbedResponse struct {
	Vectors [][]float32
	Usage   *Usage
}

// RerankRequest asks to score documents against a query.
type RerankRequest struct {
	Client    string
	Model     string
	Query     string
	Documents []string
	// TopN limits the results; 0 means all.
	TopN    int
	Patches []RequestPatch
}

// RerankResponse lists results best first.
type RerankResponse struct {
	Results []RerankResult
}

// RerankResult is one scored document.
type RerankResult struct {
	// Index is the document's position in the request.
	Index int
	Score float64
}

// Roles of messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one message of a conversation.
type Message struct {
	Role  string
	Parts []Part
}

// TextMessage returns a message holding one text part.
func TextMessage(role, text string) Message {
	return Message{Role: role, Parts: []Part{{Text: text}}}
}

// Text returns the concatenated text parts of the message.
func (m Message) Text() string {
	if len(m.Parts) == 1 {
		return m.Parts[0].Text
	}
	var b strings.Builder
	for _, p := range m.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// Part is one piece of a message. Exactly one field is set; a Part with none
// set is an empty text.
type Part struct {
	Text string
	// ImageURL is a data: or https: URL of an image.
	ImageURL   string
	ToolCall   *ToolCall
	ToolResult *ToolResult
	Reasoning  *Reasoning
}

// Tool declares a function the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments, as JSON.
	Parameters []byte
}

// ToolCall is the model's request to call a tool.
type ToolCall struct {
	ID   string
	Name string
	// Arguments is a JSON text, exactly as the model produced it.
	Arguments string
	// Signature is opaque provider data to send back with the call.
	Signature string
}

// ToolResult answers a ToolCall.
type ToolResult struct {
	CallID  string
	Name    string
	Content string
	IsError bool
}

// Reasoning is the model's visible thinking, with what is needed to replay
// it to the provider.
type Reasoning struct {
	Text      string
	Signature string
	// Redacted is an opaque block of redacted thinking to replay as-is.
	Redacted string
}

// Usage counts the tokens of one model call. InputTokens counts every
// input token, CachedTokens the part of them read from the provider's
// prompt cache; OutputTokens counts every output token, ReasoningTokens
// the part the model spent thinking. A provider that does not report a
// part leaves it 0.
type Usage struct {
	InputTokens     int64
	OutputTokens    int64
	CachedTokens    int64
	ReasoningTokens int64
}

// ChatEvent is one event of a reply. Exactly one field is set.
type ChatEvent struct {
	// Text is a piece of the answer.
	Text string
	// Reasoning is a piece of the model's thinking.
	Reasoning *Reasoning
	// ToolCall is a complete tool call.
	ToolCall *ToolCall
	Usage    *Usage
	// FinishReason is why the model stopped ("stop", "length",
	// "tool_calls", ...).
	FinishReason string
	// Error is an error that ends the reply. Go plugins usually return an
	// error from Chat instead; both reach the kernel as the same error.
	Error *StreamError
}

// StreamError is an error reported inside a stream.
type StreamError struct {
	// Code is an sdk error code such as "rate_limited" (see sdk.ErrorCode).
	Code    string
	Message string
}
