package repl

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/iostreams"
	"github.com/coyote-cli/coyote/kernel/macro"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/kernel/repl/prompt"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/provider"
)

const testConfig = `model: fake:small
clients:
  - type: openai-compatible
    name: fake
    api_base: http://127.0.0.1:1/v1
    models:
      - name: small
        supports_function_calling: true
      - name: thinker
        reasoning_levels: [low, high]
`

// newTestREPL returns a REPL over a temporary config directory with one
// user role and one saved session; nothing in it can reach a plugin.
func newTestREPL(t *testing.T) (*REPL, *iostreams.IOStreams) {
	t.Helper()
	dir := t.TempDir()
	env := func(k string) string {
		return map[string]string{"COYOTE_CONFIG_DIR": dir, "COYOTE_CACHE_DIR": filepath.Join(dir, "cache"),
			"COYOTE_WORKSPACE_CONFIG_DIR": filepath.Join(dir, "ws", ".coyote")}[k]
	}
	p, err := config.ResolvePaths(env)
	if err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(p.ConfigFile, testConfig)
	write(filepath.Join(p.RolesDir, "poet.md"), "---\ntemperature: 0.9\n---\nWrite in verse.\n")
	write(filepath.Join(p.SessionsDir, "work.yaml"), "model: fake:small\nmessages:\n- role: user\n  content: hi\n- role: assistant\n  content: hello\n")
	cfg, err := config.Load(p, env)
	if err != nil {
		t.Fatal(err)
	}
	io, _, _, _ := iostreams.Test()
	st := convo.New(convo.Deps{Paths: p, Config: cfg, Host: func() (*plugins.Host, error) {
		t.Fatal("a plugin was asked for")
		return nil, nil
	}})
	st.Tools = tools.NewRegistry()
	for _, n := range []string{"fs_read", "fs_ls", "get_current_time"} {
		st.Tools.Add(&tools.Func{Name: n, Description: "does " + n, Source: "script"})
	}
	for _, f := range tools.UserFuncs(nil) {
		st.Tools.Add(f)
	}
	macroDirs := macro.Dirs{Global: p.MacrosDir, Workspace: filepath.Join(p.WorkspaceDir, "macros")}
	r := New(Options{IO: io, Conv: st, Env: env, Display: func() chat.Display { return chat.Plain(io.Out) }, MacroDirs: macroDirs})
	return r, io
}

func TestRegistryHasNoDuplicatesAndEveryCommandRuns(t *testing.T) {
	reg := newRegistry(commands()) // panics on a duplicate
	for _, c := range reg.cmds {
		if c.run == nil || c.Help == "" || !strings.HasPrefix(c.Name, ".") {
			t.Errorf("command %q: run or help missing", c.Name)
		}
	}
}

func TestLookupPrefersTwoWordCommands(t *testing.T) {
	reg := newRegistry(commands())
	tests := []struct{ line, name, rest string }{
		{".info", ".info", ""},
		{".info role", ".info role", ""},
		{".info   session ", ".info session", ""},
		{".info tools", ".info", "tools"},
		{".save session mine", ".save session", "mine"},
		{".role poet write a haiku", ".role", "poet write a haiku"},
		{".exit", ".exit", ""},
		{".exit role", ".exit role", ""},
	}
	for _, tt := range tests {
		c, rest, ok := reg.Lookup(tt.line)
		if !ok || c.Name != tt.name || rest != tt.rest {
			t.Errorf("Lookup(%q) = %v %q %v, want %q %q", tt.line, c, rest, ok, tt.name, tt.rest)
		}
	}
	for _, line := range []string{".nope", ".infos", ".sessions"} {
		if _, _, ok := reg.Lookup(line); ok {
			t.Errorf("Lookup(%q) found a command", line)
		}
	}
}

func TestGuards(t *testing.T) {
	reg := newRegistry(commands())
	tests := []struct {
		cmd   string
		state State
		want  string // "" = allowed
	}{
		{".undo", 0, ".undo needs an active session (.session NAME)"},
		{".undo", StSession, ".undo needs a session with messages"},
		{".undo", StSession | StNonEmpty, ""},
		{".session", StSession, ".session needs no active session (.exit session first)"},
		{".session", StRole, ""},
		{".role", StSession | StNonEmpty, ".role needs no active session (.exit session first)"},
		{".info role", 0, ".info role needs an active role (.role NAME)"},
		{".edit role", StRole | StSession, ".edit role needs no active session (.exit session first)"},
		{".save role", StRole | StSession, ""},
		{".reasoning", 0, ".reasoning needs a model with reasoning levels"},
		{".sources rag", StSession, ".sources rag needs an active RAG (.rag NAME)"},
		{".rag", StRAG, ".rag needs no active RAG (.exit rag first)"},
		{".help", StRole | StSession | StAgent, ""},
	}
	for _, tt := range tests {
		err := reg.byName[tt.cmd].guard(tt.state)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("guard(%s, %b) = %q, want %q", tt.cmd, tt.state, got, tt.want)
		}
	}
}

func TestHelpListsOnlyWhatApplies(t *testing.T) {
	reg := newRegistry(commands())
	plain := reg.help(0)
	inSession := reg.help(StSession | StNonEmpty)
	for _, c := range []struct {
		text, line string
		want       bool
	}{
		{plain, ".session [name]", true},
		{plain, ".undo", false},
		{plain, ".info role", false},
		{inSession, ".undo", true},
		{inSession, ".session [name]", false},
		{inSession, ".prompt", false},
	} {
		if got := strings.Contains(c.text, "\n"+c.line+" ") || strings.HasPrefix(c.text, c.line+" "); got != c.want {
			t.Errorf("help has %q = %v, want %v", c.line, got, c.want)
		}
	}
}

func TestComplete(t *testing.T) {
	r, _ := newTestREPL(t)
	names := func(cs []Candidate) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Value)
		}
		return out
	}
	tests := []struct {
		line  string
		state State
		want  []string
		word  int
	}{
		{".se", 0, []string{".session", ".set"}, 3},
		{".se", StSession, []string{".set"}, 3},
		{".un", 0, nil, 3},
		{".un", StSession | StNonEmpty, []string{".undo"}, 3},
		{".info ", StRole, []string{"role", "todo", "skills"}, 0},
		{".info s", StSession, []string{"session", "skills"}, 1},
		{".exit ", StRole, []string{"role"}, 0},
		{".exit ", StRole | StSession, []string{"session"}, 0},
		{".model fake:", 0, []string{"fake:small", "fake:thinker"}, 5},
		{".role p", 0, []string{"poet"}, 1},
		{".session w", 0, []string{"work"}, 1},
		{".set enabled_s", 0, []string{"enabled_skills"}, 9},
		{".set enabled_m", 0, []string{"enabled_mcp_servers", "enabled_macros"}, 9},
		{".set stream ", 0, []string{"true", "false", "null"}, 0},
		{".set enabled_tools a", 0, []string{"all"}, 1},
		{".list r", 0, []string{"roles", "rags"}, 1},
		{".list roles ", 0, nil, 0},
		{".delete s", 0, []string{"session", "skill"}, 1},
		{".delete m", 0, []string{"macro"}, 1},
		{".vault ", 0, []string{"add", "get", "update", "delete", "list"}, 0},
		{".reasoning ", StReasoning, nil, 0}, // fake:small has no levels
		{"hello .se", 0, nil, 0},
		{".nope x", 0, nil, 1},
		// Fuzzy, when nothing starts with what is typed: the letters in
		// order, the first one starting the word.
		{".ssn", 0, []string{".session"}, 4},
		{".rgnrt", 0, []string{".regenerate"}, 6},
		{".set rgtop", 0, []string{"rag_top_k"}, 5},
		{".set enbld_tls", 0, []string{"enabled_tools"}, 9},
		{".list mcsrv", 0, []string{"mcp-servers"}, 5},
		{".zzz", 0, nil, 4},
		{".set xtemp", 0, nil, 5},
	}
	for _, tt := range tests {
		got, word := r.Complete(tt.line, len(tt.line), tt.state)
		if !reflect.DeepEqual(names(got), tt.want) || word != tt.word {
			t.Errorf("Complete(%q, %b) = %q (word %d), want %q (word %d)", tt.line, tt.state, names(got), word, tt.want, tt.word)
		}
	}
}

func TestCompletionSourcesAreLive(t *testing.T) {
	r, _ := newTestREPL(t)
	if got, _ := r.Complete(".role n", 7, 0); len(got) != 0 {
		t.Fatalf("before: %v", got)
	}
	if err := os.WriteFile(filepath.Join(r.conv.Paths().RolesDir, "novelist.md"), []byte("Write novels."), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Complete(".role n", 7, 0); len(got) != 1 || got[0].Value != "novelist" {
		t.Fatalf("after adding roles/novelist.md: %v", got)
	}
}

func TestUnknownCommandAndWrongState(t *testing.T) {
	r, _ := newTestREPL(t)
	ctx := context.Background()
	if err := r.Handle(ctx, ".frobnicate now"); err == nil || err.Error() != `Unknown command. Type ".help" for additional help.` {
		t.Fatalf("unknown: %v", err)
	}
	if err := r.Handle(ctx, ".undo"); err == nil || err.Error() != ".undo needs an active session (.session NAME)" {
		t.Fatalf("wrong state: %v", err)
	}
}

func TestSetValidatesAndPicksTheLevel(t *testing.T) {
	r, _ := newTestREPL(t)
	ctx := context.Background()
	bad := []struct{ line, want string }{
		{".set rag_top_k 0", ".set: rag_top_k must be a number of at least 1, not 0"},
		{".set temperature 3", "between 0 and 2"},
		{".set stream maybe", `.set: stream must be true or false, not "maybe"`},
		{".set nonsense 1", `unknown key "nonsense"`},
		{".set reasoning_effort high", "has no reasoning levels"},
		{".set temperature", "usage: .set"},
		{".set temperature NaN", "temperature must be a finite number between 0 and 2, not NaN"},
		{".set top_p inf", "top_p must be a finite number between 0 and 1"},
		{".set top_p 1.5", "top_p must be a number between 0 and 1, not 1.5"},
		{".set compression_threshold -1", "of at least 0"},
		{".set max_output_tokens 0", "at least 1"},
		{".set max_output_tokens lots", "want a whole number of tokens"},
	}
	for _, b := range bad {
		if err := r.Handle(ctx, b.line); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: err = %v, want %q", b.line, err, b.want)
		}
	}
	cfg := r.conv.Config()
	// No role, no session: the global config, marked as set here.
	mustHandle(t, r, ".set temperature 0.5")
	if v := cfg.Get("temperature"); v.V != 0.5 || v.Src.Kind != "repl" {
		t.Fatalf("global temperature = %+v", v)
	}
	mustHandle(t, r, ".set enabled_tools all")
	if v := cfg.Get("enabled_tools"); v.V != "all" {
		t.Fatalf("enabled_tools = %#v", v.V)
	}
	// max_output_tokens caps the replies of this conversation.
	mustHandle(t, r, ".set max_output_tokens 256")
	if req, _ := r.conv.Request([]provider.Part{{Text: "hi"}}, false); req.MaxOutputTokens != 256 {
		t.Fatalf("a request after .set max_output_tokens 256 asks for %d", req.MaxOutputTokens)
	}
	mustHandle(t, r, ".set max_output_tokens null")
	if req, _ := r.conv.Request([]provider.Part{{Text: "hi"}}, false); req.MaxOutputTokens != 0 {
		t.Fatalf("null left max_output_tokens at %d", req.MaxOutputTokens)
	}
	mustHandle(t, r, ".set continuation_prompt keep going please")
	if v := cfg.Get("continuation_prompt"); v.V != "keep going please" {
		t.Fatalf("continuation_prompt = %#v", v.V)
	}
	// A role: sampling goes to the role.
	mustHandle(t, r, ".role poet")
	mustHandle(t, r, ".set temperature 0.1")
	if got := r.conv.Role.Settings.Temperature; got == nil || *got != 0.1 {
		t.Fatalf("role temperature = %v", got)
	}
	// A session: sampling and save_session go to the session; stream
	// stays global.
	mustHandle(t, r, ".session work")
	mustHandle(t, r, ".set top_p 0.3")
	mustHandle(t, r, ".set save_session false")
	mustHandle(t, r, ".set stream false")
	st := r.conv.Session.Settings()
	if st.TopP == nil || *st.TopP != 0.3 || st.SaveSession == nil || *st.SaveSession {
		t.Fatalf("session settings = %+v", st)
	}
	if cfg.Bool("stream") {
		t.Fatal("stream is still on")
	}
	mustHandle(t, r, ".set top_p null")
	if r.conv.Session.Settings().TopP != nil {
		t.Fatal("null did not unset top_p")
	}
	// The reasoning level is checked against the model.
	mustHandle(t, r, ".model fake:thinker")
	if err := r.Handle(ctx, ".reasoning medium"); err == nil || !strings.Contains(err.Error(), "low, high") {
		t.Fatalf(".reasoning medium: %v", err)
	}
	mustHandle(t, r, ".reasoning high")
	if e := r.conv.Session.Settings().ReasoningEffort; e == nil || *e != "high" {
		t.Fatalf("effort = %v", e)
	}
}

func TestSessionCommandsWithoutAModel(t *testing.T) {
	r, io := newTestREPL(t)
	out := io.Out.(interface{ String() string })
	mustHandle(t, r, ".session work") // replays the history
	if !strings.Contains(out.String(), "hi") || !strings.Contains(out.String(), "hello") {
		t.Fatalf("replay printed %q", out.String())
	}
	mustHandle(t, r, ".undo")
	if r.prefill != "hi" || !r.conv.Session.IsEmpty() {
		t.Fatalf("undo: prefill %q, empty %v", r.prefill, r.conv.Session.IsEmpty())
	}
	if err := r.Handle(context.Background(), ".undo"); err == nil || !strings.Contains(err.Error(), "with messages") {
		t.Fatalf("second undo: %v", err)
	}
	mustHandle(t, r, ".save session kept")
	if _, err := os.Stat(filepath.Join(r.conv.Paths().SessionsDir, "kept.yaml")); err != nil {
		t.Fatal(err)
	}
	mustHandle(t, r, ".exit session")
	if r.conv.Session != nil {
		t.Fatal("still in a session")
	}
	mustHandle(t, r, ".list sessions")
	if !strings.Contains(out.String(), "  kept\n") || !strings.Contains(out.String(), "  work\n") {
		t.Fatalf("list: %q", out.String())
	}
}

func TestPromptShowsTheStateAndCountsOnlyWhatIsShown(t *testing.T) {
	r, _ := newTestREPL(t)
	mustHandle(t, r, ".session work")
	r.conv.RAG = &rag.RAG{Name: "kb"}
	if got, want := r.renderPrompts(), "fake:small)work@kb) "; got != want {
		t.Errorf("left prompt %q, want %q", got, want)
	}
	if v, ok := r.promptVars()["user_messages_len"]; ok {
		t.Errorf("the default prompts do not show user_messages_len, but it was counted (%s)", v)
	}
	r.left = prompt.Parse("{user_messages_len} ")
	r.countUsers = r.left.Uses("user_messages_len")
	if got := r.renderPrompts(); got != "1 " {
		t.Errorf("left prompt %q, want the one user message counted", got)
	}
}

func TestRecoverNeedsAnInterruptedTurn(t *testing.T) {
	r, _ := newTestREPL(t)
	mustHandle(t, r, ".session work")
	if err := r.Handle(context.Background(), ".recover"); err == nil || !strings.Contains(err.Error(), "nothing to recover") {
		t.Fatalf("recover: %v", err)
	}
}

func TestPickNumbers(t *testing.T) {
	if got, err := pickNumbers("1 3,2", 3); err != nil || !slices.Equal(got, []int{0, 2, 1}) {
		t.Fatalf("got %v %v", got, err)
	}
	for _, bad := range []string{"0", "4", "x", "2x", "1.5"} { // a mistyped number deletes nothing
		if _, err := pickNumbers(bad, 3); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func mustHandle(t *testing.T, r *REPL, line string) {
	t.Helper()
	if err := r.Handle(context.Background(), line); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
}

func TestToolEnableDisableAndInfo(t *testing.T) {
	r, io := newTestREPL(t)
	out := io.Out.(interface{ String() string })
	mustHandle(t, r, ".info tools")
	if !strings.Contains(out.String(), "user__select") || strings.Contains(out.String(), "fs_read") {
		t.Fatalf("null enabled_tools offers built-ins only: %q", out.String())
	}
	mustHandle(t, r, ".tool enable fs_read")
	mustHandle(t, r, ".tool enable fs_ls")
	mustHandle(t, r, ".tool disable fs_read")
	if v := r.conv.Config().Get("enabled_tools").V; !reflect.DeepEqual(v, []string{"fs_ls"}) {
		t.Fatalf("enabled_tools = %#v", v)
	}
	mustHandle(t, r, ".set enabled_tools all")
	mustHandle(t, r, ".tool disable fs_ls")
	if v := r.conv.Config().Get("enabled_tools").V; !reflect.DeepEqual(v, []string{"fs_read", "get_current_time"}) {
		t.Fatalf("after disabling one of all: %#v", v)
	}
	mustHandle(t, r, ".list tools")
	if !strings.Contains(out.String(), "* fs_read\n") || !strings.Contains(out.String(), "  fs_ls\n") {
		t.Fatalf("list tools: %q", out.String())
	}
	if err := r.Handle(context.Background(), ".tool enable nope"); err == nil || !strings.Contains(err.Error(), `no tool or mapping_tools alias named "nope"`) {
		t.Fatalf("unknown tool: %v", err)
	}
	// A model without function calling: .tool is not offered.
	mustHandle(t, r, ".model fake:thinker")
	if err := r.Handle(context.Background(), ".tool enable fs_read"); err == nil || !strings.Contains(err.Error(), "function calling") {
		t.Fatalf("without function calling: %v", err)
	}
}

// What .rag refuses before it asks anything or opens a store, and the fix
// each refusal names.
func TestRAGRefusalsSayWhatToDo(t *testing.T) {
	tests := []struct {
		line    string
		inMacro bool
		want    []string
	}{
		{".rag ../kb", false, []string{`invalid RAG name "../kb"`, "without / or \\"}},
		{".rag .hidden", false, []string{`invalid RAG name ".hidden"`, "not starting with a dot"}},
		{".rag attach a/b", false, []string{`invalid RAG name "a/b"`}},
		{".rag attach", false, []string{"usage: .rag attach <name>"}},
		{".rag kb", true, []string{"RAG kb does not exist", "create it at the prompt with .rag kb first"}},
		{".rag", true, []string{"a macro cannot build a temporary RAG", "use an existing one with .rag NAME"}},
		{".rag attach kb", true, []string{"a macro cannot attach RAGs", "at the prompt with .rag attach kb"}},
	}
	for _, tt := range tests {
		r, _ := newTestREPL(t)
		r.inMacro = tt.inMacro
		err := r.Handle(context.Background(), tt.line)
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s (in a macro: %v): err = %v, want it to say %q", tt.line, tt.inMacro, err, w)
			}
		}
		if r.conv.RAG != nil || len(r.tempDirs) != 0 {
			t.Errorf("%s: a RAG became active, or a temporary one was started (%v)", tt.line, r.tempDirs)
		}
	}
}

// .edit mcp-config opens the user's mcp.json, creating an empty one the
// first time, and never replaces what the user wrote.
func TestEditMCPConfigCreatesTheFileOnce(t *testing.T) {
	r, _ := newTestREPL(t)
	env := r.o.Env
	r.o.Env = func(k string) string {
		if k == "VISUAL" {
			return "true" // an editor that changes nothing
		}
		return env(k)
	}
	path := filepath.Join(r.conv.Paths().FunctionsDir, "mcp.json")
	mustHandle(t, r, ".edit mcp-config")
	if b, err := os.ReadFile(path); err != nil || string(b) != "{\n  \"mcpServers\": {}\n}\n" {
		t.Fatalf("mcp.json = %q, %v", b, err)
	}
	mine := `{"mcpServers": {"fs": {"command": "fs-server"}}}`
	if err := os.WriteFile(path, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	mustHandle(t, r, ".edit mcp-config")
	if b, _ := os.ReadFile(path); string(b) != mine {
		t.Fatalf("the user's mcp.json was replaced: %q", b)
	}
}

func TestPrintErrorShowsAServersTextWithoutWhatATerminalActsOn(t *testing.T) {
	r, io := newTestREPL(t)
	errOut := io.ErrOut.(*bytes.Buffer)
	// A server's message that would erase the line, and one that would
	// show "exe.pdf" for "fdp.exe".
	r.printError(errors.New("upstream said: ok\r\x1b[2Kfine \u202efdp.exe"))
	if got, want := errOut.String(), "Error: upstream said: ok[2Kfine fdp.exe\n"; got != want {
		t.Fatalf("printed %q, want %q", got, want)
	}
}

func TestInfoToolsSaysWhetherToolsAreSandboxed(t *testing.T) {
	r, io := newTestREPL(t)
	out := io.Out.(interface{ String() string })
	mustHandle(t, r, ".info tools")
	if !strings.Contains(out.String(), "Tool scripts run unsandboxed") {
		t.Fatalf("%q", out.String())
	}
	r.conv.Config().Set("tool_sandbox", &config.Value{V: "bwrap", Src: config.Source{Kind: "flag", Where: "--tool-sandbox"}})
	mustHandle(t, r, ".info tools")
	if !strings.Contains(out.String(), "Tool scripts run sandboxed (bwrap): only the workspace is writable") {
		t.Fatalf("%q", out.String())
	}
}
