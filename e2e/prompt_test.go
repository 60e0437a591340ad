package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// openAIConfig points an openai-compatible client named "fake" at url.
func openAIConfig(url, key string) string {
	return fmt.Sprintf(`
model: fake:gpt-4o-mini
clients:
  - type: openai-compatible
    name: fake
    api_base: %s
    api_key: %s
    models:
      - name: gpt-4o-mini
`, url, key)
}

func TestOneShotPromptStreamsThroughTheOpenAIPlugin(t *testing.T) {
	fake := &fakellm.OpenAI{APIKey: "sk-test", Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "Coyotes are clever and adaptable.", Chunks: 7}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, openAIConfig(url, "sk-test"))
	r := e.run("", "tell", "me", "about", "coyotes")
	e.mustSucceed(r)
	if r.stdout != "Coyotes are clever and adaptable.\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	req := reqs[0]
	if req.Model != "gpt-4o-mini" || !req.Stream || req.Authorization != "Bearer sk-test" {
		t.Fatalf("request: model=%q stream=%v auth=%q", req.Model, req.Stream, req.Authorization)
	}
	if len(req.Messages) != 1 || req.Messages[0]["role"] != "user" || req.Messages[0]["content"] != "tell me about coyotes" {
		t.Fatalf("messages = %v", req.Messages)
	}
}

func TestStdinIsAppendedToTheArguments(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"text and stdin", []string{"summarize"}, "line one\nline two\n", "summarize\nline one\nline two"},
		{"stdin only", nil, "just stdin", "just stdin"},
		{"text only", []string{"-m", "fake:gpt-4o-mini", "just", "--text"}, "", "just --text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := answering("ok")
			e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "k"))
			e.mustSucceed(e.run(tt.stdin, tt.args...))
			if got := fake.Requests()[0].Messages[0]["content"]; got != tt.want {
				t.Fatalf("sent %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNoStreamFlagMakesOneRequestWithoutStreaming(t *testing.T) {
	fake := answering("whole answer")
	e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "k"))
	r := e.run("", "-S", "hi")
	e.mustSucceed(r)
	if r.stdout != "whole answer\n" || fake.Requests()[0].Stream {
		t.Fatalf("stdout %q, stream %v", r.stdout, fake.Requests()[0].Stream)
	}
}

// The reply must reach stdout while the server is still sending: the fake
// holds the rest of the stream until the test has read the first part.
func TestReplyReachesStdoutAsItArrives(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(s string) {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", s)
			w.(http.Flusher).Flush()
		}
		chunk("first ")
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		chunk("second")
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	defer close(release)
	e := newEnv(t, openAIConfig(srv.URL, "k"))
	cmd := e.command(context.Background(), "", "hi")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	words := lines(stdout)
	if w := <-words; w != "first" {
		t.Fatalf("first word %q", w)
	}
	release <- struct{}{}
	if w := <-words; w != "second" {
		t.Fatalf("second word %q", w)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestAPIErrorsAreOneLineAndExit1(t *testing.T) {
	tests := []struct {
		name  string
		reply fakellm.Reply
		key   string
		want  []string
	}{
		{name: "401", key: "sk-wrong", want: []string{"401", `the API key of client "fake" comes from`, "config.yaml line"}},
		{name: "404 model", reply: fakellm.Reply{Status: 404}, want: []string{"404", "gpt-4o-mini", "coyote --list-models"}},
		{name: "429", reply: fakellm.Reply{Status: 429, RetryAfter: "7"}, want: []string{"429", "try again"}},
		{name: "500", reply: fakellm.Reply{Status: 500}, want: []string{"500"}},
		{name: "malformed stream", reply: fakellm.Reply{Text: "a b c d e f", Malformed: true}, want: []string{"malformed"}},
		{name: "truncated stream", reply: fakellm.Reply{Text: "a b c d e f", Truncate: true}, want: []string{"ended before"}},
		{name: "error inside the stream", reply: fakellm.Reply{Text: "a b c d", StreamError: "the model is overloaded"}, want: []string{"the model is overloaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakellm.OpenAI{APIKey: "sk-right", Respond: func(*fakellm.ChatRequest) fakellm.Reply { return tt.reply }}
			key := tt.key
			if key == "" {
				key = "sk-right"
			}
			e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), key))
			line := oneLineError(t, e.run("", "hi"))
			for _, w := range tt.want {
				if !strings.Contains(line, w) {
					t.Errorf("stderr %q lacks %q", line, w)
				}
			}
			if strings.Contains(line, "sk-wrong") || strings.Contains(line, "sk-right") {
				t.Errorf("the API key leaked into the error: %q", line)
			}
		})
	}
}

func TestUnreachableServerIsAnErrorNotAHang(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	e := newEnv(t, openAIConfig(url+"/v1", "k"))
	line := oneLineError(t, e.run("", "hi"))
	if !strings.Contains(line, url) {
		t.Fatalf("stderr %q does not name the server", line)
	}
}

func TestEnvironmentAloneIsEnoughToSendAPrompt(t *testing.T) {
	fake := &fakellm.OpenAI{APIKey: "sk-env", Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "from env"} }}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, "").set("COYOTE_PROVIDER=openai", "OPENAI_API_KEY=sk-env", "OPENAI_API_BASE="+url, "COYOTE_MODEL=openai:gpt-4o-mini")
	r := e.run("", "hi")
	e.mustSucceed(r)
	if r.stdout != "from env\n" {
		t.Fatalf("stdout %q", r.stdout)
	}
}

func TestEnvKeyBeatsTheConfigFileAndIsNamedOnFailure(t *testing.T) {
	fake := &fakellm.OpenAI{APIKey: "sk-right"}
	e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "sk-right")).set("FAKE_API_KEY=sk-stale")
	line := oneLineError(t, e.run("", "hi"))
	if !strings.Contains(line, "environment variable FAKE_API_KEY") {
		t.Fatalf("stderr %q does not name the variable", line)
	}
}

func TestNoConfigurationSaysHowToConfigure(t *testing.T) {
	e := newEnv(t, "")
	line := oneLineError(t, e.run("", "hi"))
	for _, w := range []string{"config.yaml does not exist", "COYOTE_PROVIDER", "OPENAI_API_KEY"} {
		if !strings.Contains(line, w) {
			t.Errorf("stderr %q lacks %q", line, w)
		}
	}
}

// With nothing to ask and no terminal for the REPL, coyote says so and
// fails, instead of printing its help as if it were the answer.
func TestNothingToAskIsAnErrorNotHelp(t *testing.T) {
	for _, withConfig := range []bool{false, true} {
		cfg := ""
		if withConfig {
			cfg = testingConfig
		}
		e := newEnv(t, cfg)
		tests := []struct {
			name  string
			stdin string
			args  []string
			want  string
		}{
			{"empty stdin", "", nil, "nothing to ask: give a prompt, pipe input, or run in a terminal for the REPL"},
			{"empty text", "", []string{""}, "nothing to ask: give a prompt"},
			{"blank text", "  \n", []string{"   "}, "nothing to ask: give a prompt"},
			{"question taken as the session", "", []string{"-s", "what is a monad"},
				`"what is a monad" was taken as the session's name (-s takes an optional name); to ask it, name the session first: coyote -s temp "what is a monad"`},
		}
		for _, tt := range tests {
			line := oneLineError(t, e.run(tt.stdin, tt.args...))
			if !strings.Contains(line, tt.want) {
				t.Errorf("config %v, %s: stderr %q, want %q", withConfig, tt.name, line, tt.want)
			}
		}
	}
}

// In a terminal, -s with one word opens the REPL in that session and says
// which session it is.
func TestSessionWordInATerminalSaysWhichSessionOpened(t *testing.T) {
	e := newEnv(t, testingConfig)
	p := e.startPTY("-s", "what is a monad")
	p.expect(`Session "what is a monad" (-s takes the word after it as the session's name).`, replTimeout)
	p.expect("what is a monad)", replTimeout)
	p.exit()
}

// The example config that ships in assets/ must load and point the way.
func TestExampleConfigLoads(t *testing.T) {
	b, err := os.ReadFile("../assets/config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The openai client lists no models and cannot be asked (no network
	// here), so the catalog's are listed.
	r := newEnv(t, string(b)).set("OPENAI_API_BASE="+deadURL(t)).run("", "--list-models")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "openai:") || !strings.HasSuffix(r.stdout, "\nollama:llama3.1\n") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A local server whose models nobody listed: --list-models and a bare
// client name ask the server.
func TestLiveModelsOfAnUnlistedLocalServer(t *testing.T) {
	fake := &fakellm.OpenAI{Models: []string{"qwen3:8b", "nomic-embed-text"}}
	url := fakellm.StartOpenAI(t, fake)
	cfg := fmt.Sprintf("clients:\n  - type: openai-compatible\n    name: local\n    api_base: %s\n", url)
	e := newEnv(t, cfg)
	r := e.run("", "--list-models")
	e.mustSucceed(r)
	if r.stdout != "local:qwen3:8b\n" {
		t.Fatalf("--list-models printed %q", r.stdout)
	}
	r = e.run("", "-m", "local", "hi")
	e.mustSucceed(r)
	if got := fake.Requests()[0].Model; got != "qwen3:8b" {
		t.Fatalf("asked model %q", got)
	}
}

func TestCatalogModelsAreListedForClientsWithoutModels(t *testing.T) {
	// Neither can be asked (no network here): the catalog's models are
	// listed.
	e := newEnv(t, "clients:\n  - type: claude\n    api_key: x\n  - type: openai-compatible\n    name: groq\n").
		set("CLAUDE_API_BASE="+deadURL(t), "GROQ_API_BASE="+deadURL(t))
	r := e.run("", "--list-models")
	e.mustSucceed(r)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var claude, groq int
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "claude:"):
			claude++
		case strings.HasPrefix(l, "groq:"):
			groq++
		default:
			t.Fatalf("unexpected line %q", l)
		}
	}
	if claude < 5 || groq < 2 {
		t.Fatalf("claude %d, groq %d models:\n%s", claude, groq, r.stdout)
	}
}

func TestFilesGlobsAndCommandsAreSentWithThePrompt(t *testing.T) {
	fake := answering("ok")
	e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "k"))
	work := t.TempDir()
	for name, body := range map[string]string{"a.go": "package a", "sub/b.go": "package b", "c.txt": "not go"} {
		p := filepath.Join(work, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := e.command(context.Background(), "", "-f", filepath.Join(work, "**", "*.go"), "-f", "`echo from the shell`", "review", "these")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	got := fake.Requests()[0].Messages[0]["content"]
	want := "==> " + filepath.Join(work, "a.go") + " <==\npackage a\n\n==> " + filepath.Join(work, "sub", "b.go") +
		" <==\npackage b\n\n==> `echo from the shell` <==\nfrom the shell\n\nreview these"
	if got != want {
		t.Fatalf("sent %q\nwant %q", got, want)
	}
}

// In a terminal, a request waiting to be tried again says so, instead of
// a silent pause; in a pipe only the outcome shows.
func TestRetriesAreAnnouncedInATerminal(t *testing.T) {
	var calls atomic.Int32
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		if calls.Add(1) == 1 {
			return fakellm.Reply{Status: 503}
		}
		return fakellm.Reply{Text: "recovered"}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, openAIConfig(url, "k"))
	p := e.startPTY("hi")
	p.expect("503 Service Unavailable", replTimeout)
	p.expect("; retrying in 1 s (2/3)…", replTimeout)
	p.expect("recovered", replTimeout)
	if code := p.waitExit(replTimeout); code != 0 {
		t.Fatalf("exit %d", code)
	}
	calls.Store(0)
	r := e.run("", "hi")
	e.mustSucceed(r)
	if r.stdout != "recovered\n" || strings.Contains(r.stderr, "retrying") {
		t.Fatalf("piped: stdout %q stderr %q", r.stdout, r.stderr)
	}
}

// Bytes that are not UTF-8 never reach the plugin (protobuf refuses them
// with a raw error): prompt text has them replaced, with one warning; a
// role file is refused with its line; a bad tool file is left out, by
// name, and the other tools still work.
func TestTextThatIsNotUTF8(t *testing.T) {
	fake := answering("fine")
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, "enabled_tools: all\n"+fakeConfig(url, ""))
	e.writeFiles(map[string]string{
		"roles/latin1.md":              "---\ntemperature: 0.2\n---\nYou are a caf\xe9.\n",
		"functions/tools/bad_tool.sh":  "#!/usr/bin/env bash\n# @describe Caf\xe9 tool.\nmain() { :; }\n",
		"functions/tools/good_tool.sh": "#!/usr/bin/env bash\n# @describe A good tool.\nmain() { :; }\n",
	})
	r := e.run("piped caf\xe9\n", "what", "is", "a", "caf\xe9")
	e.mustSucceed(r)
	if r.stdout != "fine\n" || strings.Count(r.stderr, "not UTF-8") != 2 {
		t.Fatalf("stdout %q stderr %q", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "warning: the prompt had bytes that are not UTF-8 text; each was replaced by \uFFFD") ||
		!strings.Contains(r.stderr, "bad_tool.sh:2: not UTF-8 text") {
		t.Fatalf("stderr %q", r.stderr)
	}
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	if got := lastText(&last); got != "what is a caf\uFFFD\npiped caf\uFFFD" {
		t.Fatalf("sent %q", got)
	}
	if tools := offered(&last); !slices.Contains(tools, "good_tool") || slices.Contains(tools, "bad_tool") {
		t.Fatalf("tools offered: %v", tools)
	}

	r = e.run("", "--prompt", "be \xff brief", "hi")
	e.mustSucceed(r)
	if !strings.Contains(r.stderr, "--prompt had bytes that are not UTF-8 text") {
		t.Fatalf("--prompt: stderr %q", r.stderr)
	}
	line := oneLineError(t, e.run("", "-r", "latin1", "hi"))
	if !strings.Contains(line, filepath.Join(e.configDir, "roles", "latin1.md")+":4: not UTF-8 text; save the file as UTF-8") {
		t.Fatalf("role: %q", line)
	}
}

// A 5xx whose body is not in the API's error shape says the status and
// what the body says, on one line: of a proxy's HTML page, the first line
// of text that says more than the status; a short plain-text body whole.
// A user told only "502 Bad Gateway" cannot tell a crashed server from a
// misrouted request (issue 13).
func TestAServerErrorOutsideTheAPIsShapeSaysWhatItsBodySays(t *testing.T) {
	tests := []struct {
		status      int
		contentType string
		body        string
		want        string
	}{
		{http.StatusBadGateway, "text/html",
			"<html><head><title>502 Bad Gateway</title></head><body>\n<h1>502 Bad Gateway</h1>\n<p>upstream llm-7 refused the connection</p>\n<hr><center>nginx</center></body></html>\n",
			"502 Bad Gateway: upstream llm-7 refused the connection"},
		{http.StatusServiceUnavailable, "text/plain",
			"upstream connect error or disconnect/reset before headers\nreset reason: connection termination\n",
			"503 Service Unavailable: upstream connect error or disconnect/reset before headers reset reason: connection termination"},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			e := newEnv(t, openAIConfig(srv.URL, "k"))
			line := oneLineError(t, e.run("", "hi"))
			if want := `Error: openai-compatible client "fake": ` + tt.want; line != want {
				t.Fatalf("stderr %q\nwant   %q", line, want)
			}
		})
	}
}
