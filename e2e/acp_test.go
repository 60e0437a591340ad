package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// lastUserText is the text of the last user message of a request.
func lastUserText(req *fakellm.ChatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i]["role"] == "user" {
			s, _ := req.Messages[i]["content"].(string)
			return s
		}
	}
	return ""
}

// resultsSinceUser are the tool results after the last user message.
func resultsSinceUser(req *fakellm.ChatRequest) []string {
	var out []string
	for _, m := range req.Messages {
		switch m["role"] {
		case "user":
			out = nil
		case "tool":
			s, _ := m["content"].(string)
			out = append(out, s)
		}
	}
	return out
}

// acpModel answers the prompts of the ACP scenarios: "write a note"
// calls the guarded fs_write on note.txt (a path relative to the
// session's cwd), "plan" keeps a todo list, "stall" starts an answer and
// never ends it, anything else is answered at once.
func acpModel() *fakellm.OpenAI {
	return &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		results := resultsSinceUser(req)
		text := lastUserText(req)
		switch {
		case strings.Contains(text, "write a note"):
			if len(results) > 0 {
				return fakellm.Reply{Text: "The tool said: " + strings.TrimSpace(results[len(results)-1])}
			}
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "call_w", Name: "fs_write", Arguments: `{"path":"note.txt","contents":"hello"}`}}}
		case strings.Contains(text, "plan"):
			switch len(results) {
			case 0:
				return fakellm.Reply{ToolCalls: []fakellm.ToolCall{
					{ID: "t1", Name: "todo__init", Arguments: `{"goal":"ship it"}`},
					{ID: "t2", Name: "todo__add", Arguments: `{"task":"build"}`},
					{ID: "t3", Name: "todo__add", Arguments: `{"task":"test"}`}}}
			case 3:
				return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "t4", Name: "todo__done", Arguments: `{"id":1}`},
					{ID: "t5", Name: "todo__done", Arguments: `{"id":2}`}}}
			}
			return fakellm.Reply{Text: "planned and done"}
		case strings.Contains(text, "stall"):
			return fakellm.Reply{Text: "this answer never ends", Stall: true}
		}
		return fakellm.Reply{Text: "second answer: " + text}
	}}
}

// acpConfig is a config with function calling, fs_write and the todo
// functions.
func acpConfig(url string) string {
	return "auto_continue: true\n" + toolConfig(url, "fs_write")
}

// acpReport is what the Node.js client (internal/acptest/client) saw.
type acpReport struct {
	Initialize struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession bool `json:"loadSession"`
		} `json:"agentCapabilities"`
		AgentInfo struct{ Name, Version string } `json:"agentInfo"`
	} `json:"initialize"`
	SessionID   string `json:"sessionId"`
	Permissions []struct {
		ToolCallID string   `json:"toolCallId"`
		Options    []string `json:"options"`
	} `json:"permissions"`
	Turns []struct {
		Text        string     `json:"text"`
		Events      []string   `json:"events"`
		Plans       [][]string `json:"plans"`
		ToolResults []string   `json:"toolResults"`
		StopReason  string     `json:"stopReason"`
	} `json:"turns"`
	Replayed []struct{ Kind, Text string } `json:"replayed"`
	Error    string                        `json:"error"`
	Exit     struct{ Code *int }           `json:"exit"`
}

// runACPClient runs the Node.js client against coyote --acp-server with
// the scenario, and returns its report.
func runACPClient(t *testing.T, e *env, scenario map[string]any) acpReport {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		skipUnlessCI(t, "node is not installed: the ACP client test needs Node.js 18 or later")
	}
	src, err := filepath.Abs(filepath.Join("..", "internal", "acptest", "client"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(src, "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		skipUnlessCI(t, "the ACP client's packages are not installed: run ./scripts/install-test-deps.sh")
	}
	b, _ := json.Marshal(scenario)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(src, "client.mjs"), e.coyote(), "--acp-server")
	cmd.Env = append(append([]string{}, e.vars...), "ACP_SCENARIO="+string(b))
	var errOut strings.Builder
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil || ctx.Err() != nil {
		t.Fatalf("client: %v\nstderr:\n%s", err, errOut.String())
	}
	var r acpReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("client report %q: %v\nstderr:\n%s", out, err, errOut.String())
	}
	if r.Error != "" {
		t.Fatalf("client error: %s\nstderr:\n%s", r.Error, errOut.String())
	}
	if r.Exit.Code == nil || *r.Exit.Code != 0 {
		t.Fatalf("coyote --acp-server exit %v after the client closed stdin\nstderr:\n%s", r.Exit.Code, errOut.String())
	}
	return r
}

func TestACPClientPromptsWithPermissionCancelAndASecondPrompt(t *testing.T) {
	url := fakellm.StartOpenAI(t, acpModel())
	e := newEnv(t, acpConfig(url))
	cwd := t.TempDir()
	r := runACPClient(t, e, map[string]any{
		"cwd":        cwd,
		"permission": "allow-once",
		"prompts": []map[string]any{
			{"text": "write a note"},
			{"text": "plan"},
			{"text": "stall", "cancelAfterFirstChunk": true},
			{"text": "again"},
		},
	})
	if r.Initialize.ProtocolVersion != 1 || !r.Initialize.AgentCapabilities.LoadSession || r.Initialize.AgentInfo.Name != "coyote" {
		t.Fatalf("initialize: %+v", r.Initialize)
	}
	if len(r.Turns) != 4 {
		t.Fatalf("%d turns: %+v", len(r.Turns), r.Turns)
	}
	// 1. The guarded tool: announced pending, permission asked, then run
	// in the session's cwd once allowed.
	w := r.Turns[0]
	if len(r.Permissions) != 1 || r.Permissions[0].ToolCallID != "call_w" {
		t.Fatalf("permissions: %+v", r.Permissions)
	}
	want := []string{"tool_call:pending", "permission", "tool_call_update:in_progress", "tool_call_update:completed", "agent_message_chunk"}
	if strings.Join(w.Events, " ") != strings.Join(want, " ") || w.StopReason != "end_turn" {
		t.Fatalf("turn 1 events %v (stop %s), want %v", w.Events, w.StopReason, want)
	}
	if data, err := os.ReadFile(filepath.Join(cwd, "note.txt")); err != nil || string(data) != "hello" {
		t.Fatalf("note.txt in the session's cwd: %q, %v", data, err)
	}
	if !strings.HasPrefix(w.Text, "The tool said:") {
		t.Fatalf("turn 1 text %q", w.Text)
	}
	// 2. The plan follows the todo list.
	p := r.Turns[1]
	if len(p.Plans) == 0 || strings.Join(p.Plans[len(p.Plans)-1], ",") != "completed:build,completed:test" {
		t.Fatalf("plans %v (turn %+v)", p.Plans, p)
	}
	if !strings.Contains(strings.Join(p.Plans[0], ","), "pending:") && len(p.Plans) < 2 {
		t.Fatalf("the plan was sent only at the end: %v", p.Plans)
	}
	// 3. Cancelled mid-reply: what arrived, then the cancelled stop.
	c := r.Turns[2]
	if c.StopReason != "cancelled" || c.Text == "" || c.Text == "this answer never ends" {
		t.Fatalf("turn 3: stop %q text %q", c.StopReason, c.Text)
	}
	// 4. The same session goes on.
	if a := r.Turns[3]; a.StopReason != "end_turn" || a.Text != "second answer: again" {
		t.Fatalf("turn 4: %+v", a)
	}
	// The session was saved: a new process loads it and replays it.
	l := runACPClient(t, e, map[string]any{"cwd": cwd, "load": r.SessionID, "prompts": []map[string]any{{"text": "after load"}}})
	var replay []string
	for _, u := range l.Replayed {
		replay = append(replay, u.Kind+":"+u.Text)
	}
	joined := strings.Join(replay, "|")
	if !strings.Contains(joined, "user_message_chunk:write a note") || !strings.Contains(joined, "agent_message_chunk:second answer: again") {
		t.Fatalf("replay %v", replay)
	}
	if len(l.Turns) != 1 || l.Turns[0].Text != "second answer: after load" {
		t.Fatalf("prompt after load: %+v", l.Turns)
	}
}

func TestACPPermissionRefusedIsReportedToTheModel(t *testing.T) {
	url := fakellm.StartOpenAI(t, acpModel())
	e := newEnv(t, acpConfig(url))
	cwd := t.TempDir()
	r := runACPClient(t, e, map[string]any{"cwd": cwd, "permission": "reject-once", "prompts": []map[string]any{{"text": "write a note"}}})
	if _, err := os.Stat(filepath.Join(cwd, "note.txt")); !os.IsNotExist(err) {
		t.Fatalf("the refused tool ran: %v", err)
	}
	if len(r.Turns) != 1 || !strings.Contains(r.Turns[0].Text, "refused") || r.Turns[0].StopReason != "end_turn" {
		t.Fatalf("turn %+v", r.Turns)
	}
}

// acpRaw is coyote --acp-server driven line by line, for bad input.
type acpRaw struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines <-chan string
}

func startACP(t *testing.T, e *env) *acpRaw {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, e.coyote(), "--acp-server")
	cmd.Env = e.vars
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &acpRaw{t: t, cmd: cmd, in: in, lines: messageLines(out)}
}

// messageLines reads the protocol's messages, one a line.
func messageLines(r io.Reader) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		br := bufio.NewReader(r)
		for {
			l, err := br.ReadString('\n')
			if l != "" {
				ch <- l
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

func (a *acpRaw) send(s string) {
	a.t.Helper()
	if _, err := io.WriteString(a.in, s+"\n"); err != nil {
		a.t.Fatal(err)
	}
}

// next is the next message, decoded.
func (a *acpRaw) next() map[string]any {
	a.t.Helper()
	select {
	case l, ok := <-a.lines:
		if !ok {
			a.t.Fatal("coyote closed stdout")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			a.t.Fatalf("stdout line %q is not JSON: %v", l, err)
		}
		return m
	case <-time.After(30 * time.Second):
		a.t.Fatal("no message from coyote")
	}
	return nil
}

func errorCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	n, _ := e["code"].(float64)
	return int(n)
}

func TestACPBadInputGetsJSONRPCErrors(t *testing.T) {
	url := fakellm.StartOpenAI(t, acpModel())
	e := newEnv(t, acpConfig(url))
	a := startACP(t, e)
	huge := `{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"` +
		strings.Repeat("a", 33<<20) + `"}]}}`
	for _, tc := range []struct {
		name, send string
		id         any
		code       int
	}{
		{"prompt before initialize", `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"hi"}]}}`, 1.0, -32600},
		{"malformed JSON", `{"jsonrpc":"2.0","id":2,"method":`, nil, -32700},
		{"not an object", `[1,2,3]`, nil, -32600},
		{"unknown method", `{"jsonrpc":"2.0","id":"u","method":"session/fly","params":{}}`, "u", -32601},
		{"initialize without a version", `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}`, 3.0, -32602},
		{"huge message", huge, nil, -32600},
		{"initialize", `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":1}}`, 4.0, 0},
		{"relative cwd", `{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"rel","mcpServers":[]}}`, 5.0, -32602},
		{"unknown session", `{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`, 6.0, -32002},
		{"load of no session", `{"jsonrpc":"2.0","id":7,"method":"session/load","params":{"sessionId":"acp-none","cwd":"/","mcpServers":[]}}`, 7.0, -32002},
	} {
		a.send(tc.send)
		m := a.next()
		if m["id"] != tc.id || errorCode(m) != tc.code {
			t.Fatalf("%s: got %v, want id %v code %d", tc.name, m, tc.id, tc.code)
		}
	}
	// Still serving: a session and a prompt work after all that.
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":10,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, t.TempDir()))
	m := a.next()
	res, _ := m["result"].(map[string]any)
	id, _ := res["sessionId"].(string)
	if id == "" {
		t.Fatalf("session/new: %v", m)
	}
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":11,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}}`, id))
	for {
		m := a.next()
		if m["id"] == 11.0 {
			if res, _ := m["result"].(map[string]any); res["stopReason"] != "end_turn" {
				t.Fatalf("prompt: %v", m)
			}
			break
		}
		if m["method"] != "session/update" {
			t.Fatalf("unexpected %v", m)
		}
	}
	a.in.Close()
	if err := a.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

func TestACPClientLeavingMidTurnEndsTheServerAndItsTools(t *testing.T) {
	url := fakellm.StartOpenAI(t, acpModel())
	e := newEnv(t, acpConfig(url))
	// A tool that would run long, and says where its process is.
	pidFile := filepath.Join(t.TempDir(), "pid")
	writeTool(t, e, "slow_tool.sh", `#!/usr/bin/env bash
# @describe Wait a long time.
main() {
    echo $$ > `+pidFile+`
    sleep 300
}
eval "$(argc --argc-eval "$0" "$@")"
`)
	cfg := strings.Replace(acpConfig(url), "enabled_tools: fs_write", "enabled_tools: slow_tool", 1)
	if err := os.WriteFile(filepath.Join(e.configDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "s1", Name: "slow_tool", Arguments: `{}`}}}
	}}
	url2 := fakellm.StartOpenAI(t, fake)
	cfg = strings.Replace(cfg, url, url2, 1)
	if err := os.WriteFile(filepath.Join(e.configDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startACP(t, e)
	a.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	a.next()
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, t.TempDir()))
	res, _ := a.next()["result"].(map[string]any)
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"go"}]}}`, res["sessionId"]))
	for { // until the tool runs
		m := a.next()
		if u, _ := m["params"].(map[string]any); u != nil {
			if up, _ := u["update"].(map[string]any); up["sessionUpdate"] == "tool_call" {
				break
			}
		}
	}
	var pid int
	waitFor(t, func() bool {
		b, err := os.ReadFile(pidFile)
		_, serr := fmt.Sscan(string(b), &pid)
		return err == nil && serr == nil
	})
	a.in.Close() // the editor went away
	if err := a.cmd.Wait(); err != nil {
		t.Fatalf("exit after the client left: %v", err)
	}
	// The kernel waited for the tool it ended before it exited.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("tool process %d still exists after the server exited (kill 0: %v)", pid, err)
	}
}

// waitFor polls cond until it holds, for up to 30 s: a state another
// process reaches (a file it writes) that no channel reports.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		<-tick.C
	}
}
