package openai

// This file is the Responses API side of the plugin: which clients use it
// (a ChatGPT subscription login above all, whose backend serves nothing
// else), the request body, and the headers the ChatGPT backend asks for.
// responses_stream.go reads the reply.

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Wire APIs a client's chat can speak (its wire_api option).
const (
	// WireChat is POST {api_base}/chat/completions.
	WireChat = "chat"
	// WireResponses is POST {api_base}/responses, streamed as typed
	// events (response.output_text.delta, ...).
	WireResponses = "responses"
)

// ChatGPTBase is the api_base of an "openai" client that logs in with a
// ChatGPT subscription (auth: oauth) and sets none: the backend of
// OpenAI's Codex, which answers the Responses API at /responses.
const ChatGPTBase = "https://chatgpt.com/backend-api/codex"

// Originator names Coyote to the ChatGPT backend (its "originator"
// header).
const Originator = "coyote"

// chatGPTAuthClaim is the JWT claim of a ChatGPT login's tokens that holds
// the account: {"chatgpt_account_id": "...", "chatgpt_plan_type": ...}.
const chatGPTAuthClaim = "https://api.openai.com/auth"

// wireAPI decides which API a client's chat speaks. The wire_api option
// says; without it, an "openai" client that logs in with OAuth and sets no
// api_base is a ChatGPT subscription, whose backend only speaks the
// Responses API, and every other client speaks chat completions.
func wireAPI(cfg *provider.ClientConfig, base string, oauth bool) (string, error) {
	v, set := cfg.Options["wire_api"]
	if !set || v == nil {
		if cfg.Type == TypeOpenAI && oauth && base == "" {
			return WireResponses, nil
		}
		return WireChat, nil
	}
	s, _ := v.(string)
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case WireChat, WireResponses:
	default:
		return "", invalidConfig(cfg, "wire_api must be %s (chat/completions) or %s (the Responses API)", WireChat, WireResponses)
	}
	if s == WireResponses && cfg.Type == TypeAzureOpenAI {
		return "", invalidConfig(cfg, "wire_api %s is not supported for %s clients; remove it", WireResponses, TypeAzureOpenAI)
	}
	return s, nil
}

// setChatGPT prepares a client whose key is a ChatGPT login's access
// token: the account it is for, from the chatgpt_account_id option or the
// token's own claims.
func (c *client) setChatGPT(cfg *provider.ClientConfig) error {
	c.chatgpt = true
	if v, ok := cfg.Options["chatgpt_account_id"]; ok && v != nil {
		s, ok := v.(string)
		if s = strings.TrimSpace(s); !ok || s == "" {
			return invalidConfig(cfg, "chatgpt_account_id must be your ChatGPT account (workspace) id")
		}
		c.accountID = s
	} else {
		c.accountID = chatGPTAccount(cfg.APIKey)
	}
	return nil
}

// chatGPTAccount reads the ChatGPT account id from the claims of a
// login's token (a JWT; the id token and the access token both carry it),
// or "" when the token is not one. The signature is not checked: the
// token came from the kernel's own login, and the backend checks it.
func chatGPTAccount(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return ""
	}
	var claims map[string]json.RawMessage
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	var auth struct {
		AccountID string `json:"chatgpt_account_id"`
	}
	if json.Unmarshal(claims[chatGPTAuthClaim], &auth) != nil {
		return ""
	}
	return auth.AccountID
}

// conversationID names a conversation to the ChatGPT backend (its
// session_id header and prompt_cache_key, which route the requests of one
// conversation to the same prompt cache): a UUID-shaped digest of its
// first input item, the same for every request of the conversation, in
// this process or a later one that resumes it, with no state kept here.
func conversationID(input []respItem) string {
	h := sha256.New()
	if len(input) > 0 {
		data, _ := json.Marshal(&input[0])
		h.Write(data)
	}
	b := h.Sum(nil)[:16]
	b[6] = b[6]&0x0f | 0x50 // the version and variant bits of a name-based UUID
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

// codexHeaders adds what the ChatGPT backend needs of every request
// besides the token: the account, the Responses beta, who is asking. The
// conversation's session_id is the request's own (chatResponses).
func (c *client) codexHeaders(h http.Header) {
	if c.accountID != "" {
		h.Set("chatgpt-account-id", c.accountID)
	}
	h.Set("OpenAI-Beta", "responses=experimental")
	h.Set("originator", Originator)
}

// The request body of POST /responses.
type responsesBody struct {
	Model        string     `json:"model"`
	Instructions string     `json:"instructions,omitempty"`
	Input        []respItem `json:"input"`
	Tools        []respTool `json:"tools,omitempty"`
	ToolChoice   string     `json:"tool_choice,omitempty"`
	// ParallelToolCalls is only sent with tools.
	ParallelToolCalls *bool          `json:"parallel_tool_calls,omitempty"`
	Reasoning         *respReasoning `json:"reasoning,omitempty"`
	Store             bool           `json:"store"`
	Stream            bool           `json:"stream"`
	Include           []string       `json:"include,omitempty"`
	PromptCacheKey    string         `json:"prompt_cache_key,omitempty"`
	Temperature       *float64       `json:"temperature,omitempty"`
	TopP              *float64       `json:"top_p,omitempty"`
	MaxOutputTokens   int64          `json:"max_output_tokens,omitempty"`
}

type respReasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// respItem is an input item: a message, a function call the model made, a
// function's output, or a reasoning item replayed.
type respItem struct {
	Type string `json:"type"`
	// message
	Role    string        `json:"role,omitempty"`
	Content []respContent `json:"content,omitempty"`
	// function_call and function_call_output
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Output    string `json:"output,omitempty"`
	// reasoning: Summary is always sent (the API requires it, empty or
	// not), hence a pointer.
	Summary          *[]respContent `json:"summary,omitempty"`
	EncryptedContent string         `json:"encrypted_content,omitempty"`
}

type respContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

type respTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// encryptedReasoning asks for the reasoning items in a form that can be
// sent back without the server storing them (store: false), so that the
// model keeps its reasoning across the rounds of a tool call.
const encryptedReasoning = "reasoning.encrypted_content"

// defaultInstructions are sent when a conversation has no system prompt:
// the ChatGPT backend requires instructions.
const defaultInstructions = "You are a helpful assistant."

// responsesBody encodes the request for the Responses API, and returns
// the conversation's id for the ChatGPT backend ("" for others). The
// system prompt goes in instructions; the replies are always streamed (the
// ChatGPT backend streams only) and reported as events either way.
func (c *client) responsesBody(req *provider.ChatRequest) ([]byte, string, error) {
	instructions, input, err := c.respInput(req.Messages)
	if err != nil {
		return nil, "", err
	}
	var session string
	body := responsesBody{
		Model:        req.Model,
		Instructions: instructions,
		Input:        input,
		Store:        false,
		Stream:       true,
	}
	if c.chatgpt {
		// The subscription's models all reason, and the backend takes
		// neither sampling settings nor an output limit.
		if body.Instructions == "" {
			body.Instructions = defaultInstructions
		}
		body.Reasoning = &respReasoning{Effort: req.ReasoningEffort, Summary: "auto"}
		session = conversationID(input)
		body.PromptCacheKey = session
	} else {
		body.Temperature, body.TopP, body.MaxOutputTokens = req.Temperature, req.TopP, req.MaxOutputTokens
		if req.ReasoningEffort != "" {
			body.Reasoning = &respReasoning{Effort: req.ReasoningEffort, Summary: "auto"}
		}
	}
	if body.Reasoning != nil {
		body.Include = []string{encryptedReasoning}
	}
	for _, t := range req.Tools {
		params := json.RawMessage(t.Parameters)
		if len(strings.TrimSpace(string(params))) == 0 {
			params = json.RawMessage(emptySchema)
		} else if !json.Valid(params) {
			return nil, "", c.fail(sdk.ErrInvalidArgument, "the parameters of tool %q are not valid JSON", t.Name)
		}
		body.Tools = append(body.Tools, respTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
	}
	if len(body.Tools) > 0 {
		parallel := true
		body.ToolChoice, body.ParallelToolCalls = "auto", &parallel
	}
	data, err := json.Marshal(&body)
	if err != nil {
		return nil, "", c.fail(sdk.ErrInvalidArgument, "cannot encode the request: %v", err)
	}
	return data, session, nil
}

// respInput converts a conversation to the instructions (the system
// messages, joined) and the input items: each message's reasoning (when it
// can be replayed), text and images, its tool calls as function_call items
// and its tool results as function_call_output items, in order.
func (c *client) respInput(in []provider.Message) (string, []respItem, error) {
	var system []string
	out := make([]respItem, 0, len(in))
	for i, m := range in {
		bad := func(what string) error {
			return c.fail(sdk.ErrInvalidArgument, "message %d (%s) %s", i+1, m.Role, what)
		}
		var (
			content []respContent
			calls   []respItem
			results []respItem
			thought []respItem
		)
		textType := "input_text"
		if m.Role == provider.RoleAssistant {
			textType = "output_text"
		}
		for _, p := range m.Parts {
			switch {
			case p.ToolResult != nil:
				results = append(results, respItem{Type: "function_call_output", CallID: p.ToolResult.CallID, Output: p.ToolResult.Content})
			case p.ToolCall != nil:
				args := p.ToolCall.Arguments
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				calls = append(calls, respItem{Type: "function_call", CallID: p.ToolCall.ID, Name: p.ToolCall.Name, Arguments: args})
			case p.Reasoning != nil:
				// Only reasoning this API produced can go back: its
				// encrypted content is the signature.
				if p.Reasoning.Signature == "" || m.Role != provider.RoleAssistant {
					continue
				}
				summary := []respContent{}
				if p.Reasoning.Text != "" {
					summary = append(summary, respContent{Type: "summary_text", Text: p.Reasoning.Text})
				}
				thought = append(thought, respItem{Type: "reasoning", Summary: &summary, EncryptedContent: p.Reasoning.Signature})
			case p.ImageURL != "":
				if m.Role != provider.RoleUser {
					return "", nil, bad("holds an image; only user messages can")
				}
				content = append(content, respContent{Type: "input_image", ImageURL: p.ImageURL})
			case p.Text != "":
				content = append(content, respContent{Type: textType, Text: p.Text})
			}
		}
		switch m.Role {
		case provider.RoleSystem:
			if len(calls) > 0 || len(results) > 0 {
				return "", nil, bad("holds a tool call or result")
			}
			for _, ct := range content {
				system = append(system, ct.Text)
			}
		case provider.RoleUser, provider.RoleTool:
			if len(calls) > 0 {
				return "", nil, bad("holds a tool call; only assistant messages can")
			}
			if m.Role == provider.RoleTool && len(results) == 0 {
				return "", nil, bad("holds no tool result")
			}
			// Results answer the previous assistant message, so they go
			// first.
			out = append(out, results...)
			if len(content) > 0 {
				out = append(out, respItem{Type: "message", Role: provider.RoleUser, Content: content})
			}
		case provider.RoleAssistant:
			out = append(out, thought...)
			if len(content) > 0 {
				out = append(out, respItem{Type: "message", Role: provider.RoleAssistant, Content: content})
			}
			out = append(out, calls...)
			out = append(out, results...)
		default:
			return "", nil, bad("has a role this provider does not know")
		}
	}
	return strings.Join(system, "\n\n"), out, nil
}
