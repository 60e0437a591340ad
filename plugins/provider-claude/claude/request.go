package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// The request body of POST /messages.
type messagesRequest struct {
	// AnthropicVersion is Vertex AI's; Model is left out there.
	AnthropicVersion string        `json:"anthropic_version,omitempty"`
	Model            string        `json:"model,omitempty"`
	MaxTokens        int64         `json:"max_tokens"`
	System           string        `json:"system,omitempty"`
	Messages         []wireMessage `json:"messages"`
	Stream           bool          `json:"stream"`
	Temperature      *float64      `json:"temperature,omitempty"`
	TopP             *float64      `json:"top_p,omitempty"`
	Tools            []wireTool    `json:"tools,omitempty"`
	OutputConfig     *outputConfig `json:"output_config,omitempty"`
}

type outputConfig struct {
	Effort string `json:"effort"`
}

type wireTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// wireMessage is one message; its content blocks are the *Block types
// below.
type wireMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type imageBlock struct {
	Type   string      `json:"type"`
	Source imageSource `json:"source"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type redactedBlock struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error"`
}

// emptySchema is sent for a tool declared without parameters.
const emptySchema = `{"type":"object","properties":{}}`

// unanswered is the result sent for a tool call the conversation holds no
// result for (a session saved while a tool ran): the API refuses a tool_use
// without its tool_result.
const unanswered = "No result: the tool call was interrupted."

// requestBody encodes the request for the API.
func (c *Client) requestBody(req *provider.ChatRequest) ([]byte, error) {
	system, msgs, err := convert(req.Messages)
	if err != nil {
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "%v", err)
	}
	body := messagesRequest{
		Model:       req.Model,
		MaxTokens:   req.MaxOutputTokens,
		System:      system,
		Messages:    msgs,
		Stream:      req.Stream,
		Temperature: req.Temperature,
		TopP:        req.TopP,
	}
	if c.ep.BodyVersion != "" {
		body.AnthropicVersion, body.Model = c.ep.BodyVersion, ""
	}
	if body.MaxTokens <= 0 {
		body.MaxTokens = DefaultMaxTokens
	}
	if req.ReasoningEffort != "" {
		body.OutputConfig = &outputConfig{Effort: req.ReasoningEffort}
	}
	for _, t := range req.Tools {
		schema := json.RawMessage(emptySchema)
		if !isBlank(string(t.Parameters)) {
			if !isObject(t.Parameters) {
				return nil, c.http.Fail(sdk.ErrInvalidArgument, "tool %q: parameters are not a JSON object", t.Name)
			}
			schema = t.Parameters
		}
		body.Tools = append(body.Tools, wireTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	data, err := json.Marshal(&body)
	if err != nil {
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "encode the request: %v", err)
	}
	return data, nil
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// isObject reports whether data is one valid JSON object.
func isObject(data []byte) bool {
	t := bytes.TrimSpace(data)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}

// convert turns a conversation into the Messages API's top-level system
// text and its alternating user and assistant messages.
//
// An assistant message of Coyote's may hold several rounds of tool calls
// (sessions saved by the original program do), and the tool messages after
// it answer all of them. The API wants one assistant message per round,
// each followed by a user message with that round's results. Walking the
// assistant's parts, a new round starts when, after at least one tool call
// in the current round, a text or a thinking block appears (the next
// round's narration), or a call reuses an id already used in the current
// round (the API rejects duplicate tool_use ids in one message). Results
// are matched to calls by id, the first unused one for a repeated id.
func convert(msgs []provider.Message) (string, []wireMessage, error) {
	cv := converter{}
	var system []string
	claimed := make([]bool, len(msgs)) // results already given to an assistant message
	for i := range msgs {
		m := &msgs[i]
		bad := func(format string, args ...any) error {
			return fmt.Errorf("message %d (%s) %s", i+1, m.Role, fmt.Sprintf(format, args...))
		}
		switch m.Role {
		case provider.RoleSystem:
			var text strings.Builder
			for _, p := range m.Parts {
				if p.ImageURL != "" || p.ToolCall != nil || p.ToolResult != nil {
					return "", nil, bad("holds more than text; system messages can only hold text")
				}
				text.WriteString(p.Text)
			}
			if !isBlank(text.String()) {
				system = append(system, text.String())
			}
		case provider.RoleUser, provider.RoleTool:
			var blocks []any
			for _, p := range m.Parts {
				switch {
				case p.ToolResult != nil:
					if !claimed[i] {
						return "", nil, bad("answers tool call %q, but no assistant message before it made a call", p.ToolResult.CallID)
					}
				case p.ToolCall != nil:
					return "", nil, bad("holds a tool call; only assistant messages can")
				case p.Reasoning != nil:
					return "", nil, bad("holds reasoning; only assistant messages can")
				case m.Role == provider.RoleTool:
					if p.ImageURL != "" || !isBlank(p.Text) {
						return "", nil, bad("holds more than tool results")
					}
				case p.ImageURL != "":
					img, err := image(p.ImageURL)
					if err != nil {
						return "", nil, bad("%v", err)
					}
					blocks = append(blocks, img)
				case !isBlank(p.Text):
					blocks = append(blocks, textBlock{Type: "text", Text: p.Text})
				}
			}
			cv.add("user", blocks...)
		case provider.RoleAssistant:
			pool := collectResults(msgs, i, claimed)
			if err := cv.assistant(m, pool); err != nil {
				return "", nil, bad("%v", err)
			}
			for _, r := range pool {
				if !r.used {
					return "", nil, fmt.Errorf("message %d (%s) answers tool call %q, which message %d (assistant) did not make",
						r.msg+1, msgs[r.msg].Role, r.result.CallID, i+1)
				}
			}
		default:
			return "", nil, bad("has a role this provider does not know")
		}
	}
	if len(cv.out) == 0 {
		return "", nil, fmt.Errorf("the conversation has no message to send")
	}
	return strings.Join(system, "\n\n"), cv.out, nil
}

// pooled is a tool result waiting for its call.
type pooled struct {
	result *provider.ToolResult
	msg    int
	used   bool
}

// collectResults gathers the tool results that answer the assistant message
// at index i: those of the messages after it, up to the next assistant
// message. It marks those messages as claimed.
func collectResults(msgs []provider.Message, i int, claimed []bool) []pooled {
	var pool []pooled
	for j := i + 1; j < len(msgs) && msgs[j].Role != provider.RoleAssistant; j++ {
		claimed[j] = true
		for _, p := range msgs[j].Parts {
			if p.ToolResult != nil {
				pool = append(pool, pooled{result: p.ToolResult, msg: j})
			}
		}
	}
	return pool
}

// converter builds the wire messages, merging consecutive messages of one
// role so that roles alternate.
type converter struct {
	out []wireMessage
}

func (cv *converter) add(role string, blocks ...any) {
	if len(blocks) == 0 {
		return
	}
	if n := len(cv.out); n > 0 && cv.out[n-1].Role == role {
		cv.out[n-1].Content = append(cv.out[n-1].Content, blocks...)
		return
	}
	cv.out = append(cv.out, wireMessage{Role: role, Content: blocks})
}

// assistant adds one assistant message, split into rounds, with the user
// messages holding each round's results from pool.
func (cv *converter) assistant(m *provider.Message, pool []pooled) error {
	var blocks []any
	var calls []string // ids of the current round's calls
	flush := func() {
		cv.add("assistant", blocks...)
		var results []any
		for _, id := range calls {
			results = append(results, takeResult(pool, id))
		}
		cv.add("user", results...)
		blocks, calls = nil, nil
	}
	for _, p := range m.Parts {
		switch {
		case p.ToolCall != nil:
			tc := p.ToolCall
			if tc.ID == "" || tc.Name == "" {
				return fmt.Errorf("holds a tool call without an id or a name")
			}
			for _, id := range calls {
				if id == tc.ID {
					flush()
					break
				}
			}
			input := json.RawMessage(`{}`)
			if !isBlank(tc.Arguments) {
				if !isObject([]byte(tc.Arguments)) {
					return fmt.Errorf("holds tool call %q whose arguments are not a JSON object", tc.ID)
				}
				input = json.RawMessage(tc.Arguments)
			}
			blocks = append(blocks, toolUseBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
			calls = append(calls, tc.ID)
		case p.Reasoning != nil:
			r := p.Reasoning
			var b any
			switch {
			case r.Redacted != "":
				b = redactedBlock{Type: "redacted_thinking", Data: r.Redacted}
			case r.Signature != "":
				b = thinkingBlock{Type: "thinking", Thinking: r.Text, Signature: r.Signature}
			default:
				// Thinking without a signature (from another provider, or
				// cut short) cannot be replayed.
				continue
			}
			if len(calls) > 0 {
				flush()
			}
			blocks = append(blocks, b)
		case p.ImageURL != "":
			return fmt.Errorf("holds an image; only user messages can")
		case p.ToolResult != nil:
			return fmt.Errorf("holds a tool result; only tool and user messages can")
		case isBlank(p.Text):
			// The API rejects empty text blocks.
		default:
			if len(calls) > 0 {
				flush()
			}
			blocks = append(blocks, textBlock{Type: "text", Text: p.Text})
		}
	}
	flush()
	return nil
}

// takeResult returns the tool_result block answering call id: the first
// unused result for it, or an error result when there is none.
func takeResult(pool []pooled, id string) toolResultBlock {
	for k := range pool {
		r := &pool[k]
		if !r.used && r.result.CallID == id {
			r.used = true
			return toolResultBlock{Type: "tool_result", ToolUseID: id, Content: r.result.Content, IsError: r.result.IsError}
		}
	}
	return toolResultBlock{Type: "tool_result", ToolUseID: id, Content: unanswered, IsError: true}
}

// image turns a data: or http(s): URL into an image block.
func image(u string) (imageBlock, error) {
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		meta, data, found := strings.Cut(rest, ",")
		mediaType, isBase64 := strings.CutSuffix(meta, ";base64")
		if !found || !isBase64 || mediaType == "" || data == "" {
			return imageBlock{}, fmt.Errorf("holds an image data: URL that is not data:<type>;base64,<data>")
		}
		return imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: mediaType, Data: data}}, nil
	}
	if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return imageBlock{Type: "image", Source: imageSource{Type: "url", URL: u}}, nil
	}
	return imageBlock{}, fmt.Errorf("holds an image URL that is neither data: nor https:")
}
