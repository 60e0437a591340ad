package e2e

// How coyote writes files, seen from outside: two coyotes on the same
// session, vault or mcp.json lose nothing, and private files are private.

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/kernel/session"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// heldFake answers each question with "reply to <question>", holding the
// answer to one question until release is called.
type heldFake struct {
	*fakellm.OpenAI
	url     string
	asked   chan struct{} // closed when the held question arrives
	release func()
}

func startHeldFake(t *testing.T, held string) *heldFake {
	h := &heldFake{asked: make(chan struct{})}
	gate := make(chan struct{})
	var once, askedOnce sync.Once
	h.release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(h.release)
	h.OpenAI = &fakellm.OpenAI{Respond: func(r *fakellm.ChatRequest) fakellm.Reply {
		q := lastText(r)
		if q == held {
			askedOnce.Do(func() { close(h.asked) })
			<-gate
		}
		return fakellm.Reply{Text: "reply to " + q}
	}}
	h.url = fakellm.StartOpenAI(t, h.OpenAI)
	return h
}

// startCoyote starts coyote in the background; wait returns its result.
func (e *env) startCoyote(args ...string) (wait func() result) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cmd := e.command(ctx, "", args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		cancel()
		e.t.Fatal(err)
	}
	done := make(chan result, 1)
	go func() {
		err := cmd.Wait()
		cancel()
		done <- result{stdout: out.String(), stderr: errOut.String(), code: exitCode(err)}
	}()
	e.t.Cleanup(func() { _ = cmd.Process.Kill() })
	return func() result { return <-done }
}

// sessionTurns is the conversation the named session's file holds.
func sessionTurns(t *testing.T, e *env, name string) []string {
	t.Helper()
	s, err := (&session.Store{Dir: filepath.Join(e.configDir, "sessions")}).Load(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range s.Messages() {
		out = append(out, string(m.Role)+":"+m.Text())
	}
	return out
}

// Issue 14: `coyote -s s "A" & coyote -s s "B"` keeps both turns. A's
// reply is held until B has loaded, answered and saved the session, so A
// saves last, over a file that changed since it loaded it.
func TestTwoOneShotsOnOneSessionKeepBothTurns(t *testing.T) {
	fake := startHeldFake(t, "A")
	e := newEnv(t, openAIConfig(fake.url, "k"))
	e.mustSucceed(e.run("", "-s", "s", "zero"))

	waitA := e.startCoyote("-s", "s", "A")
	<-fake.asked // A has loaded the session and is waiting for its reply
	rB := e.run("", "-s", "s", "B")
	e.mustSucceed(rB)
	fake.release()
	rA := waitA()
	e.mustSucceed(rA)
	if rA.stdout != "reply to A\n" || rB.stdout != "reply to B\n" {
		t.Fatalf("stdout A %q, B %q", rA.stdout, rB.stdout)
	}
	want := []string{"user:zero", "assistant:reply to zero", "user:B", "assistant:reply to B", "user:A", "assistant:reply to A"}
	if got := sessionTurns(t, e, "s"); !slices.Equal(got, want) {
		t.Fatalf("the session holds %q\nwant %q\nstderr A: %s", got, want, rA.stderr)
	}
	// The next turn carries all of them.
	e.mustSucceed(e.run("", "-s", "s", "C"))
	last := fake.Requests()[len(fake.Requests())-1]
	if len(last.Messages) != 7 {
		t.Fatalf("the next turn sent %d messages, want 7", len(last.Messages))
	}
	assertNoTempFiles(t, filepath.Join(e.configDir, "sessions"))
}

// Two one-shots that both empty one session (--empty-session) have both
// rewritten its history, which no merge can join: the one that saves last
// keeps its conversation as <name>-conflict-1 and says so in one line, and
// the other's stays under the name (issue 14). A's reply is held until B
// has saved, so A is the one that saves last.
func TestTwoOneShotsThatBothRewriteASessionKeepBoth(t *testing.T) {
	fake := startHeldFake(t, "A")
	e := newEnv(t, openAIConfig(fake.url, "k"))
	e.mustSucceed(e.run("", "-s", "s", "zero"))

	waitA := e.startCoyote("-s", "s", "--empty-session", "A")
	<-fake.asked // A has loaded and emptied the session, and waits for its reply
	e.mustSucceed(e.run("", "-s", "s", "--empty-session", "B"))
	fake.release()
	rA := waitA()
	if rA.stdout != "reply to A\n" {
		t.Fatalf("stdout A %q", rA.stdout)
	}
	line := oneLineError(t, rA)
	if !regexp.MustCompile(`^Error: session "s" was changed by another coyote \(pid \d+\) since it was loaded, and both rewrote its history \(\.compress, \.empty or \.undo\); this one was saved as "s-conflict-1" instead, so nothing is lost$`).MatchString(line) {
		t.Fatalf("stderr A %q", line)
	}
	for name, want := range map[string][]string{
		"s":            {"user:B", "assistant:reply to B"},
		"s-conflict-1": {"user:A", "assistant:reply to A"},
	} {
		if got := sessionTurns(t, e, name); !slices.Equal(got, want) {
			t.Errorf("session %s holds %q, want %q", name, got, want)
		}
	}
	assertNoTempFiles(t, filepath.Join(e.configDir, "sessions"))
}

// A REPL holding a session keeps the turn a one-shot added meanwhile.
func TestREPLAndOneShotOnOneSessionKeepBothTurns(t *testing.T) {
	fake := startHeldFake(t, "never held")
	e := newEnv(t, "save_session: true\n"+openAIConfig(fake.url, "k"))
	e.mustSucceed(e.run("", "-s", "s", "zero"))
	p := e.startPTY("-s", "s")
	p.expect(sessionPrompt("s"), replTimeout)
	p.enter("from the repl", "reply to from the repl", sessionPrompt("s"))
	e.mustSucceed(e.run("", "-s", "s", "from a one-shot"))
	p.enter("again from the repl", "reply to again from the repl", sessionPrompt("s"))
	p.exit()
	got := sessionTurns(t, e, "s")
	for _, q := range []string{"zero", "from the repl", "from a one-shot", "again from the repl"} {
		if !slices.Contains(got, "user:"+q) || !slices.Contains(got, "assistant:reply to "+q) {
			t.Fatalf("the session lost %q: %q", q, got)
		}
	}
}

// Issue 14: two --add-secret at once keep both secrets (and any number).
func TestConcurrentAddSecretKeepsEverySecret(t *testing.T) {
	e := newEnv(t, "vault_password_file: "+vaultPassword(t)+"\n")
	const n = 5
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i] = e.run(fmt.Sprintf("value %d\n", i), "--add-secret", fmt.Sprintf("KEY_%d", i)) })
	}
	wg.Wait()
	for _, r := range results {
		e.mustSucceed(r)
	}
	r := e.run("", "--list-secrets")
	if r.stdout != "KEY_0\nKEY_1\nKEY_2\nKEY_3\nKEY_4\n" {
		t.Fatalf("--list-secrets: %q", r.stdout)
	}
	for i := range n {
		if r := e.run("", "--get-secret", fmt.Sprintf("KEY_%d", i)); r.stdout != fmt.Sprintf("value %d\n", i) {
			t.Fatalf("KEY_%d: %q %s", i, r.stdout, r.stderr)
		}
	}
	assertNoTempFiles(t, e.configDir)
}

// Issue 14: two --mcp-add at once keep both servers.
func TestConcurrentMCPAddKeepsEveryServer(t *testing.T) {
	e := newEnv(t, "")
	const n = 5
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i] = e.run("", "--mcp-add", fmt.Sprintf("server-%d", i), "--mcp-force", "--", "echo", fmt.Sprint(i))
		})
	}
	wg.Wait()
	for _, r := range results {
		e.mustSucceed(r)
	}
	r := e.run("", "--mcp-list")
	e.mustSucceed(r)
	for i := range n {
		if !strings.Contains(r.stdout, fmt.Sprintf("server-%d", i)) {
			t.Fatalf("server-%d is missing:\n%s", i, r.stdout)
		}
	}
}

// Issue 13: without a terminal and without a password file,
// --add-secret creates the file with a generated password and says where.
func TestAddSecretWithoutATerminalCreatesThePasswordFile(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "secrets", "vault-password")
	e := newEnv(t, "vault_password_file: "+pw+"\n")
	r := e.run("sk-value\n", "--add-secret", "KEY")
	e.mustSucceed(r)
	if !strings.Contains(r.stderr, "Created the vault password file "+pw+" (mode 0600)") {
		t.Fatalf("stderr %q", r.stderr)
	}
	st, err := os.Stat(pw)
	if err != nil || st.Mode().Perm() != 0o600 || st.Size() < 32 {
		t.Fatalf("password file: %v %v", st, err)
	}
	if r := e.run("", "--get-secret", "KEY"); r.stdout != "sk-value\n" {
		t.Fatalf("--get-secret: %q %s", r.stdout, r.stderr)
	}
	// The vault is the original's format, with the original's costs.
	data, _ := os.ReadFile(filepath.Join(e.configDir, "vault.yml"))
	if !bytes.Contains(data, []byte("KEY: $VAULT;v1;argon2id;m=19456,t=2,p=1;salt=")) {
		t.Fatalf("vault.yml:\n%s", data)
	}
	// A second secret uses the same file, without a new message.
	r = e.run("other\n", "--add-secret", "OTHER")
	e.mustSucceed(r)
	if strings.Contains(r.stderr, "Created") {
		t.Fatalf("stderr %q", r.stderr)
	}
}

// Issue 14: what coyote writes about the user is private: sessions, the
// REPL history, the log and messages.md (even ones an older version left
// open), the vault, mcp.json are 0600, their folders 0700.
func TestPrivateFilesArePrivate(t *testing.T) {
	fake := startHeldFake(t, "never held")
	pw := filepath.Join(t.TempDir(), "pw")
	e := newEnv(t, "save: true\nvault_password_file: "+pw+"\n"+openAIConfig(fake.url, "k"))
	historyDir := filepath.Join(e.cacheDir, "repl-history")
	os.MkdirAll(historyDir, 0o755)
	os.Chmod(historyDir, 0o755)
	for _, old := range []string{filepath.Join(historyDir, "history.txt"), filepath.Join(e.cacheDir, "coyote.log"), filepath.Join(e.cacheDir, "messages.md")} {
		os.WriteFile(old, []byte("an old prompt\n"), 0o644)
		os.Chmod(old, 0o644)
	}

	e.mustSucceed(e.run("", "-s", "work", "hello"))
	e.mustSucceed(e.run("", "a question saved in messages.md"))
	e.mustSucceed(e.run("v\n", "--add-secret", "KEY"))
	e.mustSucceed(e.run("", "--mcp-add", "srv", "--", "echo"))
	p := e.startREPL()
	p.enter("a prompt for the history", "reply to a prompt for the history", replPrompt)
	p.exit()

	files := map[string]fs.FileMode{
		filepath.Join(e.configDir, "sessions", "work.yaml"): 0o600,
		filepath.Join(e.configDir, "sessions"):              0o700,
		filepath.Join(historyDir, "history.txt"):            0o600,
		historyDir:                                          0o700,
		filepath.Join(e.configDir, "vault.yml"):             0o600,
		pw:                                                  0o600,
		filepath.Join(e.configDir, "functions", "mcp.json"):   0o600,
		filepath.Join(e.cacheDir, "coyote.log"):               0o600,
		filepath.Join(e.cacheDir, "messages.md"):              0o600,
		fsx.LockPath(filepath.Join(e.configDir, "vault.yml")): 0o600,
	}
	for path, want := range files {
		st, err := os.Stat(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %04o, want %04o", path, st.Mode().Perm(), want)
		}
	}
	history, _ := os.ReadFile(filepath.Join(historyDir, "history.txt"))
	if !strings.Contains(string(history), "an old prompt") || !strings.Contains(string(history), "a prompt for the history") {
		t.Fatalf("history holds %q", history)
	}
}

// assertNoTempFiles fails when an atomic write left a temporary file in
// dir.
func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, en := range entries {
		if strings.Contains(en.Name(), ".tmp-") {
			t.Errorf("temporary file left in %s: %s", dir, en.Name())
		}
	}
}
