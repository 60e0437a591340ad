package convo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/session"
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
