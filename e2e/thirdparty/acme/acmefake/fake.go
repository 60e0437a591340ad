// Package acmefake is a fake of the made-up Acme chat API, for tests: the
// provider's conformance suite runs against it, and Coyote's end-to-end
// tests start it (cmd/acmefake) as the upstream of coyote-provider-acme.
//
// The API: POST /v1/chat with a JSON body {model, stream, messages: [{role,
// content, tool_calls: [{id, name, arguments}], tool_call_id}], tools:
// [{name, description, parameters}]} and "Authorization: Bearer <key>".
// A streamed answer is server-sent events, each a JSON object with one of
// text, tool_call, usage {input, output} or finish; a non-streamed one is
// {text, tool_calls, usage, finish}. Errors are a status with
// {"error": {"message": …}} and, for 429, Retry-After.
package acmefake

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Reply is how the fake answers a chat.
type Reply struct {
	Text       string
	ToolCalls  []ToolCall
	Usage      *Usage
	Status     int
	RetryAfter time.Duration
	// Hang sends the first word of a streamed answer, then nothing until
	// the client goes away.
	Hang bool
}

// ToolCall is a call the model makes.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage counts tokens.
type Usage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Message is one message of a request.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Request is a chat request as the fake received it.
type Request struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []Message         `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
}

// Server is the fake. Respond decides each reply (nil: echo the last
// message's text).
type Server struct {
	APIKey  string
	Respond func(*Request) Reply

	mu       sync.Mutex
	requests []Request
}

// Requests returns the chat requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": msg}})
	_, _ = w.Write(b)
}

// ServeHTTP answers POST /v1/chat.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat" {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
		return
	}
	if s.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.APIKey {
		writeError(w, http.StatusUnauthorized, "bad API key")
		return
	}
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" || len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "a chat needs a model and messages")
		return
	}
	for _, m := range req.Messages {
		if m.Role == "tool" && m.ToolCallID == "" {
			writeError(w, http.StatusBadRequest, "a tool message needs tool_call_id")
			return
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	reply := Reply{Text: "echo: " + req.Messages[len(req.Messages)-1].Content}
	if s.Respond != nil {
		reply = s.Respond(&req)
	}
	if reply.Status >= 400 {
		if reply.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(reply.RetryAfter/time.Second)))
		}
		writeError(w, reply.Status, http.StatusText(reply.Status)+" (from the fake)")
		return
	}
	finish := "stop"
	if len(reply.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"text": reply.Text, "tool_calls": reply.ToolCalls, "usage": reply.Usage, "finish": finish})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(v map[string]any) {
		b, _ := json.Marshal(v)
		_, _ = w.Write([]byte("data: " + string(b) + "\n\n"))
		if flusher != nil {
			flusher.Flush()
		}
	}
	for i, word := range strings.SplitAfter(reply.Text, " ") {
		if word == "" {
			continue
		}
		send(map[string]any{"text": word})
		if i == 0 && reply.Hang {
			<-r.Context().Done()
			return
		}
	}
	for _, c := range reply.ToolCalls {
		send(map[string]any{"tool_call": c})
	}
	if reply.Usage != nil {
		send(map[string]any{"usage": reply.Usage})
	}
	send(map[string]any{"finish": finish})
}
