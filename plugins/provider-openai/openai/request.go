package openai

import (
	"encoding/json"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// The request body of POST /chat/completions.
type chatBody struct {
	Model         string         `json:"model"`
	Messages      []wireMessage  `json:"messages"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	TopP          *float64       `json:"top_p,omitempty"`
	MaxTokens     int64          `json:"max_tokens,omitempty"`
	// MaxCompletionTokens replaces max_tokens at OpenAI itself, whose
	// reasoning models reject max_tokens.
	MaxCompletionTokens int64      `json:"max_completion_tokens,omitempty"`
	Tools               []wireTool `json:"tools,omitempty"`
	ReasoningEffort     string     `json:"reasoning_effort,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireMessage struct {
	Role string `json:"role"`
	// Content is a string, a []wirePart, or nil for null.
	Content    any            `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wirePart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema is sent for a tool declared without parameters.
const emptySchema = `{"type":"object","properties":{}}`

// chatBody encodes the request for the API.
func (c *client) chatBody(req *provider.ChatRequest) ([]byte, error) {
	msgs, err := c.messages(req.Messages)
	if err != nil {
		return nil, err
	}
	body := chatBody{
		Model:           req.Model,
		Messages:        msgs,
		Stream:          req.Stream,
		Temperature:     req.Temperature,
		TopP:            req.TopP,
		ReasoningEffort: req.ReasoningEffort,
	}
	if req.Stream {
		body.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if req.MaxOutputTokens > 0 {
		if c.typ == TypeOpenAI {
			body.MaxCompletionTokens = req.MaxOutputTokens
		} else {
			body.MaxTokens = req.MaxOutputTokens
		}
	}
	for _, t := range req.Tools {
		params := json.RawMessage(t.Parameters)
		if len(strings.TrimSpace(string(params))) == 0 {
			params = json.RawMessage(emptySchema)
		} else if !json.Valid(params) {
			return nil, c.fail(sdk.ErrInvalidArgument, "the parameters of tool %q are not valid JSON", t.Name)
		}
		body.Tools = append(body.Tools, wireTool{
			Type:     "function",
			Function: toolFunction{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	data, err := json.Marshal(&body)
	if err != nil {
		return nil, c.fail(sdk.ErrInvalidArgument, "cannot encode the request: %v", err)
	}
	return data, nil
}

// messages converts a conversation to OpenAI's messages. Tool results
// become one "tool" message each; reasoning is not sent back.
func (c *client) messages(in []provider.Message) ([]wireMessage, error) {
	out := make([]wireMessage, 0, len(in))
	for i, m := range in {
		var (
			text      strings.Builder
			parts     []wirePart
			calls     []wireToolCall
			results   []wireMessage
			hasImages bool
			hasText   bool
		)
		for _, p := range m.Parts {
			switch {
			case p.ToolResult != nil:
				results = append(results, wireMessage{Role: provider.RoleTool, ToolCallID: p.ToolResult.CallID, Content: p.ToolResult.Content})
			case p.ToolCall != nil:
				args := p.ToolCall.Arguments
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				calls = append(calls, wireToolCall{ID: p.ToolCall.ID, Type: "function",
					Function: wireFunction{Name: p.ToolCall.Name, Arguments: args}})
			case p.Reasoning != nil:
			case p.ImageURL != "":
				hasImages = true
				parts = append(parts, wirePart{Type: "image_url", ImageURL: &imageURL{URL: p.ImageURL}})
			default:
				hasText = true
				text.WriteString(p.Text)
				if p.Text != "" {
					parts = append(parts, wirePart{Type: "text", Text: p.Text})
				}
			}
		}
		bad := func(what string) error {
			return c.fail(sdk.ErrInvalidArgument, "message %d (%s) %s", i+1, m.Role, what)
		}
		switch m.Role {
		case provider.RoleSystem, provider.RoleUser:
			if len(calls) > 0 {
				return nil, bad("holds a tool call; only assistant messages can")
			}
			if hasImages && m.Role != provider.RoleUser {
				return nil, bad("holds an image; only user messages can")
			}
			// Results answer the previous assistant message, so they go
			// first.
			out = append(out, results...)
			switch {
			case hasImages:
				out = append(out, wireMessage{Role: m.Role, Content: parts})
			case hasText || len(results) == 0:
				out = append(out, wireMessage{Role: m.Role, Content: text.String()})
			}
		case provider.RoleAssistant:
			if hasImages {
				return nil, bad("holds an image; only user messages can")
			}
			msg := wireMessage{Role: m.Role, ToolCalls: calls}
			if s := text.String(); s != "" || len(calls) == 0 {
				msg.Content = s
			}
			out = append(out, msg)
			out = append(out, results...)
		case provider.RoleTool:
			if len(results) == 0 {
				return nil, bad("holds no tool result")
			}
			if hasImages || len(calls) > 0 || strings.TrimSpace(text.String()) != "" {
				return nil, bad("holds more than tool results")
			}
			out = append(out, results...)
		default:
			return nil, bad("has a role this provider does not know")
		}
	}
	return out, nil
}
