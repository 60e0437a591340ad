// Package acp serves the Agent Client Protocol (https://agentclientprotocol.com),
// version 1, on a pair of streams: JSON-RPC 2.0 messages, one per line, as
// an editor (Zed and others) speaks it to the agent it started.
//
// The package owns the wire: the framing, the JSON-RPC envelope and its
// errors, the protocol's methods and their order (initialize first), the
// sessions of a connection, cancellation, and the requests the agent sends
// the client (session/request_permission). What a session is and how a
// prompt is answered are the Agent's (kernel/cli builds one on
// convo.State), so the protocol can be tested without a model.
package acp

import "encoding/json"

// ProtocolVersion is the protocol's major version this server speaks.
const ProtocolVersion = 1

// JSON-RPC 2.0 error codes, as the protocol uses them.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeResourceNotFound: a session that does not exist.
	CodeResourceNotFound = -32002
)

// Error is a JSON-RPC error object. A handler returns one to choose the
// code; any other error is an internal error with its message.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Errorf is an *Error with code.
func errorf(code int, msg string) *Error { return &Error{Code: code, Message: msg} }

// Stop reasons of a prompt turn.
const (
	StopEndTurn         = "end_turn"
	StopMaxTokens       = "max_tokens"
	StopMaxTurnRequests = "max_turn_requests"
	StopRefusal         = "refusal"
	StopCancelled       = "cancelled"
)

// ContentBlock is a piece of content: in a prompt, a message chunk or a
// tool call's result. Only the fields of the kinds Coyote reads or
// writes are here: text, resource_link and resource (embedded text).
type ContentBlock struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	// URI and Name are a resource_link's.
	URI      string `json:"uri,omitempty"`
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	// Resource is a resource block's embedded content.
	Resource *EmbeddedResource `json:"resource,omitempty"`
}

// EmbeddedResource is a resource block's content: text (a file's), or a
// blob Coyote does not read.
type EmbeddedResource struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// TextBlock is a text content block.
func TextBlock(s string) ContentBlock { return ContentBlock{Type: "text", Text: s} }

// Tool call kinds and statuses.
const (
	KindRead    = "read"
	KindEdit    = "edit"
	KindDelete  = "delete"
	KindSearch  = "search"
	KindExecute = "execute"
	KindThink   = "think"
	KindFetch   = "fetch"
	KindOther   = "other"

	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
)

// Update is the body of a session/update notification; the constructors
// below build each kind Coyote sends.
type Update struct {
	SessionUpdate string `json:"sessionUpdate"`
	// Content and MessageID are a message chunk's.
	Content   *ContentBlock `json:"content,omitempty"`
	MessageID string        `json:"messageId,omitempty"`
	// The tool call fields (tool_call, tool_call_update).
	ToolCallID string            `json:"toolCallId,omitempty"`
	Title      string            `json:"title,omitempty"`
	Kind       string            `json:"kind,omitempty"`
	Status     string            `json:"status,omitempty"`
	RawInput   json.RawMessage   `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage   `json:"rawOutput,omitempty"`
	Results    []ToolCallContent `json:"-"` // sent as "content" (see MarshalJSON)
	// Entries are a plan's, all of them each time.
	Entries []PlanEntry `json:"entries,omitempty"`
}

// MarshalJSON writes a tool call's results under "content", the name a
// message chunk's content block also has, and a plan's entries even when
// there are none (an empty plan clears the client's).
func (u Update) MarshalJSON() ([]byte, error) {
	type plain Update
	switch u.SessionUpdate {
	case "tool_call", "tool_call_update":
		if u.Results != nil {
			return json.Marshal(struct {
				plain
				Content []ToolCallContent `json:"content"`
			}{plain(u), u.Results})
		}
	case "plan":
		return json.Marshal(struct {
			SessionUpdate string      `json:"sessionUpdate"`
			Entries       []PlanEntry `json:"entries"`
		}{u.SessionUpdate, append([]PlanEntry{}, u.Entries...)})
	}
	return json.Marshal(plain(u))
}

// ToolCallContent is content a tool call produced.
type ToolCallContent struct {
	Type    string       `json:"type"` // "content"
	Content ContentBlock `json:"content"`
}

// PlanEntry is one task of the agent's plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"` // high, medium, low
	Status   string `json:"status"`   // pending, in_progress, completed
}

// AgentChunk is a piece of the agent's reply; message groups the chunks
// of one reply ("" for none).
func AgentChunk(text, message string) Update {
	return Update{SessionUpdate: "agent_message_chunk", Content: &ContentBlock{Type: "text", Text: text}, MessageID: message}
}

// ThoughtChunk is a piece of the agent's reasoning.
func ThoughtChunk(text, message string) Update {
	return Update{SessionUpdate: "agent_thought_chunk", Content: &ContentBlock{Type: "text", Text: text}, MessageID: message}
}

// UserChunk is a piece of a user message (session/load replays them).
func UserChunk(text, message string) Update {
	return Update{SessionUpdate: "user_message_chunk", Content: &ContentBlock{Type: "text", Text: text}, MessageID: message}
}

// ToolCallStarted announces a tool call.
func ToolCallStarted(id, title, kind, status string, input json.RawMessage) Update {
	return Update{SessionUpdate: "tool_call", ToolCallID: id, Title: title, Kind: kind, Status: status, RawInput: input}
}

// ToolCallStatus changes a tool call's status, with its result when it
// ended (nil: none).
func ToolCallStatus(id, status string, result *ContentBlock) Update {
	u := Update{SessionUpdate: "tool_call_update", ToolCallID: id, Status: status}
	if result != nil {
		u.Results = []ToolCallContent{{Type: "content", Content: *result}}
	}
	return u
}

// Plan is the whole plan, replacing the client's.
func Plan(entries []PlanEntry) Update { return Update{SessionUpdate: "plan", Entries: entries} }

// PermissionOption is one answer the client may give a permission
// request.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"` // allow_once, allow_always, reject_once, reject_always
}

// The wire form of the methods' parameters and results.

type initializeParams struct {
	ProtocolVersion *int `json:"protocolVersion"`
}

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities agentCapabilities `json:"agentCapabilities"`
	AgentInfo         implementation    `json:"agentInfo"`
	AuthMethods       []any             `json:"authMethods"`
}

type agentCapabilities struct {
	LoadSession        bool               `json:"loadSession"`
	PromptCapabilities promptCapabilities `json:"promptCapabilities"`
	MCPCapabilities    mcpCapabilities    `json:"mcpCapabilities"`
}

type promptCapabilities struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

type mcpCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

// MCPServer is an MCP server the client asks a session to use.
type MCPServer struct {
	Name    string `json:"name"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
	Type    string `json:"type,omitempty"`
}

type newSessionParams struct {
	CWD        *string     `json:"cwd"`
	MCPServers []MCPServer `json:"mcpServers"`
}

type newSessionResult struct {
	SessionID string `json:"sessionId"`
}

type loadSessionParams struct {
	SessionID  string      `json:"sessionId"`
	CWD        *string     `json:"cwd"`
	MCPServers []MCPServer `json:"mcpServers"`
}

type promptParams struct {
	SessionID string         `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
}

type promptResult struct {
	StopReason string `json:"stopReason"`
}

type cancelParams struct {
	SessionID string `json:"sessionId"`
}

type sessionNotification struct {
	SessionID string `json:"sessionId"`
	Update    Update `json:"update"`
}

type permissionParams struct {
	SessionID string             `json:"sessionId"`
	ToolCall  ToolCallRef        `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
}

// ToolCallRef is the tool call a permission request is about (the
// protocol's ToolCallUpdate: its id, and what the client shows).
type ToolCallRef struct {
	ToolCallID string          `json:"toolCallId"`
	Title      string          `json:"title,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	Status     string          `json:"status,omitempty"`
	RawInput   json.RawMessage `json:"rawInput,omitempty"`
}

type permissionResult struct {
	Outcome struct {
		Outcome  string `json:"outcome"` // cancelled, selected
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}
