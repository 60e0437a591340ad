package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAgent's sessions answer a prompt by echoing it, ask permission for
// a prompt "ask", and wait for cancellation on "wait".
type fakeAgent struct {
	mu     sync.Mutex
	n      int
	closed int
}

type fakeSession struct {
	a  *fakeAgent
	id string
}

func (a *fakeAgent) NewSession(_ context.Context, cwd string, _ []MCPServer) (Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	return &fakeSession{a: a, id: "s" + string(rune('0'+a.n))}, nil
}

func (a *fakeAgent) LoadSession(_ context.Context, id, _ string, _ []MCPServer) (Session, error) {
	if id != "saved" {
		return nil, ErrNoSession
	}
	return &fakeSession{a: a, id: id}, nil
}

func (s *fakeSession) ID() string { return s.id }
func (s *fakeSession) Replay(c *Client) error {
	if err := c.Update(UserChunk("earlier question", "m1")); err != nil {
		return err
	}
	return c.Update(AgentChunk("earlier answer", "m2"))
}
func (s *fakeSession) Close() { s.a.mu.Lock(); s.a.closed++; s.a.mu.Unlock() }

func (s *fakeSession) Prompt(ctx context.Context, p []ContentBlock, c *Client) (string, error) {
	switch p[0].Text {
	case "ask":
		choice, err := c.RequestPermission(ctx, ToolCallRef{ToolCallID: "call_1", Title: "fs_write"},
			[]PermissionOption{{OptionID: "allow-once", Name: "Allow", Kind: "allow_once"}})
		if err != nil {
			return "", err
		}
		_ = c.Update(AgentChunk("chose "+choice, ""))
	case "wait":
		_ = c.Update(AgentChunk("waiting", ""))
		<-ctx.Done()
		return "", ctx.Err()
	case "fail":
		return "", errors.New("the model is down")
	default:
		_ = c.Update(AgentChunk("echo "+p[0].Text, ""))
	}
	return StopEndTurn, nil
}

// pipeServer runs Serve on pipes; send writes a line, recv reads one
// message.
type pipeServer struct {
	t     *testing.T
	in    *io.PipeWriter
	out   *bufio.Reader
	done  chan error
	agent *fakeAgent
}

func startServer(t *testing.T, max int) *pipeServer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipeServer{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1), agent: &fakeAgent{}}
	go func() {
		p.done <- Serve(context.Background(), inR, outW, p.agent, Options{Name: "coyote", Version: "1.0", MaxMessage: max})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

func (p *pipeServer) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, s+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *pipeServer) recv() map[string]any {
	p.t.Helper()
	line, err := p.out.ReadString('\n')
	if err != nil {
		p.t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		p.t.Fatalf("%q: %v", line, err)
	}
	return m
}

func code(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	n, _ := e["code"].(float64)
	return int(n)
}

func TestBadInputIsAnsweredWithJSONRPCErrors(t *testing.T) {
	p := startServer(t, 1024)
	for _, tc := range []struct {
		name, send string
		id         any
		code       int
	}{
		{"prompt before initialize", `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}`, 1.0, CodeInvalidRequest},
		{"new session before initialize", `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/"}}`, 2.0, CodeInvalidRequest},
		{"malformed", `{"jsonrpc":`, nil, CodeParseError},
		{"garbage", `hello`, nil, CodeParseError},
		{"an array", `[]`, nil, CodeInvalidRequest},
		{"wrong version", `{"jsonrpc":"1.0","id":3,"method":"initialize"}`, 3.0, CodeInvalidRequest},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"nope"}`, 4.0, CodeMethodNotFound},
		{"too large", `{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"x":"` + strings.Repeat("x", 2000) + `"}}`, nil, CodeInvalidRequest},
		{"no params", `{"jsonrpc":"2.0","id":6,"method":"initialize"}`, 6.0, CodeInvalidParams},
		{"initialize", `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":2}}`, 7.0, 0},
		{"relative cwd", `{"jsonrpc":"2.0","id":8,"method":"session/new","params":{"cwd":"here","mcpServers":[]}}`, 8.0, CodeInvalidParams},
		{"no cwd", `{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"mcpServers":[]}}`, 9.0, CodeInvalidParams},
		{"unknown session", `{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"hi"}]}}`, 10.0, CodeResourceNotFound},
		{"load unknown", `{"jsonrpc":"2.0","id":11,"method":"session/load","params":{"sessionId":"x","cwd":"/","mcpServers":[]}}`, 11.0, CodeResourceNotFound},
		{"string id", `{"jsonrpc":"2.0","id":"abc","method":"nope"}`, "abc", CodeMethodNotFound},
	} {
		p.send(tc.send)
		m := p.recv()
		if m["id"] != tc.id || code(m) != tc.code || m["jsonrpc"] != "2.0" {
			t.Fatalf("%s: got %v, want id %v code %d", tc.name, m, tc.id, tc.code)
		}
		if tc.name == "initialize" {
			res := m["result"].(map[string]any)
			caps := res["agentCapabilities"].(map[string]any)
			if res["protocolVersion"] != 1.0 || caps["loadSession"] != true || res["agentInfo"].(map[string]any)["name"] != "coyote" {
				t.Fatalf("initialize result %v: want version 1 (the latest spoken, for a client at 2), loadSession", res)
			}
		}
	}
	// Notifications are never answered, unknown ones included; the next
	// answer is the next request's.
	p.send(`{"jsonrpc":"2.0","method":"whatever","params":{}}`)
	p.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"none"}}`)
	p.send(`{"jsonrpc":"2.0","id":12,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	if m := p.recv(); m["id"] != 12.0 || m["result"].(map[string]any)["sessionId"] != "s1" {
		t.Fatalf("session/new: %v", m)
	}
}

func TestPromptStreamsUpdatesThenStops(t *testing.T) {
	p := startServer(t, 0)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`)
	u := p.recv()
	params := u["params"].(map[string]any)
	up := params["update"].(map[string]any)
	if u["method"] != "session/update" || params["sessionId"] != "s1" || up["sessionUpdate"] != "agent_message_chunk" ||
		up["content"].(map[string]any)["text"] != "echo hi" {
		t.Fatalf("update %v", u)
	}
	if m := p.recv(); m["id"] != 3.0 || m["result"].(map[string]any)["stopReason"] != "end_turn" {
		t.Fatalf("stop %v", m)
	}
	// A failing turn is an error answer, and the session stays usable.
	p.send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fail"}]}}`)
	if m := p.recv(); m["id"] != 4.0 || code(m) != CodeInternalError || !strings.Contains(m["error"].(map[string]any)["message"].(string), "model is down") {
		t.Fatalf("failed turn %v", m)
	}
}

func TestPermissionRequestAndCancel(t *testing.T) {
	p := startServer(t, 0)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"ask"}]}}`)
	req := p.recv()
	params := req["params"].(map[string]any)
	if req["method"] != "session/request_permission" || params["toolCall"].(map[string]any)["toolCallId"] != "call_1" {
		t.Fatalf("request %v", req)
	}
	if _, has := params["toolCall"].(map[string]any)["sessionUpdate"]; has {
		t.Fatalf("toolCall carries sessionUpdate: %v", params)
	}
	id, _ := json.Marshal(req["id"])
	p.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}}`)
	if u := p.recv(); u["params"].(map[string]any)["update"].(map[string]any)["content"].(map[string]any)["text"] != "chose allow-once" {
		t.Fatalf("update %v", u)
	}
	p.recv() // the stop

	// A turn waiting on the model, cancelled: the cancelled stop reason,
	// however the turn ended. A second prompt meanwhile is refused.
	p.send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"wait"}]}}`)
	p.recv() // "waiting": the turn is running
	p.send(`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`)
	if m := p.recv(); m["id"] != 5.0 || code(m) != CodeInvalidRequest {
		t.Fatalf("concurrent prompt %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	if m := p.recv(); m["id"] != 4.0 || m["result"].(map[string]any)["stopReason"] != "cancelled" {
		t.Fatalf("cancelled turn %v", m)
	}
}

func TestLoadReplaysBeforeAnswering(t *testing.T) {
	p := startServer(t, 0)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"saved","cwd":"/tmp","mcpServers":[]}}`)
	var kinds []string
	for {
		m := p.recv()
		if m["id"] == 2.0 {
			if _, ok := m["result"].(map[string]any); !ok {
				t.Fatalf("load answer %v", m)
			}
			break
		}
		kinds = append(kinds, m["params"].(map[string]any)["update"].(map[string]any)["sessionUpdate"].(string))
	}
	if strings.Join(kinds, ",") != "user_message_chunk,agent_message_chunk" {
		t.Fatalf("replay %v", kinds)
	}
}

func TestDisconnectMidTurnEndsServeAndClosesSessions(t *testing.T) {
	p := startServer(t, 0)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"wait"}]}}`)
	p.recv() // the turn is running
	p.in.Close()
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the client left mid-turn")
	}
	if p.agent.closed != 1 {
		t.Fatalf("%d sessions closed, want 1", p.agent.closed)
	}
}

func TestUpdatesMarshalAsTheSchemaSays(t *testing.T) {
	res := TextBlock("ok")
	for _, tc := range []struct {
		u    Update
		want string
	}{
		{AgentChunk("hi", "m"), `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"},"messageId":"m"}`},
		{ToolCallStarted("c1", "fs_write", KindEdit, StatusPending, json.RawMessage(`{"path":"a"}`)),
			`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"fs_write","kind":"edit","status":"pending","rawInput":{"path":"a"}}`},
		{ToolCallStatus("c1", StatusCompleted, &res),
			`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"ok"}}]}`},
		{ToolCallStatus("c1", StatusInProgress, nil), `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"in_progress"}`},
		{Plan(nil), `{"sessionUpdate":"plan","entries":[]}`},
		{Plan([]PlanEntry{{Content: "a", Priority: "medium", Status: "pending"}}), `{"sessionUpdate":"plan","entries":[{"content":"a","priority":"medium","status":"pending"}]}`},
	} {
		b, err := json.Marshal(tc.u)
		if err != nil || string(b) != tc.want {
			t.Fatalf("got %s (%v)\nwant %s", b, err, tc.want)
		}
	}
}
