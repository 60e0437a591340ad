package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/kernel/session"
)

func sessionFake(t *testing.T) (*fakellm.OpenAI, string) {
	f := &fakellm.OpenAI{Respond: func(r *fakellm.ChatRequest) fakellm.Reply {
		last := r.Messages[len(r.Messages)-1]["content"].(string)
		if strings.Contains(last, "fail please") {
			return fakellm.Reply{Status: 500}
		}
		return fakellm.Reply{Text: "reply to " + strings.Fields(last)[len(strings.Fields(last))-1]}
	}}
	return f, fakellm.StartOpenAI(t, f)
}

func TestNamedSessionKeepsTheConversation(t *testing.T) {
	fake, url := sessionFake(t)
	e := newEnv(t, openAIConfig(url, "k"))
	e.mustSucceed(e.run("", "-s", "work", "first"))
	e.mustSucceed(e.run("", "-s", "work", "second"))
	reqs := fake.Requests()
	var roles []string
	for _, m := range reqs[1].Messages {
		roles = append(roles, m["role"].(string)+":"+m["content"].(string))
	}
	if strings.Join(roles, "|") != "user:first|assistant:reply to first|user:second" {
		t.Fatalf("second request carried %q", roles)
	}
	s, err := (&session.Store{Dir: filepath.Join(e.configDir, "sessions")}).Load("work")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Messages()); n != 4 {
		t.Fatalf("the session file holds %d messages", n)
	}
	if r := e.run("", "--list-sessions"); r.stdout != "work\n" {
		t.Fatalf("--list-sessions: %q", r.stdout)
	}
	// --empty-session starts the same session over.
	e.mustSucceed(e.run("", "-s", "work", "--empty-session", "third"))
	if n := len(fake.Requests()[2].Messages); n != 1 {
		t.Fatalf("after --empty-session the request had %d messages", n)
	}
}

func TestTempSessionSavedWithATitleWhenSaveSessionIsTrue(t *testing.T) {
	_, url := sessionFake(t)
	e := newEnv(t, "save_session: true\n"+openAIConfig(url, "k"))
	e.mustSucceed(e.run("", "-s", "temp", "tell", "me", "about", "coyotes"))
	matches, _ := filepath.Glob(filepath.Join(e.configDir, "sessions", "_", "*.yaml"))
	if len(matches) != 1 {
		t.Fatalf("saved temp sessions: %v", matches)
	}
	// The create-title role named it from the first exchange.
	if base := filepath.Base(matches[0]); !strings.HasSuffix(base, "-reply-to-exchange.yaml") && !strings.Contains(base, "-reply-to-") {
		t.Fatalf("file name %s has no title", base)
	}
}

func TestSaveSessionFalseKeepsNothingUnlessForced(t *testing.T) {
	_, url := sessionFake(t)
	e := newEnv(t, "save_session: false\n"+openAIConfig(url, "k"))
	e.mustSucceed(e.run("", "-s", "notes", "hi"))
	if _, err := os.Stat(filepath.Join(e.configDir, "sessions", "notes.yaml")); err == nil {
		t.Fatal("saved although save_session is false")
	}
	e.mustSucceed(e.run("", "-s", "notes", "--save-session", "hi"))
	if _, err := os.Stat(filepath.Join(e.configDir, "sessions", "notes.yaml")); err != nil {
		t.Fatal("--save-session did not save")
	}
}

func TestFailedTurnIsCheckpointedForRecovery(t *testing.T) {
	_, url := sessionFake(t)
	e := newEnv(t, "save_session: true\n"+openAIConfig(url, "k"))
	e.mustSucceed(e.run("", "-s", "work", "hello"))
	oneLineError(t, e.run("", "-s", "work", "fail please"))
	s, err := (&session.Store{Dir: filepath.Join(e.configDir, "sessions")}).Load("work")
	if err != nil {
		t.Fatal(err)
	}
	msgs := s.Messages()
	last := msgs[len(msgs)-1]
	if len(msgs) != 4 || msgs[2].Text() != "fail please" || last.Text() != session.InterruptedReply {
		t.Fatalf("session after the failure: %+v", msgs)
	}
}
