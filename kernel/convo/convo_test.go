package convo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/tools"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/session"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func newState(t *testing.T, yaml string) *State {
	t.Helper()
	dir := t.TempDir()
	env := func(k string) string { return map[string]string{"COYOTE_CONFIG_DIR": dir, "COYOTE_CACHE_DIR": dir}[k] }
	p, err := config.ResolvePaths(env)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.ConfigFile, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, env)
	if err != nil {
		t.Fatal(err)
	}
	return New(Deps{Paths: p, Config: cfg})
}

const twoClients = "model: a:one\nclients:\n  - {type: openai, name: a, models: [{name: one}]}\n  - {type: openai, name: b, models: [{name: two}]}\n"

func TestModelIDPrecedence(t *testing.T) {
	st := newState(t, twoClients)
	if got := st.ModelID(); got != "a:one" {
		t.Fatalf("config: %q", got)
	}
	st.Role = role.Temp("x")
	st.Role.Settings.Model = "b:two"
	if got := st.ModelID(); got != "b:two" {
		t.Fatalf("role: %q", got)
	}
	sess, err := st.OpenSession("s1")
	if err != nil {
		t.Fatal(err)
	}
	sess.Update(func(s *session.Settings) { s.Model = "a:one" })
	if got := st.ModelID(); got != "a:one" {
		t.Fatalf("session over role: %q", got)
	}
	st.Model = "b"
	if got := st.ModelID(); got != "b" {
		t.Fatalf("chosen model over everything: %q", got)
	}
}

func TestRequestAndSampling(t *testing.T) {
	st := newState(t, twoClients+"temperature: 0.4\n")
	parts := []provider.Part{{Text: "hi"}}
	req, added := st.Request(parts, true)
	if len(req.Messages) != 1 || len(added) != 1 || *req.Temperature != 0.4 || !req.Stream {
		t.Fatalf("bare: %+v", req)
	}
	r := role.Temp("Be terse.")
	tp := 0.2
	r.Settings.Temperature = &tp
	st.Role = r
	req, added = st.Request(parts, false)
	if len(req.Messages) != 2 || req.Messages[0].Role != provider.RoleSystem || *req.Temperature != 0.2 || len(added) != 2 {
		t.Fatalf("role: %+v", req.Messages)
	}
	sess, _ := st.OpenSession("s")
	if err := sess.Append(provider.TextMessage(provider.RoleUser, "q"), provider.TextMessage(provider.RoleAssistant, "a")); err != nil {
		t.Fatal(err)
	}
	req, added = st.Request(parts, false)
	if len(req.Messages) != 3 || len(added) != 1 {
		t.Fatalf("session: %d messages, %d added", len(req.Messages), len(added))
	}
}

type titler struct{}

func (titler) Chat(_ context.Context, _ *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	return send(&provider.ChatEvent{Text: "A Title"})
}

func TestFinishRecordsOrCheckpoints(t *testing.T) {
	st := newState(t, twoClients+"save_session: true\n")
	sess, _ := st.OpenSession(session.TempName)
	parts := []provider.Part{{Text: "q"}}
	_, added := st.Request(parts, false)
	failed := errors.New("boom")
	if err := st.Finish(context.Background(), titler{}, parts, added, &chat.Reply{}, failed); err != failed {
		t.Fatalf("err = %v", err)
	}
	if !sess.Interrupted() || st.LastReply != nil {
		t.Fatal("a failed turn was not checkpointed, or was remembered as the last reply")
	}
	if _, err := sess.Undo(); err != nil {
		t.Fatal(err)
	}
	reply := &chat.Reply{Text: "answer"}
	if err := st.Finish(context.Background(), titler{}, parts, added, reply, nil); err != nil {
		t.Fatal(err)
	}
	if sess.Interrupted() || len(sess.Messages()) != 2 || st.LastReply != reply {
		t.Fatalf("messages = %d", len(sess.Messages()))
	}
	if sess.Title() != "a-title" {
		t.Fatalf("temp session to be saved was not titled: %q", sess.Title())
	}
	if err := sess.Save(); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(st.Paths().SessionsDir, "_", "*-a-title.yaml")); len(m) != 1 {
		t.Fatalf("saved as %v", m)
	}
}

// scripted answers each request with the next reply and records what it
// was sent.
type scripted struct {
	replies []provider.ChatEvent
	reqs    []*provider.ChatRequest
}

func (s *scripted) Chat(_ context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	cp := *req
	cp.Messages = append([]provider.Message(nil), req.Messages...)
	s.reqs = append(s.reqs, &cp)
	ev := s.replies[0]
	s.replies = s.replies[1:]
	return send(&ev)
}

func TestTurnRunsToolsUntilTheModelAnswers(t *testing.T) {
	st := newState(t, twoClients+"enabled_tools: echo\n")
	st.Tools = tools.NewRegistry()
	st.Tools.Add(&tools.Func{Name: "echo", Call: func(_ context.Context, args json.RawMessage) (string, error) { return "echoed " + string(args), nil }})
	st.Tools.Add(&tools.Func{Name: "hidden", Call: func(context.Context, json.RawMessage) (string, error) { return "", nil }})
	var shown []string
	st.ShowCall = func(name, args string) { shown = append(shown, name+" "+args) }
	p := &scripted{replies: []provider.ChatEvent{
		{ToolCall: &provider.ToolCall{ID: "c1", Name: "echo", Arguments: `{"x":1}`}},
		{Text: "done"},
	}}
	parts := []provider.Part{{Text: "go"}}
	req, added := st.Request(parts, true)
	m := models.Model{Name: "one", SupportsFunctionCalling: true}
	reply, added, err := st.Turn(context.Background(), p, m, req, added, func() chat.Display { return chat.Plain(io.Discard) })
	if err != nil || reply.Text != "done" {
		t.Fatalf("reply %+v, %v", reply, err)
	}
	if len(p.reqs) != 2 || len(p.reqs[0].Tools) != 1 || p.reqs[0].Tools[0].Name != "echo" {
		t.Fatalf("first request tools: %+v", p.reqs[0].Tools)
	}
	second := p.reqs[1].Messages
	last := second[len(second)-1]
	if last.Role != provider.RoleTool || last.Parts[0].ToolResult.Content != `echoed {"x":1}` || last.Parts[0].ToolResult.CallID != "c1" {
		t.Fatalf("second request ends with %+v", last)
	}
	if len(added) != 3 || len(shown) != 1 {
		t.Fatalf("added %d messages, shown %v", len(added), shown)
	}
	// A model that cannot call functions is offered none.
	p = &scripted{replies: []provider.ChatEvent{{Text: "plain"}}}
	req, added = st.Request(parts, true)
	if _, _, err := st.Turn(context.Background(), p, models.Model{Name: "x"}, req, added, func() chat.Display { return chat.Plain(io.Discard) }); err != nil || len(p.reqs[0].Tools) != 0 {
		t.Fatalf("tools sent to a model without function calling: %+v %v", p.reqs[0].Tools, err)
	}
}

func TestForkOwnsItsToolsAndBorrowsTheRAG(t *testing.T) {
	st := newState(t, twoClients)
	st.Tools = tools.NewRegistry()
	st.Tools.Add(&tools.Func{Name: "a"})
	f := st.Fork()
	f.Tools.Add(&tools.Func{Name: "rag__query"})
	if _, ok := st.Tools.Get("rag__query"); ok {
		t.Fatal("a function added in the fork reached the parent")
	}
	if _, ok := f.Tools.Get("a"); !ok {
		t.Fatal("the fork lost the parent's functions")
	}
}

// TestRetryReasonIsOneShortLine: the cause shown while a request waits
// to be retried is one line, cut on a rune boundary.
func TestRetryReasonIsOneShortLine(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"rate limited", fmt.Errorf("429: %w", sdk.ErrRateLimited), "rate limited"},
		{"lines", errors.New("502 Bad Gateway:\n  <html>\n\tupstream   gone"), "502 Bad Gateway: <html> upstream gone"},
		{"long", errors.New(strings.Repeat("é", 60)), strings.Repeat("é", 40) + "…"},
		{"long, cut mid-rune", errors.New("x" + strings.Repeat("é", 60)), "x" + strings.Repeat("é", 39) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := retryReason(tt.err)
			if got != tt.want || !utf8.ValidString(got) {
				t.Fatalf("retryReason = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPrepareBuildsWhatRunSends: Prepare (Run's first half, and -e's)
// builds the request from the input, with a .continue prefix last, and
// returns the messages the turn adds.
func TestPrepareBuildsWhatRunSends(t *testing.T) {
	st := newState(t, twoClients)
	parts := []provider.Part{{Text: "go on"}}
	req, added, got, err := st.Prepare(context.Background(), Ask{Parts: parts, Stream: true, Prefix: &chat.Reply{Text: "so far"}})
	if err != nil {
		t.Fatal(err)
	}
	n := len(req.Messages)
	if !req.Stream || n < 2 || req.Messages[n-1].Role != provider.RoleAssistant || req.Messages[n-1].Parts[0].Text != "so far" ||
		req.Messages[n-2].Role != provider.RoleUser || req.Messages[n-2].Parts[0].Text != "go on" {
		t.Fatalf("request %+v", req)
	}
	if len(added) != 1 || added[0].Role != provider.RoleUser || len(got) != 1 || got[0].Text != "go on" {
		t.Fatalf("added %+v, parts %+v", added, got)
	}
}
