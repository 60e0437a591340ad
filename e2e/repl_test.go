package e2e

import (
	"context"
	"fmt"
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

// newREPLEnv is an environment whose model is served by a replFake
// answering with respond.
func newREPLEnv(t *testing.T, respond func(n int, r *fakellm.ChatRequest) fakellm.Reply) (*replFake, *env) {
	t.Helper()
	fake := startREPLFake(t, respond)
	return fake, newEnv(t, openAIConfig(fake.url, "k"))
}

// reply answers every request with text.
func reply(text string) func(int, *fakellm.ChatRequest) fakellm.Reply {
	return func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: text} }
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
	fake, e := newREPLEnv(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply {
		if n == 0 {
			return fakellm.Reply{Text: "Coyotes howl to find each other.", Chunks: 3}
		}
		return fakellm.Reply{Text: "At night too.", Chunks: 2}
	})

	p := e.startREPL()
	p.enter(".session work", sessionPrompt("work"))
	p.enter("why do coyotes howl", "Coyotes howl to find each other.", sessionPrompt("work"))
	p.enter(".save session", "Saved session work to "+filepath.Join(e.configDir, "sessions", "work.yaml"), sessionPrompt("work"))
	p.exit()

	// A new run loads the session and shows the conversation so far.
	p = e.startREPL()
	p.enter(".session work", "\n"+sessionPrompt("work")+"why do coyotes howl\n", "Coyotes howl to find each other.", sessionPrompt("work"))
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("replaying the session sent %d requests in all, want the first one only", n)
	}
	// And the next question carries it.
	p.enter("and at night", "At night too.", sessionPrompt("work"))
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
	fake, e := newREPLEnv(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply {
		if n == 0 {
			return slowReply
		}
		return fakellm.Reply{Text: "The whole story, at last.", Chunks: 4}
	})
	p := e.startREPL()
	p.enter(".session work", sessionPrompt("work"))
	p.send("tell me a long story\r")
	p.expect("howl howl", replTimeout) // it streams

	p.send("\x03")
	pressed := time.Now()
	// A quiet note, not an error; what arrived stays on the screen.
	cancelled := p.expect("(cancelled; .recover sends it again)", replTimeout)
	if strings.Contains(cancelled, "Error") {
		t.Fatalf("Ctrl+C showed %q", cancelled)
	}
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

	// The session holds the interrupted turn: what arrived, then the mark.
	p.enter(".info session", "tell me a long story", "howl howl", session.InterruptedReply, sessionPrompt("work"))

	// .recover sends the question again and a whole reply arrives.
	p.enter(".recover", "The whole story, at last.", sessionPrompt("work"))
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
	fake, e := newREPLEnv(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply {
		if n == 0 {
			return slowReply
		}
		return fakellm.Reply{Text: "Back on my feet.", Chunks: 3}
	})
	p := e.startREPL()
	p.enter("tell me a long story", "howl howl")

	first := p.pluginPID("coyote-provider-openai")
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.expect("Error: plugin coyote-provider-openai", replTimeout)
	p.expect("crashed (killed by signal 9", replTimeout)
	p.expect(replPrompt, replTimeout)

	// The next prompt starts the plugin again.
	p.enter("are you back", "Back on my feet.", replPrompt)
	if second := p.pluginPID("coyote-provider-openai"); second == first {
		t.Fatalf("the plugin's pid is still %d", first)
	}
	if got := lastText(&fake.Requests()[1]); got != "are you back" {
		t.Fatalf("second request sent %q", got)
	}
}

func TestREPLShellCommands(t *testing.T) {
	fake, e := newREPLEnv(t, reply("unused"))
	p := e.startREPL()
	p.enter("!echo hi", "\nhi\n", replPrompt)
	p.enter("!false", "\n[exit 1]\n", replPrompt)
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("shell commands sent %d requests to the model", n)
	}
}

func TestREPLMultilineInput(t *testing.T) {
	fake, e := newREPLEnv(t, func(_ int, r *fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "Got " + strconv.Itoa(strings.Count(lastText(r), "\n")+1) + " lines."}
	})
	p := e.startREPL()
	// Each line is sent once the previous one is echoed. An echo can come
	// from the terminal itself, before readline takes the line, so the
	// next line may be typed ahead; the REPL reads them in order.
	p.enter(":::", ":::\n")
	p.expect(".. ", replTimeout) // the continuation prompt
	p.enter("first line", "first line\n")
	p.enter("  second line, indented", "  second line, indented\n")
	p.enter(":::", "Got 2 lines.", replPrompt)
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if got, want := lastText(&reqs[0]), "first line\n  second line, indented"; got != want {
		t.Fatalf("sent %q, want %q", got, want)
	}
}

// Ctrl+J ends the line without sending it: the input goes on on a ".. "
// line and Enter sends the lines together. An Enter typed while a reply
// streams, or just as it ends (the cooked terminal turns it into Ctrl+J's
// byte then), still sends its line.
func TestREPLCtrlJContinuesTheInput(t *testing.T) {
	fake, e := newREPLEnv(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply {
		text := "Reply " + strconv.Itoa(n) + ": " + strconv.Itoa(strings.Count(lastText(r), "\n")+1) + " lines."
		if n == 0 {
			// Slow enough to type the next question while it streams.
			return fakellm.Reply{Text: text + strings.Repeat(" slowly", 40), Chunks: 41, Delay: 50 * time.Millisecond}
		}
		return fakellm.Reply{Text: text}
	})
	p := e.startREPL()
	p.send("first")
	p.expect(replPrompt+"first", replTimeout)
	p.send("\n") // Ctrl+J
	p.expect(".. ", replTimeout)
	p.enter("second", "Reply 0: 2 lines.")
	// The reply is streaming: an Enter typed now is an Enter.
	p.send("typed ahead\r")
	p.expect("Reply 1: 1 lines.", replTimeout)
	// Typed the moment the reply ends, before the prompt is back.
	p.send("third\r")
	p.expect("Reply 2: 1 lines.", replTimeout)
	p.expect(replPrompt, replTimeout)
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range []string{"first\nsecond", "typed ahead", "third"} {
		if got := lastText(&reqs[i]); got != want {
			t.Fatalf("request %d sent %q, want %q", i, got, want)
		}
	}
}

func TestREPLTabCompletesCommands(t *testing.T) {
	_, e := newREPLEnv(t, reply("unused"))
	p := e.startREPL()
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
	fake, e := newREPLEnv(t, reply("unused"))
	p := e.startREPL()
	p.enter(".frobnicate", "\nError: Unknown command. Type \".help\" for additional help.\n")
	p.expectNext(replPrompt)
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("an unknown command sent %d requests to the model", n)
	}
}

func TestREPLCommandInTheWrongStateNamesTheStateItNeeds(t *testing.T) {
	_, e := newREPLEnv(t, reply("unused"))
	p := e.startREPL()
	p.enter(".undo", "\nError: .undo needs an active session (.session NAME)\n")
	p.expectNext(replPrompt)
}

func TestREPLCtrlDLeaves(t *testing.T) {
	_, e := newREPLEnv(t, reply("unused"))
	p := e.startREPL()
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
	_, e := newREPLEnv(t, func(int, *fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "An answer.", Chunks: 2}
	})
	p := e.startREPL()
	p.enter(".session work", sessionPrompt("work"))
	p.enter("a question", "An answer.", sessionPrompt("work"))
	p.enter(".save session", "Saved session work", sessionPrompt("work"))
	p.enter(".exit session", ".exit session\n", replPrompt)
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
		p.enter(".exit session", ".exit session\n", replPrompt)
	}
	if cut > 0 {
		t.Fatalf("%d of %d replays were cut by a redraw of the input line, e.g. %q", cut, rounds, example)
	}
}

func TestREPLCtrlOEditsTheLineInTheEditor(t *testing.T) {
	fake, e := newREPLEnv(t, reply("noted"))
	editor := filepath.Join(t.TempDir(), "editor.sh")
	// The editor appends to what the line held.
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nprintf '%s' \"$(cat \"$1\") and more from the editor\" > \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.set("EDITOR=" + editor)
	p := e.startREPL()
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
	_, e := newREPLEnv(t, reply("an answer"))
	p := e.startREPL()
	p.enter(".session notes", sessionPrompt("notes"))
	p.enter("a question", "an answer", sessionPrompt("notes"))
	p.enter(".exit", "Save session? [y/N] ")
	p.enter("y", "Saved session notes")
	if code := p.waitExit(replTimeout); code != 0 {
		t.Fatalf("exit %d", code)
	}
	data, err := os.ReadFile(filepath.Join(e.configDir, "sessions", "notes.yaml"))
	if err != nil || !strings.Contains(string(data), "a question") || !strings.Contains(string(data), "an answer") {
		t.Fatalf("session file: %v\n%s", err, data)
	}
}

func TestREPLDeletePicksFromAList(t *testing.T) {
	_, e := newREPLEnv(t, reply("x"))
	dir := filepath.Join(e.configDir, "roles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"alpha", "beta", "gamma"} {
		if err := os.WriteFile(filepath.Join(dir, n+".md"), []byte("Be "+n+"."), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := e.startREPL()
	p.enter(".delete role", "Delete which")
	p.enter("1 3", "Deleted gamma")
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "beta.md" {
		t.Fatalf("left %v", entries)
	}
}

// TestREPLModelSetFileAndRegenerate drives the commands that shape the
// next request through the real binary: .model switches the model (and
// the prompt), .set changes a setting on the wire and refuses a bad value
// with a one-line error, .file puts a file before the question, and
// .regenerate sends the same request again.
func TestREPLModelSetFileAndRegenerate(t *testing.T) {
	fake := startREPLFake(t, func(n int, _ *fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "reply " + strconv.Itoa(n+1)}
	})
	e := newEnv(t, openAIConfig(fake.url, "k")+"      - name: gpt-4o\n")
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("The password is swordfish.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const prompt = "fake:gpt-4o)> "
	p := e.startREPL()
	p.enter(".model fake:gpt-4o", prompt)
	p.enter(".set temperature 0.5", prompt)
	p.enter(".set temperature 3", "\nError: .set: temperature must be a number between 0 and 2, not 3\n")
	p.expectNext(prompt)
	p.enter(".file "+notes+" -- what is the password?", "reply 1", prompt)
	p.enter(".regenerate", "reply 2", prompt)
	p.exit()

	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.Model != "gpt-4o" || r.Temperature == nil || *r.Temperature != 0.5 {
			t.Errorf("request %d: model %q, temperature %v; want gpt-4o at 0.5", i+1, r.Model, r.Temperature)
		}
	}
	if sent := lastText(&reqs[0]); !strings.Contains(sent, "The password is swordfish.") || !strings.Contains(sent, "what is the password?") {
		t.Errorf(".file sent %q", sent)
	}
	if a, b := fmt.Sprint(reqs[0].Messages), fmt.Sprint(reqs[1].Messages); a != b {
		t.Errorf(".regenerate sent\n%s\nwant the first request's messages\n%s", b, a)
	}
}

// Ctrl+L clears the screen (erase, cursor home) and keeps the line typed.
func TestREPLCtrlLClearsTheScreen(t *testing.T) {
	_, e := newREPLEnv(t, reply("hi"))
	p := e.startREPL()
	p.send("half a line")
	// Drawn by readline itself (in raw mode), not echoed by the terminal
	// before readline took it: only then does Ctrl+L reach the editor.
	p.expect(replPrompt+"half a line", replTimeout)
	p.send("\x0c")
	p.expect("half a line", replTimeout) // the line is drawn again
	if !strings.Contains(p.rawOutput(), "\x1b[2J\x1b[H") {
		t.Fatalf("Ctrl+L did not erase the screen: %q", p.rawOutput())
	}
	p.send("\x15") // Ctrl+U: drop it
	p.exit()
}

// .continue in a session extends the last reply in place: the session
// keeps every earlier exchange, and the last one holds the whole reply.
func TestREPLContinueInASessionKeepsTheConversation(t *testing.T) {
	fake, e := newREPLEnv(t, func(n int, _ *fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: []string{"One.", "Two, and", " then three."}[min(n, 2)]}
	})
	p := e.startREPL()
	p.enter(".session work", sessionPrompt("work"))
	p.enter("first", "One.", sessionPrompt("work"))
	p.enter("second", "Two, and", sessionPrompt("work"))
	p.enter(".continue", "then three.", sessionPrompt("work"))
	p.enter(".save session", sessionPrompt("work"))
	p.exit()

	reqs := fake.Requests()
	if n := len(reqs); n != 3 {
		t.Fatalf("%d requests", n)
	}
	var sent []string
	for _, m := range reqs[2].Messages {
		sent = append(sent, fmt.Sprint(m["role"], ":", m["content"]))
	}
	if got, want := strings.Join(sent, "|"), "user:first|assistant:One.|user:second|assistant:Two, and"; got != want {
		t.Errorf(".continue sent %s, want %s", got, want)
	}
	data, err := os.ReadFile(filepath.Join(e.configDir, "sessions", "work.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"first", "One.", "second", "Two, and then three."} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the session lacks %q:\n%s", want, data)
		}
	}
}

// .set refuses a number that is not finite with one line naming the key
// and its range, and the next request goes out as before: once accepted,
// NaN made every later request fail to encode (issue 14).
func TestREPLSetRefusesANumberThatIsNotFinite(t *testing.T) {
	fake, e := newREPLEnv(t, reply("still fine"))
	p := e.startREPL()
	p.enter(".set temperature NaN", "\nError: .set: temperature must be a finite number between 0 and 2, not NaN\n")
	p.expectNext(replPrompt)
	p.enter(".set top_p +Inf", "\nError: .set: top_p must be a finite number between 0 and 1, not +Inf\n")
	p.expectNext(replPrompt)
	p.enter("hello", "still fine", replPrompt)
	p.exit()
	reqs := fake.Requests()
	if len(reqs) != 1 || reqs[0].Temperature != nil || reqs[0].TopP != nil {
		t.Fatalf("requests %+v, want one without temperature or top_p", reqs)
	}
}

// .set max_output_tokens (in its own key list, once refused as unknown)
// reaches the request: an OpenAI-compatible API gets max_tokens (issue 13).
func TestREPLSetMaxOutputTokensReachesTheRequest(t *testing.T) {
	fake, e := newREPLEnv(t, reply("short"))
	p := e.startREPL()
	p.enter("before", "short", replPrompt)
	p.enter(".set max_output_tokens 64", replPrompt)
	p.enter("after", "short", replPrompt)
	p.exit()
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if _, ok := reqs[0].Raw["max_tokens"]; ok {
		t.Fatalf("max_tokens sent before .set: %v", reqs[0].Raw)
	}
	if got := reqs[1].Raw["max_tokens"]; got != float64(64) {
		t.Fatalf("max_tokens after .set = %v (%T), want 64; request %v", got, got, reqs[1].Raw)
	}
	if _, ok := reqs[1].Raw["max_completion_tokens"]; ok {
		t.Fatalf("max_completion_tokens sent to an OpenAI-compatible API: %v", reqs[1].Raw)
	}
}
