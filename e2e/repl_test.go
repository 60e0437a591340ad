package e2e

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/kernel/session"
)

// replTimeout bounds every wait of the REPL tests. It only decides how
// long a broken test takes to fail, so it is generous.
const replTimeout = 20 * time.Second

// cancelBound is how soon after Ctrl+C the fake server must see the
// request cancelled. The target is 200 ms (make bench measures it); the
// test only catches a cancellation that does not reach the server.
const cancelBound = 5 * time.Second

// The prompts of the default template with the fake client's model.
const replPrompt = "fake:gpt-4o-mini)> "

func sessionPrompt(name string) string { return "fake:gpt-4o-mini)" + name + ") " }

// replFake is a fake OpenAI server that also reports the chat requests
// whose client went away before the reply ended.
type replFake struct {
	*fakellm.OpenAI
	url string
	// cancelled receives, for each such request, when the fake stopped
	// sending because its client had gone.
	cancelled chan time.Time
}

// startREPLFake serves a fake whose nth chat request (from 0) is answered
// by respond, until the test ends.
func startREPLFake(t *testing.T, respond func(n int, r *fakellm.ChatRequest) fakellm.Reply) *replFake {
	t.Helper()
	var count atomic.Int64
	f := &replFake{cancelled: make(chan time.Time, 16)}
	f.OpenAI = &fakellm.OpenAI{Respond: func(r *fakellm.ChatRequest) fakellm.Reply {
		return respond(int(count.Add(1)-1), r)
	}}
	// Cancelling base ends the streams still running when the test ends,
	// so that closing the server does not wait for them.
	base, stop := context.WithCancel(context.Background())
	h := f.Handler()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		// The server cancels a request's context when the handler returns;
		// cancelled before that (and not by the test's end), it was the
		// client closing the connection.
		if r.Context().Err() != nil && base.Err() == nil {
			select {
			case f.cancelled <- time.Now():
			default:
			}
		}
	}))
	srv.Config.BaseContext = func(net.Listener) context.Context { return base }
	srv.Start()
	t.Cleanup(func() {
		stop()
		srv.Close()
	})
	f.url = srv.URL + "/v1"
	return f
}

// slowReply is a reply that takes 20 s to stream, a word every 20 ms: it
// is still streaming whenever the test interrupts it.
var slowReply = fakellm.Reply{Text: strings.Repeat("howl ", 1000), Delay: 20 * time.Millisecond}

// lastText is the text content of the last message of a request ("" if
// it has none).
func lastText(r *fakellm.ChatRequest) string {
	if len(r.Messages) == 0 {
		return ""
	}
	s, _ := r.Messages[len(r.Messages)-1]["content"].(string)
	return s
}

func TestREPLSessionIsSavedAndReplayed(t *testing.T) {
	fake := startREPLFake(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply {
		if n == 0 {
			return fakellm.Reply{Text: "Coyotes howl to find each other.", Chunks: 3}
		}
		return fakellm.Reply{Text: "At night too.", Chunks: 2}
	})
	e := newEnv(t, openAIConfig(fake.url, "k"))

	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send(".session work\r")
	p.expect(sessionPrompt("work"), replTimeout)
	p.send("why do coyotes howl\r")
	p.expect("Coyotes howl to find each other.", replTimeout)
	p.expect(sessionPrompt("work"), replTimeout)
	p.send(".save session\r")
	p.expect("Saved session work to "+filepath.Join(e.configDir, "sessions", "work.yaml"), replTimeout)
	p.expect(sessionPrompt("work"), replTimeout)
	p.send(".exit\r")
	if code := p.waitExit(replTimeout); code != 0 {
		t.Fatalf(".exit: exit code %d\n%s", code, p.output())
	}

	// A new run loads the session and shows the conversation so far.
	p = e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send(".session work\r")
	p.expect("\n"+sessionPrompt("work")+"why do coyotes howl\n", replTimeout)
	p.expect("Coyotes howl to find each other.", replTimeout)
	p.expect(sessionPrompt("work"), replTimeout)
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("replaying the session sent %d requests in all, want the first one only", n)
	}
	// And the next question carries it.
	p.send("and at night\r")
	p.expect("At night too.", replTimeout)
	p.expect(sessionPrompt("work"), replTimeout)
	var sent []string
	for _, m := range fake.Requests()[1].Messages {
		c, _ := m["content"].(string)
		sent = append(sent, m["role"].(string)+":"+c)
	}
	if got, want := strings.Join(sent, "|"), "user:why do coyotes howl|assistant:Coyotes howl to find each other.|user:and at night"; got != want {
		t.Fatalf("the question after the replay sent\n%s\nwant\n%s", got, want)
	}
}

func TestREPLCtrlCCancelsTheReplyAndRecoverSendsItAgain(t *testing.T) {
	fake := startREPLFake(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply {
		if n == 0 {
			return slowReply
		}
		return fakellm.Reply{Text: "The whole story, at last.", Chunks: 4}
	})
	e := newEnv(t, openAIConfig(fake.url, "k"))
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send(".session work\r")
	p.expect(sessionPrompt("work"), replTimeout)
	p.send("tell me a long story\r")
	p.expect("howl howl", replTimeout) // it streams

	p.send("\x03")
	pressed := time.Now()
	p.expect("Error: the reply was cancelled; .recover sends it again\n", replTimeout)
	p.expect(sessionPrompt("work"), replTimeout)
	select {
	case at := <-fake.cancelled:
		t.Logf("the fake server saw the request cancelled %v after Ctrl+C", at.Sub(pressed))
	case <-time.After(cancelBound):
		t.Fatalf("the fake server did not see the request cancelled within %v of Ctrl+C", cancelBound)
	}
	if err := p.cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("coyote is gone after Ctrl+C: %v", err)
	}

	// The session holds the checkpoint of the interrupted turn.
	p.send(".info session\r")
	p.expect("tell me a long story", replTimeout)
	p.expect(session.InterruptedReply, replTimeout)
	p.expect(sessionPrompt("work"), replTimeout)

	// .recover sends the question again and a whole reply arrives.
	p.send(".recover\r")
	p.expect("The whole story, at last.", replTimeout)
	p.expect(sessionPrompt("work"), replTimeout)
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if got := lastText(&reqs[1]); got != "tell me a long story" {
		t.Fatalf(".recover sent %q", got)
	}
	for _, m := range reqs[1].Messages {
		if c, _ := m["content"].(string); strings.Contains(c, session.InterruptedReply) {
			t.Fatalf(".recover sent the checkpoint marker: %v", reqs[1].Messages)
		}
	}
}

func TestREPLSurvivesAKilledPlugin(t *testing.T) {
	fake := startREPLFake(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply {
		if n == 0 {
			return slowReply
		}
		return fakellm.Reply{Text: "Back on my feet.", Chunks: 3}
	})
	e := newEnv(t, openAIConfig(fake.url, "k"))
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send("tell me a long story\r")
	p.expect("howl howl", replTimeout)

	first := p.pluginPID("coyote-provider-openai")
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.expect("Error: plugin coyote-provider-openai", replTimeout)
	p.expect("crashed (killed by signal 9", replTimeout)
	p.expect(replPrompt, replTimeout)

	// The next prompt starts the plugin again.
	p.send("are you back\r")
	p.expect("Back on my feet.", replTimeout)
	p.expect(replPrompt, replTimeout)
	if second := p.pluginPID("coyote-provider-openai"); second == first {
		t.Fatalf("the plugin's pid is still %d", first)
	}
	if got := lastText(&fake.Requests()[1]); got != "are you back" {
		t.Fatalf("second request sent %q", got)
	}
}

func TestREPLShellCommands(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "unused"} })
	e := newEnv(t, openAIConfig(fake.url, "k"))
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send("!echo hi\r")
	p.expect("\nhi\n", replTimeout)
	p.expect(replPrompt, replTimeout)
	p.send("!false\r")
	p.expect("\n[exit 1]\n", replTimeout)
	p.expect(replPrompt, replTimeout)
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("shell commands sent %d requests to the model", n)
	}
}

func TestREPLMultilineInput(t *testing.T) {
	fake := startREPLFake(t, func(_ int, r *fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "Got " + strconv.Itoa(strings.Count(lastText(r), "\n")+1) + " lines."}
	})
	e := newEnv(t, openAIConfig(fake.url, "k"))
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	// Each line is sent once the previous one is echoed. An echo can come
	// from the terminal itself, before readline takes the line, so the
	// next line may be typed ahead; the REPL reads them in order.
	p.send(":::\r")
	p.expect(":::\n", replTimeout)
	p.expect(".. ", replTimeout) // the continuation prompt
	p.send("first line\r")
	p.expect("first line\n", replTimeout)
	p.send("  second line, indented\r")
	p.expect("  second line, indented\n", replTimeout)
	p.send(":::\r")
	p.expect("Got 2 lines.", replTimeout)
	p.expect(replPrompt, replTimeout)
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if got, want := lastText(&reqs[0]), "first line\n  second line, indented"; got != want {
		t.Fatalf("sent %q, want %q", got, want)
	}
}

func TestREPLTabCompletesCommands(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "unused"} })
	e := newEnv(t, openAIConfig(fake.url, "k"))
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send(".se")
	p.expect(replPrompt+".se", replTimeout)
	// Tab lists both candidates below the line (they share no longer
	// prefix), each with its description, and draws the line again.
	for range 2 {
		p.send("\t")
		p.expect(".session  Start or load a session", replTimeout)
		p.expect(".set      Change a setting for this run", replTimeout)
		p.expect(replPrompt+".se", replTimeout)
	}
	// A unique start is completed on the line.
	p.send("s\t\r")
	p.expect(sessionPrompt("temp"), replTimeout)
}

func TestREPLUnknownCommand(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "unused"} })
	e := newEnv(t, openAIConfig(fake.url, "k"))
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send(".frobnicate\r")
	p.expect("\nError: Unknown command. Type \".help\" for additional help.\n", replTimeout)
	p.expectNext(replPrompt)
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("an unknown command sent %d requests to the model", n)
	}
}

func TestREPLCommandInTheWrongStateNamesTheStateItNeeds(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "unused"} })
	e := newEnv(t, openAIConfig(fake.url, "k"))
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send(".undo\r")
	p.expect("\nError: .undo needs an active session (.session NAME)\n", replTimeout)
	p.expectNext(replPrompt)
}

func TestREPLCtrlDLeaves(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "unused"} })
	e := newEnv(t, openAIConfig(fake.url, "k"))
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	// Typing a key first makes sure readline has the terminal in raw mode
	// and reads Ctrl+D itself (its redraw of the line shows it): the
	// prompt may be drawn before that.
	p.send("x")
	p.expect(replPrompt+"x", replTimeout)
	p.send("\x7f\x04") // Backspace, then Ctrl+D on the empty line
	if code := p.waitExit(replTimeout); code != 0 {
		t.Fatalf("Ctrl+D: exit code %d\n%s", code, p.output())
	}
	if _, err := os.Stat(filepath.Join(e.configDir, "sessions")); err == nil {
		t.Fatal("leaving without a session wrote a sessions directory")
	}
}

// What a command prints must not be followed by a redraw of the input
// line. The REPL writes through readline's Stdout wrapper, which redraws
// the line (with the prompt of the previous input) after every write while
// readline's terminal goroutine still counts as reading. Right after Enter
// it briefly does, so the output of a replay, of .info or of a shell
// command can be cut by a stray copy of the previous prompt. Replaying a
// session 200 times shows it a few times.
func TestREPLCommandOutputIsNotCutByAStalePrompt(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "An answer.", Chunks: 2}
	})
	e := newEnv(t, openAIConfig(fake.url, "k"))
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send(".session work\r")
	p.expect(sessionPrompt("work"), replTimeout)
	p.send("a question\r")
	p.expect("An answer.", replTimeout)
	p.expect(sessionPrompt("work"), replTimeout)
	p.send(".save session\r")
	p.expect("Saved session work", replTimeout)
	p.expect(sessionPrompt("work"), replTimeout)
	p.send(".exit session\r")
	p.expect(".exit session\n", replTimeout)
	p.expect(replPrompt, replTimeout)
	const rounds = 200
	cut, example := 0, ""
	for range rounds {
		p.send(".session work\r")
		out := p.expect("An answer.", replTimeout)
		if !strings.Contains(out, "\n"+sessionPrompt("work")+"a question\nAn answer.") {
			cut++
			example = out[strings.LastIndex(out, "a question"):]
		}
		p.expect(sessionPrompt("work"), replTimeout)
		p.send(".exit session\r")
		p.expect(".exit session\n", replTimeout)
		p.expect(replPrompt, replTimeout)
	}
	if cut > 0 {
		t.Fatalf("%d of %d replays were cut by a redraw of the input line, e.g. %q", cut, rounds, example)
	}
}

func TestREPLCtrlOEditsTheLineInTheEditor(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "noted"} })
	e := newEnv(t, openAIConfig(fake.url, "k"))
	editor := filepath.Join(t.TempDir(), "editor.sh")
	// The editor appends to what the line held.
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nprintf '%s' \"$(cat \"$1\") and more from the editor\" > \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.set("EDITOR=" + editor)
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send("draft")
	p.expect("draft", replTimeout)
	p.send("\x0f") // Ctrl+O
	p.expect("draft and more from the editor", replTimeout)
	p.send("\r")
	p.expect("noted", replTimeout)
	reqs := fake.Requests()
	if len(reqs) != 1 || lastText(&reqs[0]) != "draft and more from the editor" {
		t.Fatalf("requests %v", reqs)
	}
}

func TestREPLAsksToSaveAChangedSessionOnExit(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "an answer"} })
	e := newEnv(t, openAIConfig(fake.url, "k"))
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send(".session notes\r")
	p.expect(sessionPrompt("notes"), replTimeout)
	p.send("a question\r")
	p.expect("an answer", replTimeout)
	p.expect(sessionPrompt("notes"), replTimeout)
	p.send(".exit\r")
	p.expect("Save session? [y/N] ", replTimeout)
	p.send("y\r")
	p.expect("Saved session notes", replTimeout)
	if code := p.waitExit(replTimeout); code != 0 {
		t.Fatalf("exit %d", code)
	}
	data, err := os.ReadFile(filepath.Join(e.configDir, "sessions", "notes.yaml"))
	if err != nil || !strings.Contains(string(data), "a question") || !strings.Contains(string(data), "an answer") {
		t.Fatalf("session file: %v\n%s", err, data)
	}
}

func TestREPLDeletePicksFromAList(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "x"} })
	e := newEnv(t, openAIConfig(fake.url, "k"))
	dir := filepath.Join(e.configDir, "roles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"alpha", "beta", "gamma"} {
		if err := os.WriteFile(filepath.Join(dir, n+".md"), []byte("Be "+n+"."), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := e.startPTY()
	p.expect(replPrompt, replTimeout)
	p.send(".delete role\r")
	p.expect("Delete which", replTimeout)
	p.send("1 3\r")
	p.expect("Deleted gamma", replTimeout)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "beta.md" {
		t.Fatalf("left %v", entries)
	}
}
