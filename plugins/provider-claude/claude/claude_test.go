package claude_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/provider-claude/claude"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

const testKey = "sk-ant-test-SECRET-0123456789"

// plugin is the claude plugin with the defaults of these tests.
var plugin = providertest.Plugin{Info: sdk.Info{Name: "claude"}, New: func() provider.Provider { return claude.New() },
	Type: claude.Type, Model: "claude-sonnet-4-5"}

// fake starts a fake server answering every request with r.
func fake(t testing.TB, r fakellm.Reply) (*fakellm.Anthropic, string) {
	f := &fakellm.Anthropic{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return r }}
	return f, fakellm.StartAnthropic(t, f)
}

func TestStreamedText(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 1500)
	tests := []struct {
		name  string
		reply fakellm.Reply
	}{
		{"a word per delta", fakellm.Reply{Text: "The quick brown fox jumps over the lazy dog."}},
		{"unicode split by runes", fakellm.Reply{Text: "Grüße, 世界! 🙂 ok", Chunks: 12}},
		{"two thousand chunks", fakellm.Reply{Text: long, Chunks: 2000}},
		{"escapes", fakellm.Reply{Text: "line\nbreak \"quoted\" back\\slash\ttab </script>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := fake(t, tt.reply)
			p := plugin.Serve(t, base, provider.ClientConfig{})
			r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != tt.reply.Text {
				t.Fatalf("text %q, want %q", r.Text, tt.reply.Text)
			}
			if want := len(fakellm.SplitText(tt.reply.Text, tt.reply.Chunks)); r.Texts != want {
				t.Fatalf("%d text events, want %d", r.Texts, want)
			}
			if r.Kinds != "text,usage,finish" {
				t.Fatalf("event order %s", r.Kinds)
			}
			if r.Finish != "stop" || r.Usage == nil || r.Usage.OutputTokens == 0 || r.Usage.InputTokens == 0 {
				t.Fatalf("finish %q usage %+v", r.Finish, r.Usage)
			}
		})
	}
}

// TestTextArrivesAtOnce checks that a delta reaches the kernel while the
// server still holds back the rest of the reply.
func TestTextArrivesAtOnce(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\n"+
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"first\"}}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"!\"}}\n\n"+
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"+
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n"+
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}))
	t.Cleanup(srv.Close)
	p := plugin.Serve(t, srv.URL+"/v1", provider.ClientConfig{})
	var got []string
	err := p.Chat(context.Background(), &provider.ChatRequest{Client: "test", Model: "m", Stream: true,
		Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "hi")}},
		func(ev *provider.ChatEvent) error {
			switch {
			case ev.Text != "":
				got = append(got, "text:"+ev.Text)
				close(release) // the rest only comes once "first" arrived
			case ev.Reasoning != nil:
				got = append(got, "reasoning:"+ev.Reasoning.Text)
			case ev.Usage != nil:
				got = append(got, fmt.Sprintf("usage:%d/%d", ev.Usage.InputTokens, ev.Usage.OutputTokens))
			default:
				got = append(got, "finish:"+ev.FinishReason)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "text:first reasoning:! usage:3/2 finish:stop" {
		t.Fatalf("events %q", got)
	}
}

func TestThinkingSignatureAndRedactedThinking(t *testing.T) {
	reply := fakellm.Reply{
		Reasoning:          "The user greets me; greet back.",
		ReasoningSignature: "EqQBCkYIBxgCKkBsig==",
		RedactedReasoning:  "EmwKAhgBEgy3va3pzix/LafPsn4a",
		Text:               "Hello there.",
		Usage:              &fakellm.Usage{PromptTokens: 21, CompletionTokens: 9, CachedTokens: 7},
	}
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			_, base := fake(t, reply)
			p := plugin.Serve(t, base, provider.ClientConfig{})
			r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream})
			if err != nil {
				t.Fatal(err)
			}
			if r.Kinds != "reasoning,signature,redacted,text,usage,finish" {
				t.Fatalf("event order %s", r.Kinds)
			}
			wantPieces := 4
			if !stream {
				wantPieces = 1
			}
			if r.Reasoning != reply.Reasoning || r.Reasonings != wantPieces {
				t.Fatalf("reasoning %q in %d events", r.Reasoning, r.Reasonings)
			}
			if len(r.Signatures) != 1 || r.Signatures[0] != reply.ReasoningSignature {
				t.Fatalf("signatures %q", r.Signatures)
			}
			if len(r.Redacted) != 1 || r.Redacted[0] != reply.RedactedReasoning {
				t.Fatalf("redacted %q", r.Redacted)
			}
			if r.Text != "Hello there." || *r.Usage != (provider.Usage{InputTokens: 21 + 7, OutputTokens: 9, CachedTokens: 7}) || r.Finish != "stop" {
				t.Fatalf("text %q usage %+v finish %q", r.Text, r.Usage, r.Finish)
			}
		})
	}
}

func TestToolUse(t *testing.T) {
	reply := fakellm.Reply{
		Text: "Let me look.",
		ToolCalls: []fakellm.ToolCall{
			{ID: "toolu_w", Name: "get_weather", Arguments: `{"city":"Zürich","days":[1,2,3],"note":"` + strings.Repeat("é", 300) + `"}`},
			{ID: "toolu_t", Name: "get_time", Arguments: `{"tz":"Europe/Zurich"}`},
			{ID: "toolu_n", Name: "now"},
		},
		Usage: &fakellm.Usage{PromptTokens: 40, CompletionTokens: 12},
	}
	want := []provider.ToolCall{
		{ID: "toolu_w", Name: "get_weather", Arguments: reply.ToolCalls[0].Arguments},
		{ID: "toolu_t", Name: "get_time", Arguments: `{"tz":"Europe/Zurich"}`},
		{ID: "toolu_n", Name: "now", Arguments: "{}"},
	}
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			_, base := fake(t, reply)
			p := plugin.Serve(t, base, provider.ClientConfig{})
			r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Tools) != len(want) {
				t.Fatalf("tool calls %+v", r.Tools)
			}
			for i := range want {
				if r.Tools[i] != want[i] {
					t.Fatalf("tool %d = %+v, want %+v", i, r.Tools[i], want[i])
				}
			}
			if r.Kinds != "text,tool,usage,finish" {
				t.Fatalf("event order %s", r.Kinds)
			}
			if r.Text != "Let me look." || r.Finish != "tool_calls" || *r.Usage != (provider.Usage{InputTokens: 40, OutputTokens: 12}) {
				t.Fatalf("text %q finish %q usage %+v", r.Text, r.Finish, r.Usage)
			}
		})
	}
}

func TestFinishReasons(t *testing.T) {
	tests := []struct {
		reason string // the fake's FinishReason, mapped to Anthropic's stop_reason
		want   string
	}{
		{"", "stop"},
		{"end_turn", "stop"},
		{"stop_sequence", "stop"},
		{"max_tokens", "length"},
		{"tool_use", "tool_calls"},
		{"refusal", "refusal"},
		{"pause_turn", "pause_turn"},
	}
	for _, tt := range tests {
		for _, stream := range []bool{true, false} {
			_, base := fake(t, fakellm.Reply{Text: "x", FinishReason: tt.reason, Usage: &fakellm.Usage{PromptTokens: 3, CompletionTokens: 1}})
			p := plugin.Serve(t, base, provider.ClientConfig{})
			r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream})
			if err != nil {
				t.Fatal(err)
			}
			if r.Finish != tt.want || *r.Usage != (provider.Usage{InputTokens: 3, OutputTokens: 1}) {
				t.Fatalf("%q (stream %v): finish %q usage %+v", tt.reason, stream, r.Finish, r.Usage)
			}
		}
	}
}

func TestRequestBody(t *testing.T) {
	f, base := fake(t, fakellm.Reply{Text: "ok"})
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	temp, topP := 0.0, 0.9
	_, err := plugin.Chat(t, p, provider.ChatRequest{
		Model:           "claude-opus-4-1",
		Stream:          true,
		Temperature:     &temp,
		TopP:            &topP,
		MaxOutputTokens: 512,
		ReasoningEffort: "high",
		Tools: []provider.Tool{
			{Name: "lookup", Description: "Looks things up.", Parameters: []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
			{Name: "now"},
		},
		Messages: []provider.Message{
			provider.TextMessage(provider.RoleSystem, "Be brief."),
			{Role: provider.RoleUser, Parts: []provider.Part{{Text: "what is "}, {Text: "this?"},
				{ImageURL: "data:image/png;base64,iVBORw0KGgo="}, {ImageURL: "https://example.com/cat.jpg"}}},
			{Role: provider.RoleAssistant, Parts: []provider.Part{
				{Reasoning: &provider.Reasoning{Text: "secret thoughts", Signature: "sig-1"}},
				{Reasoning: &provider.Reasoning{Redacted: "opaque-1"}},
				{Reasoning: &provider.Reasoning{Text: "unsigned thoughts are dropped"}},
				{Text: "Let me check."},
				{Text: "  \n"},
				{ToolCall: &provider.ToolCall{ID: "toolu_1", Name: "lookup", Arguments: `{"q": "x"}`}},
				{ToolCall: &provider.ToolCall{ID: "toolu_2", Name: "now"}},
			}},
			{Role: provider.RoleTool, Parts: []provider.Part{
				{ToolResult: &provider.ToolResult{CallID: "toolu_1", Name: "lookup", Content: "found"}},
				{ToolResult: &provider.ToolResult{CallID: "toolu_2", Name: "now", Content: "clock broken", IsError: true}},
			}},
			provider.TextMessage(provider.RoleSystem, "Answer in French."),
			provider.TextMessage(provider.RoleUser, "thanks"),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	req := reqs[0]
	h := req.Header
	if h.Get("x-api-key") != testKey || h.Get("Authorization") != "" || h.Get("anthropic-version") != "2023-06-01" ||
		h.Get("content-type") != "application/json" || h.Get("accept") != "text/event-stream" ||
		!strings.HasPrefix(h.Get("user-agent"), "coyote-provider-claude/") {
		t.Fatalf("headers %v", h)
	}
	raw := req.Raw
	providertest.JSONEqual(t, raw["messages"], `[
		{"role":"user","content":[{"type":"text","text":"what is "},{"type":"text","text":"this?"},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
			{"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}]},
		{"role":"assistant","content":[
			{"type":"thinking","thinking":"secret thoughts","signature":"sig-1"},
			{"type":"redacted_thinking","data":"opaque-1"},
			{"type":"text","text":"Let me check."},
			{"type":"tool_use","id":"toolu_1","name":"lookup","input":{"q":"x"}},
			{"type":"tool_use","id":"toolu_2","name":"now","input":{}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"toolu_1","content":"found","is_error":false},
			{"type":"tool_result","tool_use_id":"toolu_2","content":"clock broken","is_error":true},
			{"type":"text","text":"thanks"}]}
	]`)
	providertest.JSONEqual(t, raw["tools"], `[
		{"name":"lookup","description":"Looks things up.","input_schema":{"type":"object","properties":{"q":{"type":"string"}}}},
		{"name":"now","input_schema":{"type":"object","properties":{}}}
	]`)
	delete(raw, "messages")
	delete(raw, "tools")
	providertest.JSONEqual(t, raw, `{"model":"claude-opus-4-1","max_tokens":512,"system":"Be brief.\n\nAnswer in French.",
		"stream":true,"temperature":0,"top_p":0.9,"output_config":{"effort":"high"}}`)
}

func TestMinimalRequestBody(t *testing.T) {
	f, base := fake(t, fakellm.Reply{Text: "ok"})
	p := plugin.Serve(t, base, provider.ClientConfig{})
	if _, err := plugin.Chat(t, p, provider.ChatRequest{Model: "claude-haiku"}); err != nil {
		t.Fatal(err)
	}
	req := f.Requests()[0]
	if req.Header.Get("x-api-key") != "" || req.Header.Get("Authorization") != "" || req.Header.Get("accept") != "application/json" {
		t.Fatalf("headers %v", req.Header)
	}
	// max_tokens defaults to 4096: the API requires it.
	providertest.JSONEqual(t, req.Raw, `{"model":"claude-haiku","max_tokens":4096,"stream":false,
		"messages":[{"role":"user","content":[{"type":"text","text":"hello"}]}]}`)
}

func TestPatches(t *testing.T) {
	f, base := fake(t, fakellm.Reply{Text: "patched"})
	other := &fakellm.Anthropic{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "elsewhere"} }}
	otherBase := fakellm.StartAnthropic(t, other)
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})

	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true, ReasoningEffort: "low", Patches: []provider.RequestPatch{
		{Body: json.RawMessage(`{"thinking":{"type":"enabled","budget_tokens":2048},"output_config":null,"max_tokens":8192}`)},
		{SetHeaders: map[string]string{"anthropic-beta": "interleaved-thinking-2025-05-14"}, DeleteHeaders: []string{"user-agent"}},
	}})
	if err != nil || r.Text != "patched" {
		t.Fatalf("%q %v", r.Text, err)
	}
	req := f.Requests()[0]
	if req.Raw["output_config"] != nil || req.Raw["max_tokens"] != 8192.0 {
		t.Fatalf("body %v", req.Raw)
	}
	providertest.JSONEqual(t, req.Raw["thinking"], `{"type":"enabled","budget_tokens":2048}`)
	if req.Header.Get("anthropic-beta") != "interleaved-thinking-2025-05-14" || strings.HasPrefix(req.Header.Get("user-agent"), "coyote") ||
		req.Header.Get("x-api-key") != testKey {
		t.Fatalf("headers %v", req.Header)
	}

	// A patch may send the request elsewhere.
	r, err = plugin.Chat(t, p, provider.ChatRequest{Patches: []provider.RequestPatch{{URL: otherBase + "/messages"}}})
	if err != nil || r.Text != "elsewhere" || len(other.Requests()) != 1 || len(f.Requests()) != 1 {
		t.Fatalf("%q %v", r.Text, err)
	}

	// A patch that is not JSON is the user's mistake.
	_, err = plugin.Chat(t, p, provider.ChatRequest{Patches: []provider.RequestPatch{{Body: json.RawMessage(`{nope`)}}})
	if !errors.Is(err, sdk.ErrInvalidArgument) || !strings.Contains(err.Error(), `claude client "test": patch 1`) {
		t.Fatalf("bad patch: %v", err)
	}
}

// Builders for the conversation tables.
func user(text string) provider.Message { return provider.TextMessage(provider.RoleUser, text) }

func assistant(parts ...provider.Part) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Parts: parts}
}

func toolMsg(parts ...provider.Part) provider.Message {
	return provider.Message{Role: provider.RoleTool, Parts: parts}
}

func text(s string) provider.Part { return provider.Part{Text: s} }

func call(id string) provider.Part {
	return provider.Part{ToolCall: &provider.ToolCall{ID: id, Name: "fs_read", Arguments: `{"path":"` + id + `"}`}}
}

func res(id, content string) provider.Part {
	return provider.Part{ToolResult: &provider.ToolResult{CallID: id, Name: "fs_read", Content: content}}
}

func think(text, sig string) provider.Part {
	return provider.Part{Reasoning: &provider.Reasoning{Text: text, Signature: sig}}
}

// outline describes wire messages compactly: one line per message, its
// role then its blocks: T(text) U(tool_use id) R(tool_result id=content)
// K(thinking) X(redacted).
func outline(msgs []map[string]any) string {
	var lines []string
	for _, m := range msgs {
		line := m["role"].(string) + ":"
		for _, b := range m["content"].([]any) {
			b := b.(map[string]any)
			switch b["type"] {
			case "text":
				line += fmt.Sprintf(" T(%s)", b["text"])
			case "tool_use":
				line += fmt.Sprintf(" U(%s)", b["id"])
			case "tool_result":
				line += fmt.Sprintf(" R(%s=%s)", b["tool_use_id"], b["content"])
			case "thinking":
				line += fmt.Sprintf(" K(%s)", b["thinking"])
			case "redacted_thinking":
				line += fmt.Sprintf(" X(%s)", b["data"])
			default:
				line += " ?"
			}
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// TestRoundSplitting replays histories whose one assistant message holds
// several rounds of tool calls, as sessions saved by the original program
// do, and checks each round becomes its own assistant/user pair. The fake
// rejects what the API rejects (duplicate tool_use ids in one message, a
// tool_use without its result right after, roles that do not alternate),
// so each conversation is also checked for acceptance.
func TestRoundSplitting(t *testing.T) {
	tests := []struct {
		name     string
		messages []provider.Message
		want     string
	}{
		{
			name: "round text starts a new round",
			messages: []provider.Message{user("read them"),
				assistant(text("Reading a and b."), call("a"), call("b"), text("Now c."), call("c")),
				toolMsg(res("a", "A"), res("b", "B"), res("c", "C"))},
			want: "user: T(read them)\n" +
				"assistant: T(Reading a and b.) U(a) U(b)\nuser: R(a=A) R(b=B)\n" +
				"assistant: T(Now c.) U(c)\nuser: R(c=C)",
		},
		{
			name: "a repeated id without text starts a new round",
			messages: []provider.Message{user("go"),
				assistant(call("a"), call("b"), call("a")),
				toolMsg(res("a", "A1"), res("b", "B"), res("a", "A2"))},
			want: "user: T(go)\n" +
				"assistant: U(a) U(b)\nuser: R(a=A1) R(b=B)\n" +
				"assistant: U(a)\nuser: R(a=A2)",
		},
		{
			name: "textless rounds with distinct ids stay merged",
			messages: []provider.Message{user("go"),
				assistant(call("a"), call("b"), call("c")),
				toolMsg(res("a", "A"), res("b", "B"), res("c", "C"))},
			want: "user: T(go)\nassistant: U(a) U(b) U(c)\nuser: R(a=A) R(b=B) R(c=C)",
		},
		{
			name: "thinking blocks stay with their round",
			messages: []provider.Message{user("go"),
				assistant(think("plan a", "s1"), call("a"), think("plan b", "s2"), text("Then b."), call("b"),
					provider.Part{Reasoning: &provider.Reasoning{Redacted: "r3"}}, call("c")),
				toolMsg(res("a", "A"), res("b", "B"), res("c", "C"))},
			want: "user: T(go)\n" +
				"assistant: K(plan a) U(a)\nuser: R(a=A)\n" +
				"assistant: K(plan b) T(Then b.) U(b)\nuser: R(b=B)\n" +
				"assistant: X(r3) U(c)\nuser: R(c=C)",
		},
		{
			name: "results in any order land in their round",
			messages: []provider.Message{user("go"),
				assistant(call("a"), text("next"), call("b"), call("c")),
				toolMsg(res("c", "C")), toolMsg(res("b", "B")), toolMsg(res("a", "A"))},
			want: "user: T(go)\n" +
				"assistant: U(a)\nuser: R(a=A)\n" +
				"assistant: T(next) U(b) U(c)\nuser: R(b=B) R(c=C)",
		},
		{
			name: "final text after the last round, then the next turn",
			messages: []provider.Message{user("go"),
				assistant(call("a"), text("Done: A.")),
				toolMsg(res("a", "A")),
				user("and now?"),
				assistant(text("Nothing more.")),
				user("ok")},
			want: "user: T(go)\n" +
				"assistant: U(a)\nuser: R(a=A)\n" +
				"assistant: T(Done: A.)\nuser: T(and now?)\n" +
				"assistant: T(Nothing more.)\nuser: T(ok)",
		},
		{
			name: "whitespace text is not round text",
			messages: []provider.Message{user("go"),
				assistant(call("a"), text(" \n "), call("b")),
				toolMsg(res("a", "A"), res("b", "B"))},
			want: "user: T(go)\nassistant: U(a) U(b)\nuser: R(a=A) R(b=B)",
		},
		{
			name: "results in a user message with text",
			messages: []provider.Message{user("go"),
				assistant(call("a")),
				{Role: provider.RoleUser, Parts: []provider.Part{res("a", "A"), text("also this")}}},
			want: "user: T(go)\nassistant: U(a)\nuser: R(a=A) T(also this)",
		},
		{
			name: "an unanswered call gets an error result",
			messages: []provider.Message{user("go"),
				assistant(call("a"), call("b")),
				toolMsg(res("a", "A")),
				user("sorry, I stopped b")},
			want: "user: T(go)\nassistant: U(a) U(b)\n" +
				"user: R(a=A) R(b=No result: the tool call was interrupted.) T(sorry, I stopped b)",
		},
		{
			name: "consecutive messages of one role merge",
			messages: []provider.Message{user("one"), user("two"),
				assistant(text("a")), assistant(text("b")), user("three")},
			want: "user: T(one) T(two)\nassistant: T(a) T(b)\nuser: T(three)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, base := fake(t, fakellm.Reply{Text: "ok"})
			p := plugin.Serve(t, base, provider.ClientConfig{})
			if _, err := plugin.Chat(t, p, provider.ChatRequest{Messages: tt.messages}); err != nil {
				t.Fatal(err)
			}
			got := outline(f.Requests()[0].Messages)
			if got != tt.want {
				t.Fatalf("messages\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestToolInputReplayedAsObject(t *testing.T) {
	f, base := fake(t, fakellm.Reply{Text: "ok"})
	p := plugin.Serve(t, base, provider.ClientConfig{})
	_, err := plugin.Chat(t, p, provider.ChatRequest{Messages: []provider.Message{user("go"),
		assistant(provider.Part{ToolCall: &provider.ToolCall{ID: "x", Name: "f", Arguments: ` {"n": 1.50, "s": "é"} `}}),
		toolMsg(res("x", "done"))}})
	if err != nil {
		t.Fatal(err)
	}
	providertest.JSONEqual(t, f.Requests()[0].Messages[1]["content"], `[{"type":"tool_use","id":"x","name":"f","input":{"n":1.50,"s":"é"}}]`)
}

func TestInvalidRequests(t *testing.T) {
	f, base := fake(t, fakellm.Reply{Text: "ok"})
	p := plugin.Serve(t, base, provider.ClientConfig{})
	hello := []provider.Message{user("hello")}
	tests := []struct {
		name string
		req  provider.ChatRequest
		want string
	}{
		{"no model", provider.ChatRequest{Messages: hello}, "no model"},
		{"bad tool schema", provider.ChatRequest{Model: "m", Messages: hello, Tools: []provider.Tool{{Name: "t", Parameters: []byte("{nope")}}}, `tool "t"`},
		{"image in a system message", provider.ChatRequest{Model: "m", Messages: []provider.Message{{Role: provider.RoleSystem, Parts: []provider.Part{{ImageURL: "https://x/y.png"}}}}}, "system messages can only hold text"},
		{"image in an assistant message", provider.ChatRequest{Model: "m", Messages: []provider.Message{user("a"), {Role: provider.RoleAssistant, Parts: []provider.Part{{ImageURL: "https://x/y.png"}}}}}, "message 2 (assistant) holds an image"},
		{"bad data URL", provider.ChatRequest{Model: "m", Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{ImageURL: "data:image/png,raw"}}}}}, "base64"},
		{"ftp image", provider.ChatRequest{Model: "m", Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{ImageURL: "ftp://x/y.png"}}}}}, "neither data: nor https:"},
		{"unknown role", provider.ChatRequest{Model: "m", Messages: []provider.Message{provider.TextMessage("narrator", "hi")}}, "role"},
		{"tool message with text", provider.ChatRequest{Model: "m", Messages: []provider.Message{user("a"), assistant(call("a")), {Role: provider.RoleTool, Parts: []provider.Part{res("a", "A"), text("hi")}}}}, "more than tool results"},
		{"result without a call", provider.ChatRequest{Model: "m", Messages: []provider.Message{user("a"), toolMsg(res("zz", "?"))}}, `message 2 (tool) answers tool call "zz", but no assistant message before it made a call`},
		{"result for another call", provider.ChatRequest{Model: "m", Messages: []provider.Message{user("a"), assistant(call("a")), toolMsg(res("a", "A"), res("q", "Q"))}}, `message 3 (tool) answers tool call "q", which message 2 (assistant) did not make`},
		{"arguments not an object", provider.ChatRequest{Model: "m", Messages: []provider.Message{user("a"),
			assistant(provider.Part{ToolCall: &provider.ToolCall{ID: "x", Name: "f", Arguments: `[1,2]`}}), toolMsg(res("x", "X"))}}, `tool call "x" whose arguments are not a JSON object`},
		{"call without id", provider.ChatRequest{Model: "m", Messages: []provider.Message{user("a"),
			assistant(provider.Part{ToolCall: &provider.ToolCall{Name: "f"}})}}, "without an id"},
		{"only a system message", provider.ChatRequest{Model: "m", Messages: []provider.Message{provider.TextMessage(provider.RoleSystem, "be nice")}}, "no message to send"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Client = "test"
			err := p.Chat(context.Background(), &tt.req, func(*provider.ChatEvent) error { return nil })
			if !errors.Is(err, sdk.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.want) ||
				!strings.HasPrefix(err.Error(), `claude client "test": `) {
				t.Fatalf("err = %v, want invalid argument mentioning %q", err, tt.want)
			}
		})
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d invalid requests reached the server", n)
	}
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		reply fakellm.Reply
		want  error
		// message is the exact error text the kernel sees.
		message string
		retry   time.Duration
	}{
		{fakellm.Reply{Status: 400, ErrorMessage: "messages: text content blocks must be non-empty"}, sdk.ErrInvalidArgument,
			`claude client "work": 400 Bad Request: messages: text content blocks must be non-empty`, 0},
		{fakellm.Reply{Status: 401, ErrorMessage: "invalid x-api-key " + testKey}, sdk.ErrUnauthenticated,
			`claude client "work": 401 Unauthorized: invalid x-api-key [redacted]`, 0},
		{fakellm.Reply{Status: 403}, sdk.ErrPermissionDenied,
			`claude client "work": 403 Forbidden: Your API key does not have permission to use the specified resource.`, 0},
		{fakellm.Reply{Status: 404}, sdk.ErrNotFound,
			`claude client "work": 404 Not Found: model "claude-x" not found: model: claude-x`, 0},
		{fakellm.Reply{Status: 413}, sdk.ErrInvalidArgument,
			`claude client "work": 413 Request Entity Too Large: Request exceeds the maximum allowed number of bytes.`, 0},
		{fakellm.Reply{Status: 429, RetryAfter: "20"}, sdk.ErrRateLimited,
			`claude client "work": 429 Too Many Requests: Number of request tokens has exceeded your per-minute rate limit. (retry after 20s)`, 20 * time.Second},
		{fakellm.Reply{Status: 429}, sdk.ErrRateLimited,
			`claude client "work": 429 Too Many Requests: Number of request tokens has exceeded your per-minute rate limit.`, 0},
		{fakellm.Reply{Status: 500}, sdk.ErrUnavailable,
			`claude client "work": 500 Internal Server Error: Internal server error`, 0},
		{fakellm.Reply{Status: 503, RetryAfter: "7"}, sdk.ErrUnavailable,
			`claude client "work": 503 Service Unavailable: Service Unavailable (retry after 7s)`, 7 * time.Second},
		{fakellm.Reply{Status: 529, RetryAfter: "1.5"}, sdk.ErrUnavailable,
			`claude client "work": 529 Overloaded: Overloaded (retry after 1.5s)`, 1500 * time.Millisecond},
	}
	for _, tt := range tests {
		for _, stream := range []bool{true, false} {
			_, base := fake(t, tt.reply)
			p := plugin.Serve(t, base, provider.ClientConfig{Name: "work", APIKey: testKey})
			_, err := plugin.Chat(t, p, provider.ChatRequest{Client: "work", Model: "claude-x", Stream: stream})
			if !errors.Is(err, tt.want) {
				t.Fatalf("status %d: err = %v, want %v", tt.reply.Status, err, tt.want)
			}
			if err.Error() != tt.message {
				t.Fatalf("status %d: message\n%s\nwant\n%s", tt.reply.Status, err, tt.message)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "SECRET") {
				t.Fatalf("the key leaked: %v", err)
			}
			providertest.RetryAfter(t, err, tt.retry, tt.retry)
		}
	}
}

func TestBrokenReplies(t *testing.T) {
	text := "one two three four five six"
	tests := []struct {
		name    string
		reply   fakellm.Reply
		stream  bool
		want    error
		errText string
	}{
		{"malformed stream", fakellm.Reply{Text: text, Malformed: true}, true, sdk.ErrBadResponse, "malformed stream event"},
		{"truncated stream", fakellm.Reply{Text: text, Truncate: true}, true, sdk.ErrBadResponse, "stream ended before the reply was complete"},
		{"overloaded in the stream", fakellm.Reply{Text: text, StreamError: "Overloaded"}, true, sdk.ErrUnavailable, "error from http://127.0.0.1"},
		{"malformed reply", fakellm.Reply{Text: text, Malformed: true}, false, sdk.ErrBadResponse, "malformed reply"},
		{"truncated reply", fakellm.Reply{Text: text, Truncate: true}, false, sdk.ErrBadResponse, "malformed reply"},
		{"error instead of a reply", fakellm.Reply{Text: text, StreamError: "kaput"}, false, sdk.ErrUnavailable, "500 Internal Server Error: kaput"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := fake(t, tt.reply)
			p := plugin.Serve(t, base, provider.ClientConfig{})
			r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: tt.stream})
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.errText) || !strings.HasPrefix(err.Error(), `claude client "test": `) {
				t.Fatalf("err = %v, want %v containing %q", err, tt.want, tt.errText)
			}
			if r.Finish != "" {
				t.Fatalf("a broken reply finished: %+v", r)
			}
		})
	}
}

func ev(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func TestStreamShapes(t *testing.T) {
	start := ev("message_start", `{"type":"message_start","message":{"id":"m","usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":1}}}`)
	stop := ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	huge := strings.Repeat("x", 3<<20)
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		want        providertest.Reply
		wantErr     error
		errText     string
	}{
		{
			name: "CRLF, comments, unknown events and data without a space",
			body: strings.ReplaceAll(start, "\n", "\r\n") + ": keep-alive\r\n\r\n" +
				"event: content_block_start\r\ndata:{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"He\"}}\r\n\r\n" +
				ev("some_future_event", `{"type":"some_future_event"}`) +
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}`) +
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"llo"}}`) +
				ev("content_block_stop", `{"type":"content_block_stop","index":0}`) + stop,
			want: providertest.Reply{Text: "Hello", Texts: 2, Finish: "stop", Usage: &provider.Usage{InputTokens: 115, OutputTokens: 7, CachedTokens: 100}},
		},
		{
			name: "a data line of several megabytes",
			body: start + ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`+huge+`"}}`) + stop,
			want: providertest.Reply{Text: huge, Texts: 1, Finish: "stop", Usage: &provider.Usage{InputTokens: 115, OutputTokens: 7, CachedTokens: 100}},
		},
		{
			name: "message_stop without a final blank line",
			body: start + ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`) +
				strings.TrimSuffix(stop, "\n\n"),
			want: providertest.Reply{Text: "ok", Texts: 1, Finish: "stop", Usage: &provider.Usage{InputTokens: 115, OutputTokens: 7, CachedTokens: 100}},
		},
		{
			name: "data spread over two lines",
			body: "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\ndata: \"delta\":{\"type\":\"text_delta\",\"text\":\"joined\"}}\n\n" +
				ev("message_stop", `{"type":"message_stop"}`),
			want: providertest.Reply{Text: "joined", Texts: 1, Finish: "stop"},
		},
		{
			name: "interleaved tool calls with input in the start",
			body: ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t0","name":"f","input":{}}}`) +
				ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"g","input":{"whole":true}}}`) +
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`) +
				ev("content_block_stop", `{"type":"content_block_stop","index":1}`) +
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}`) +
				ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}`) +
				ev("message_stop", `{"type":"message_stop"}`),
			want: providertest.Reply{Tools: []provider.ToolCall{{ID: "t1", Name: "g", Arguments: `{"whole":true}`}, {ID: "t0", Name: "f", Arguments: `{"a":1}`}},
				Finish: "tool_calls", Usage: &provider.Usage{OutputTokens: 3}},
		},
		{
			name:        "a JSON answer to a streamed request",
			contentType: "application/json",
			body:        `{"type":"message","content":[{"type":"text","text":"whole"}],"stop_reason":"end_turn"}`,
			want:        providertest.Reply{Text: "whole", Texts: 1, Finish: "stop"},
		},
		{
			name:    "rate limit error event",
			body:    start + ev("error", `{"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}`),
			wantErr: sdk.ErrRateLimited, errText: "Slow down (rate_limit_error)",
		},
		{
			name:    "bare JSON error line",
			body:    `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}` + "\n",
			wantErr: sdk.ErrUnauthenticated, errText: "invalid x-api-key",
		},
		{
			name:    "error event without an error object",
			body:    start + "event: error\ndata: {}\n\n",
			wantErr: sdk.ErrUnavailable, errText: "the server reported an error",
		},
		{
			name:    "empty stream",
			body:    "",
			wantErr: sdk.ErrBadResponse, errText: "stream ended before the reply was complete",
		},
		{
			name:    "no message_stop after the stop reason",
			body:    start + ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}`),
			wantErr: sdk.ErrBadResponse, errText: "stream ended before the reply was complete",
		},
		{
			name:    "data that is not an object",
			body:    start + ev("content_block_delta", `["text_delta"]`),
			wantErr: sdk.ErrBadResponse, errText: "malformed stream event",
		},
		{
			name:    "absurd block index",
			body:    start + ev("content_block_delta", `{"type":"content_block_delta","index":99999999,"delta":{"type":"input_json_delta","partial_json":"{"}}`),
			wantErr: sdk.ErrBadResponse, errText: "content block index 99999999",
		},
		{
			name:   "HTML error page",
			status: 502, contentType: "text/html",
			body:    "<html><body><h1>502 Bad Gateway</h1></body></html>",
			wantErr: sdk.ErrUnavailable, errText: `claude client "test": 502 Bad Gateway`,
		},
		{
			// Not the API's error shape: the body's first line says why.
			name:   "a proxy's own text",
			status: 500, contentType: "text/plain",
			body:    "upstream request timeout\n",
			wantErr: sdk.ErrUnavailable, errText: `500 Internal Server Error: upstream request timeout`,
		},
		{
			name:   "another server's JSON",
			status: 500, contentType: "application/json",
			body:    `{"error":"TypeError","detail":"Cannot read properties of undefined"}`,
			wantErr: sdk.ErrUnavailable, errText: `500 Internal Server Error: {"error":"TypeError","detail":"Cannot read properties of undefined"}`,
		},
		{
			name:   "plain 404 from a wrong path",
			status: 404, contentType: "text/plain",
			body:    "404 page not found\n",
			wantErr: sdk.ErrNotFound, errText: `404 Not Found: model "claude-sonnet-4-5" not found: 404 page not found (is api_base http://127.0.0.1`,
		},
		{
			name:   "402 billing error",
			status: 402, contentType: "application/json",
			body:    `{"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low."}}`,
			wantErr: sdk.ErrPermissionDenied, errText: "402 Payment Required: Your credit balance is too low.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plugin.Serve(t, providertest.RawServer(t, tt.status, tt.contentType, tt.body)+"/v1", provider.ClientConfig{})
			r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
			if tt.wantErr != nil {
				providertest.WantError(t, err, tt.wantErr, tt.errText)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != tt.want.Text || r.Texts != tt.want.Texts || r.Finish != tt.want.Finish ||
				(r.Usage == nil) != (tt.want.Usage == nil) || (r.Usage != nil && *r.Usage != *tt.want.Usage) ||
				len(r.Tools) != len(tt.want.Tools) {
				t.Fatalf("got text %d bytes in %d, finish %q, usage %+v, tools %+v", len(r.Text), r.Texts, r.Finish, r.Usage, r.Tools)
			}
			for i := range r.Tools {
				if r.Tools[i] != tt.want.Tools[i] {
					t.Fatalf("tool %d = %+v, want %+v", i, r.Tools[i], tt.want.Tools[i])
				}
			}
		})
	}
}

func TestCancellation(t *testing.T) {
	// The server sends one delta, then holds the stream open forever.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	p := plugin.Serve(t, srv.URL+"/v1", provider.ClientConfig{APIKey: testKey})
	first, _ := providertest.CancelAtFirstEvent(t, p, provider.ChatRequest{Client: "test", Model: "m", Stream: true, Messages: []provider.Message{user("hi")}})
	if first.Text != "hi" {
		t.Fatalf("first event %+v, want the text", first)
	}
}

func TestCancellationDuringDelay(t *testing.T) {
	called := make(chan struct{})
	f := &fakellm.Anthropic{Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		close(called)
		return fakellm.Reply{Text: "never", Delay: time.Hour}
	}}
	base := fakellm.StartAnthropic(t, f)
	for _, stream := range []bool{true, false} {
		p := plugin.Serve(t, base, provider.ClientConfig{})
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			errc <- p.Chat(ctx, &provider.ChatRequest{Client: "test", Model: "m", Stream: stream, Messages: []provider.Message{user("hi")}},
				func(*provider.ChatEvent) error { return nil })
		}()
		<-called
		start := time.Now()
		cancel()
		providertest.WaitCancelled(t, start, errc)
		called = make(chan struct{})
	}
}

func TestListModels(t *testing.T) {
	f := &fakellm.Anthropic{APIKey: testKey, Models: []string{"claude-opus-4-1", "claude-sonnet-4-5", "claude-3-5-haiku-latest"}}
	base := fakellm.StartAnthropic(t, f)
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	resp, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range resp.Models {
		got = append(got, m.Name+"="+m.Type)
	}
	if want := "claude-opus-4-1=chat claude-sonnet-4-5=chat claude-3-5-haiku-latest=chat"; strings.Join(got, " ") != want {
		t.Fatalf("models %v", got)
	}

	plugin.Configure(t, p, base, provider.ClientConfig{APIKey: "sk-ant-wrong-key"})
	_, err = p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"})
	if !errors.Is(err, sdk.ErrUnauthenticated) || strings.Contains(err.Error(), "sk-ant-wrong-key") ||
		err.Error() != `claude client "test": 401 Unauthorized: invalid x-api-key` {
		t.Fatalf("wrong key: %v", err)
	}
}

func TestListModelsPages(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.RawQuery+" "+r.Header.Get("anthropic-version")+" "+r.Header.Get("x-api-key"))
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("after_id") == "" {
			fmt.Fprint(w, `{"data":[{"type":"model","id":"a"},{"type":"model","id":"b"}],"has_more":true,"first_id":"a","last_id":"b"}`)
			return
		}
		fmt.Fprint(w, `{"data":[{"type":"model","id":"c"}],"has_more":false,"first_id":"c","last_id":"c"}`)
	}))
	t.Cleanup(srv.Close)
	p := plugin.Serve(t, srv.URL+"/v1/", provider.ClientConfig{APIKey: "k"})
	resp, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Models) != 3 || resp.Models[2].Name != "c" || !resp.Models[0].SupportsFunctionCalling {
		t.Fatalf("models %+v", resp.Models)
	}
	if strings.Join(seen, "|") != "limit=1000 2023-06-01 k|limit=1000&after_id=b 2023-06-01 k" {
		t.Fatalf("requests %q", seen)
	}
}

func TestConfigure(t *testing.T) {
	tests := []struct {
		name string
		cfg  provider.ClientConfig
		want []string
	}{
		{"wrong type", provider.ClientConfig{Name: "c", Type: "openai"}, []string{`claude client "c"`, `type "openai" is not served`}},
		{"no name", provider.ClientConfig{Type: claude.Type}, []string{"without a name"}},
		{"bad api_base", provider.ClientConfig{Name: "c", Type: claude.Type, APIBase: "ftp://user:hunter2@host/v1"}, []string{"api_base", "ftp://user:xxxxx@host/v1"}},
		{"bad extra", provider.ClientConfig{Name: "c", Type: claude.Type, Options: map[string]any{"extra": map[string]any{"read_timeout": "soon"}}}, []string{`claude client "c": extra.read_timeout`}},
		{"bad proxy", provider.ClientConfig{Name: "c", Type: claude.Type, Options: map[string]any{"extra": map[string]any{"proxy": "gopher://p"}}}, []string{"extra.proxy"}},
	}
	p := plugintest.Provider(t, plugin.Info, claude.New())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Configure(context.Background(), &provider.ConfigureRequest{Client: tt.cfg})
			providertest.WantError(t, err, sdk.ErrInvalidArgument, tt.want...)
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("password leaked: %v", err)
			}
		})
	}
	_, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "nobody"})
	if !errors.Is(err, sdk.ErrFailedPrecondition) || err.Error() != `claude client "nobody" is not configured` {
		t.Fatalf("unconfigured: %v", err)
	}
}

func TestUnreachableServer(t *testing.T) {
	base := providertest.Unreachable(t) + "/v1"
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	for _, stream := range []bool{true, false} {
		_, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream})
		if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), base) || strings.Contains(err.Error(), testKey) {
			t.Fatalf("err = %v", err)
		}
	}
}

func TestDefaultAPIBaseAndProxy(t *testing.T) {
	// The proxy refuses to tunnel, so nothing leaves the machine; the
	// error names the address the client wanted.
	proxy, _ := providertest.RefusingProxy(t)
	p := plugin.Serve(t, "", provider.ClientConfig{APIBase: " ", Options: map[string]any{"extra": map[string]any{"proxy": proxy}}})
	_, err := plugin.Chat(t, p, provider.ChatRequest{})
	if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), claude.DefaultAPIBase) {
		t.Fatalf("err = %v", err)
	}
}

func BenchmarkChatOverGRPC2000Chunks(b *testing.B) {
	_, base := fake(b, fakellm.Reply{Text: strings.Repeat("token ", 2000), Chunks: 2000})
	providertest.BenchChat(b, plugin.Serve(b, base, provider.ClientConfig{}), 2000)
}

func BenchmarkChatInProcess2000Chunks(b *testing.B) {
	_, base := fake(b, fakellm.Reply{Text: strings.Repeat("token ", 2000), Chunks: 2000})
	p := claude.New()
	plugin.Configure(b, p, base, provider.ClientConfig{})
	providertest.BenchChat(b, p, 2000)
}
