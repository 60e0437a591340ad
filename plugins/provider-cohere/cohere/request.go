package cohere

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// The body of POST /chat.
type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []wireMessage `json:"messages"`
	Tools       []wireTool    `json:"tools,omitempty"`
	Stream      bool          `json:"stream"`
	Temperature *float64      `json:"temperature,omitempty"`
	P           *float64      `json:"p,omitempty"`
	MaxTokens   int64         `json:"max_tokens,omitempty"`
	Thinking    *thinking     `json:"thinking,omitempty"`
}

type thinking struct {
	Type        string `json:"type"`
	TokenBudget int64  `json:"token_budget,omitempty"`
}

// wireMessage is one message. Content is a string or a list of content
// items; an assistant's message may carry tool_plan and tool_calls, a
// tool's the tool_call_id it answers.
type wireMessage struct {
	Role       string     `json:"role"`
	Content    any        `json:"content,omitempty"`
	ToolPlan   string     `json:"tool_plan,omitempty"`
	ToolCalls  []wireCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type contentItem struct {
	Type     string    `json:"type"`
	Text     *string   `json:"text,omitempty"`
	Thinking *string   `json:"thinking,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type wireCall struct {
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

// unanswered is the result sent for a tool call the conversation holds no
// result for (a session saved while a tool ran): Cohere wants every call
// answered.
const unanswered = "No result: the tool call was interrupted."

func ptr(s string) *string { return &s }

// chatBody encodes a chat request. Its errors say what is wrong with the
// request.
func chatBody(req *provider.ChatRequest) ([]byte, error) {
	body := chatRequest{Model: req.Model, Stream: req.Stream, Temperature: req.Temperature, P: req.TopP, MaxTokens: req.MaxOutputTokens}
	var err error
	if body.Messages, err = messages(req.Messages); err != nil {
		return nil, err
	}
	for _, t := range req.Tools {
		schema := json.RawMessage(emptySchema)
		if p := bytes.TrimSpace(t.Parameters); len(p) > 0 {
			if p[0] != '{' || !json.Valid(p) {
				return nil, fmt.Errorf("tool %q: parameters are not a JSON object", t.Name)
			}
			schema = p
		}
		body.Tools = append(body.Tools, wireTool{Type: "function", Function: toolFunction{Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	switch effort := strings.ToLower(strings.TrimSpace(req.ReasoningEffort)); effort {
	case "":
	case "none", "disabled", "off":
		body.Thinking = &thinking{Type: "disabled"}
	default:
		body.Thinking = &thinking{Type: "enabled"}
		if n, err := strconv.ParseInt(effort, 10, 64); err == nil && n > 0 {
			body.Thinking.TokenBudget = n
		}
	}
	return json.Marshal(&body)
}

// messages converts the conversation. An assistant's tool calls are
// followed by one tool message per call, in the calls' order.
func messages(msgs []provider.Message) ([]wireMessage, error) {
	var out []wireMessage
	// pending are the calls of the last assistant message, in order, and
	// results their answers so far: one tool message per call goes out, in
	// the calls' order, before the conversation goes on.
	var pending []string
	results := map[string]string{}
	answer := func() {
		for _, id := range pending {
			content, ok := results[id]
			if !ok {
				content = unanswered
			}
			out = append(out, wireMessage{Role: "tool", ToolCallID: id, Content: content})
		}
		pending = nil
		clear(results)
	}
	for i, m := range msgs {
		switch m.Role {
		case provider.RoleSystem:
			answer()
			text := m.Text()
			for _, p := range m.Parts {
				if p.ImageURL != "" || p.ToolCall != nil || p.ToolResult != nil || p.Reasoning != nil {
					return nil, fmt.Errorf("message %d: a system message can hold only text", i+1)
				}
			}
			out = append(out, wireMessage{Role: "system", Content: text})
		case provider.RoleUser, provider.RoleTool:
			var items []contentItem
			images := false
			for _, p := range m.Parts {
				switch {
				case p.ToolResult != nil:
					r := p.ToolResult
					if _, done := results[r.CallID]; done || !slices.Contains(pending, r.CallID) {
						return nil, fmt.Errorf("message %d: the result of tool call %q answers no call of the assistant's message before it", i+1, r.CallID)
					}
					content := r.Content
					if content == "" {
						content = "(no output)"
					}
					if r.IsError {
						content = "Error: " + content
					}
					results[r.CallID] = content
				case p.ToolCall != nil || p.Reasoning != nil:
					return nil, fmt.Errorf("message %d: a %s message cannot hold tool calls or reasoning", i+1, m.Role)
				case p.ImageURL != "":
					images = true
					items = append(items, contentItem{Type: "image_url", ImageURL: &imageURL{URL: p.ImageURL}})
				case p.Text != "":
					items = append(items, contentItem{Type: "text", Text: ptr(p.Text)})
				}
			}
			if len(items) == 0 {
				continue
			}
			answer()
			if len(items) == 1 && !images {
				out = append(out, wireMessage{Role: "user", Content: *items[0].Text})
			} else {
				out = append(out, wireMessage{Role: "user", Content: items})
			}
		case provider.RoleAssistant:
			answer()
			wm := wireMessage{Role: "assistant"}
			var thoughts, texts []string
			for _, p := range m.Parts {
				switch {
				case p.ToolCall != nil:
					args := strings.TrimSpace(p.ToolCall.Arguments)
					if args == "" {
						args = "{}"
					}
					wm.ToolCalls = append(wm.ToolCalls, wireCall{ID: p.ToolCall.ID, Type: "function", Function: wireFunction{Name: p.ToolCall.Name, Arguments: args}})
					pending = append(pending, p.ToolCall.ID)
				case p.Reasoning != nil:
					if p.Reasoning.Text != "" {
						thoughts = append(thoughts, p.Reasoning.Text)
					}
				case p.ToolResult != nil || p.ImageURL != "":
					return nil, fmt.Errorf("message %d: an assistant message cannot hold tool results or images", i+1)
				case p.Text != "":
					texts = append(texts, p.Text)
				}
			}
			text := strings.Join(texts, "")
			if len(wm.ToolCalls) > 0 {
				// The words before the calls are the plan; thinking goes
				// back as content, as Cohere asks of reasoning models.
				wm.ToolPlan = text
				if len(thoughts) > 0 {
					wm.Content = []contentItem{{Type: "thinking", Thinking: ptr(strings.Join(thoughts, ""))}}
				}
			} else if text != "" {
				wm.Content = text
			} else {
				continue
			}
			out = append(out, wm)
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i+1, m.Role)
		}
	}
	answer()
	if len(out) == 0 {
		return nil, errors.New("no message to send")
	}
	return out, nil
}
