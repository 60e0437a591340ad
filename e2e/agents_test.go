package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/compat"
	"github.com/coyote-cli/coyote/internal/fakellm"
)

// greeterConfig is an agent with a variable, a global tool and a starter.
const greeterConfig = `name: Greeter
description: Greets people by name
version: 1.0.0
global_tools:
  - fs_ls.sh
instructions: |
  You greet {{username}}. Tools:
  {{__tools__}}
variables:
  - name: username
    description: The user's name
  - name: mood
    default: cheerful
conversation_starters:
  - Say hello to me
  - What can you do?
`

// greeterTools declares one tool per command; each reports the agent's
// variables it sees.
const greeterTools = `#!/usr/bin/env bash
set -e
# @cmd Tell who the user is.
whoami_user() {
    echo "user=$LLM_AGENT_VAR_USERNAME mood=$LLM_AGENT_VAR_MOOD" >> "$LLM_OUTPUT"
}

# @cmd Count to a number.
# @option --to! Where to stop.
count_to() {
    seq 1 "$argc_to" | tr '\n' ' ' >> "$LLM_OUTPUT"
}
`

func writeGreeter(t *testing.T, e *env) {
	t.Helper()
	e.writeFiles(map[string]string{
		"agents/greeter/config.yaml": greeterConfig,
		"agents/greeter/tools.sh":    greeterTools,
	})
}

func systemText(req *fakellm.ChatRequest) string {
	for _, m := range req.Messages {
		if m["role"] == "system" {
			s, _ := m["content"].(string)
			return s
		}
	}
	return ""
}

// -a runs the agent: its instructions (with its variables and tools) are
// the system prompt, its own tools and global_tools are offered, and a
// tool call sees the variables as LLM_AGENT_VAR_*.
func TestAgentOneShotVariableReachesTheTool(t *testing.T) {
	fake := toolModel("whoami_user", `{}`)
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, ""))
	writeGreeter(t, e)
	r := e.run("", "-a", "greeter", "--agent-variable", "username", "ann", "who", "am", "I")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "The tool said: user=ann mood=cheerful") {
		t.Fatalf("stdout %q stderr %q", r.stdout, r.stderr)
	}
	reqs := fake.Requests()
	sys := systemText(&reqs[0])
	if !strings.Contains(sys, "You greet ann.") || !strings.Contains(sys, "- whoami_user: Tell who the user is.") || !strings.Contains(sys, "- fs_ls:") {
		t.Errorf("system prompt:\n%s", sys)
	}
	names := strings.Join(offered(&reqs[0]), ",")
	for _, want := range []string{"whoami_user", "count_to", "fs_ls"} {
		if !strings.Contains(names, want) {
			t.Errorf("offered %s, want %s", names, want)
		}
	}
	if strings.Contains(names, "fs_read") {
		t.Errorf("offered %s: only the agent's global_tools of the global tools", names)
	}
	// The wrappers are the agent's own.
	if _, err := os.Stat(filepath.Join(e.configDir, "agents", "greeter", "bin", "whoami_user")); err != nil {
		t.Errorf("the agent's wrapper: %v", err)
	}
}

// -a with flags it replaces says so; without a variable and a terminal the
// run fails in one line that says how to give it; a name the agent does
// not declare is refused.
func TestAgentBadInputIsOneLine(t *testing.T) {
	url := fakellm.StartOpenAI(t, answering("hi"))
	e := newEnv(t, fakeConfig(url, ""))
	writeGreeter(t, e)
	e.writeFiles(map[string]string{
		"agents/typo/config.yaml":   "temperature: warm\n",
		"agents/clash/config.yaml":  "global_tools: [fs_ls.sh]\n",
		"agents/clash/tools.sh":     "# @cmd Shadow a global tool.\nfs_ls() { :; }\n",
		"agents/broken/config.yaml": "description: tools that do not parse\n",
		"agents/broken/tools.sh":    "# @cmd Lost.\n",
	})
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing agent", []string{"-a", "nope", "hi"}, `agent "nope": no such agent`},
		{"missing variable", []string{"-a", "greeter", "hi"}, "--agent-variable username VALUE"},
		{"unknown variable", []string{"-a", "greeter", "--agent-variable", "usr", "x", "hi"}, `has no variable "usr"`},
		{"wrong type", []string{"-a", "typo", "hi"}, "agents/typo/config.yaml:1: temperature must be a number"},
		{"name clash", []string{"-a", "clash", "hi"}, `declares "fs_ls", which a global tool`},
		{"script does not declare", []string{"-a", "broken", "hi"}, "@cmd is not followed by a function"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.run("", c.args...)
			if r.code != 1 || !strings.Contains(oneLineError(t, r), c.want) {
				t.Fatalf("exit %d, stderr %q; want one line with %q", r.code, r.stderr, c.want)
			}
		})
	}
	r := e.run("", "-a", "greeter", "--agent-variable", "username", "x", "-r", "shell", "--rag", "kb", "hi")
	e.mustSucceed(r)
	if !strings.Contains(r.stderr, "note: with -a, -r, --rag are ignored") {
		t.Errorf("stderr %q", r.stderr)
	}
	// --list-agents lists the agents that load, and says why one does not.
	r = e.run("", "--list-agents")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "greeter\n") || strings.Contains(r.stdout, "typo") || !strings.Contains(r.stderr, "agent typo is left out") {
		t.Errorf("--list-agents: stdout %q stderr %q", r.stdout, r.stderr)
	}
}

// An agent session lives in agents/<name>/sessions/, keeps the variables,
// and a later run resumes it.
func TestAgentSessionIsSavedUnderTheAgentAndResumed(t *testing.T) {
	fake := answering("noted")
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, "save_session: true\n"))
	writeGreeter(t, e)
	e.mustSucceed(e.run("", "-a", "greeter", "--agent-variable", "username", "ann", "-s", "work", "remember", "the", "number", "42"))
	path := filepath.Join(e.configDir, "agents", "greeter", "sessions", "work.yaml")
	data := string(mustRead(t, path))
	if !strings.Contains(data, "remember the number 42") || !strings.Contains(data, "agent_variables") || !strings.Contains(data, "ann") {
		t.Fatalf("session file:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(e.configDir, "sessions", "work.yaml")); err == nil {
		t.Error("the agent's session was also written to sessions/")
	}
	// The variable comes back from the session: no --agent-variable.
	e.mustSucceed(e.run("", "-a", "greeter", "-s", "work", "what", "number"))
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	var texts []string
	for _, m := range last.Messages {
		s, _ := m["content"].(string)
		texts = append(texts, s)
	}
	joined := strings.Join(texts, "|")
	if !strings.Contains(joined, "remember the number 42") || !strings.Contains(joined, "You greet ann.") {
		t.Fatalf("resumed request: %s", joined)
	}
}

// Every agent config of the original loads: --list-agents lists each and
// --info -a shows it.
func TestCompatAgentConfigsLoadThroughTheBinary(t *testing.T) {
	src := compat.Path(t, "agents")
	files, _ := filepath.Glob(filepath.Join(src, "*-config.yaml"))
	url := fakellm.StartOpenAI(t, answering("hi"))
	e := newEnv(t, fakeConfig(url, ""))
	want := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), "-config.yaml")
		e.writeFiles(map[string]string{"agents/" + name + "/config.yaml": string(mustRead(t, f))})
		want[name] = true
	}
	r := e.run("", "--list-agents")
	e.mustSucceed(r)
	if strings.Contains(r.stderr, "left out") {
		t.Fatalf("stderr %q", r.stderr)
	}
	for name := range want {
		if !strings.Contains(r.stdout, name+"\n") {
			t.Errorf("--list-agents lacks %s:\n%s", name, r.stdout)
		}
		ri := e.run("", "--info", "-a", name)
		e.mustSucceed(ri)
		if !strings.Contains(ri.stdout, "agent ") || !strings.Contains(ri.stdout, name) {
			t.Errorf("--info -a %s:\n%s", name, ri.stdout)
		}
	}
}

// In the REPL: .agent with a variable, a starter sent with .starter,
// .info agent, and .exit agent giving back the role that was active.
func TestAgentInTheREPL(t *testing.T) {
	fake := startREPLFake(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "reply " + string(rune('A'+n))}
	})
	e := newEnv(t, fakeConfig(fake.url, ""))
	writeGreeter(t, e)
	e.writeFiles(map[string]string{"roles/pirate.md": "Talk like a pirate."})
	p := e.startREPL()
	p.enter(".role pirate", "pirate> ")
	p.enter(".agent greeter username=bob", "Agent Greeter: Greets people by name", "1. Say hello to me", "greeter>")
	p.enter(".starter 1", "reply A")
	req := fake.Requests()[0]
	if sys := systemText(&req); !strings.Contains(sys, "You greet bob.") {
		t.Fatalf("system prompt %q", sys)
	}
	if last := req.Messages[len(req.Messages)-1]; last["content"] != "Say hello to me" {
		t.Fatalf("the starter sent: %v", last)
	}
	p.enter(".info agent", "variable username", "bob", "whoami_user")
	p.enter(".exit agent", "pirate> ")
	p.enter("ahoy", "reply B")
	if sys := systemText(&fake.Requests()[1]); !strings.Contains(sys, "pirate") {
		t.Fatalf("after .exit agent the role is back: %q", sys)
	}
	p.exit()
}

// An agent's documents become its RAG after the user agrees, and a fact
// planted in them reaches the model.
func TestAgentDocumentsBecomeItsRAG(t *testing.T) {
	fake := startREPLFake(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "answered"} })
	e := newEnv(t, fakeConfig(fake.url, "rag_embedding_model: fake:embed\n"))
	e.writeFiles(map[string]string{
		"agents/lore/config.yaml": "description: Knows the lore\ninstructions: Answer from the lore.\ndocuments:\n  - lore.md\n",
		"agents/lore/lore.md":     "# Lore\n\nThe castle's password is PELICAN-7731.\n",
	})
	p := e.startREPL()
	p.enter(".agent lore", "Build its RAG now")
	p.enter("y", "lore>")
	p.enter("what is the castle password", "answered")
	reqs := fake.Requests()
	var all string
	for _, m := range reqs[len(reqs)-1].Messages {
		s, _ := m["content"].(string)
		all += s
	}
	if !strings.Contains(all, "PELICAN-7731") {
		t.Fatalf("the planted fact did not reach the model: %s", all)
	}
	if _, err := os.Stat(filepath.Join(e.configDir, "agents", "lore", "rag.yaml")); err != nil {
		t.Fatalf("the agent's RAG: %v", err)
	}
	p.exit()
}

// An agent's auto_continue drives the todo loop: the agent's own
// max_auto_continues is the limit, whatever config.yaml says.
func TestAgentTodoLoopStopsAtItsLimit(t *testing.T) {
	fake := todoModel(true)
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, "max_auto_continues: 9\n"))
	e.writeFiles(map[string]string{"agents/worker/config.yaml": "description: Works through a list\nauto_continue: true\nmax_auto_continues: 1\ncontinuation_prompt: " + continuePrompt + "\ninstructions: Work.\n"})
	r := e.run("", "-a", "worker", "go")
	e.mustSucceed(r)
	if n := len(continuations(fake)); n != 1 {
		t.Fatalf("%d continuations, want the agent's 1; stderr %q", n, r.stderr)
	}
	if !strings.Contains(r.stderr, "auto-continuing (1/1)") || !strings.Contains(r.stderr, "max_auto_continues (1)") {
		t.Errorf("stderr %q", r.stderr)
	}
	if sys := systemText(&fake.Requests()[0]); !strings.Contains(sys, "Work.") || !strings.Contains(sys, "todo__") {
		t.Errorf("the agent's instructions with the todo instructions: %q", sys)
	}
}

// A bundled agent is installed on first use and works: the sql agent's
// list_tables reads the database its variable names.
func TestBundledSQLAgentListsTables(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("sqlite3 is not installed (scripts/install-test-deps.sh installs it)")
		}
		t.Skip("sqlite3 is not installed (scripts/install-test-deps.sh installs it)")
	}
	db := filepath.Join(t.TempDir(), "shop.db")
	if out, err := exec.Command("sqlite3", db, "CREATE TABLE customers(id INTEGER, name TEXT); CREATE TABLE orders(id INTEGER);").CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v %s", err, out)
	}
	fake := toolModel("list_tables", `{}`)
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, ""))
	r := e.run("", "-a", "sql", "--agent-variable", "database", db, "which", "tables")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "customers") || !strings.Contains(r.stdout, "orders") {
		t.Fatalf("stdout %q stderr %q", r.stdout, r.stderr)
	}
	r = e.run("", "--list-agents")
	for _, name := range []string{"coder", "explore", "reviewer", "sql"} {
		if !strings.Contains(r.stdout, name+"\n") {
			t.Errorf("--list-agents lacks the bundled %s:\n%s", name, r.stdout)
		}
	}
}

// .delete agent-data lists each agent's sessions and RAG, and deletes the
// ones picked.
func TestDeleteAgentData(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "ok"} })
	e := newEnv(t, fakeConfig(fake.url, "save_session: true\n"))
	writeGreeter(t, e)
	e.mustSucceed(e.run("", "-a", "greeter", "--agent-variable", "username", "ann", "-s", "old", "hi"))
	path := filepath.Join(e.configDir, "agents", "greeter", "sessions", "old.yaml")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	p := e.startREPL()
	p.enter(".delete agent-data", "greeter: session old", "Delete which")
	p.enter("1", "Deleted greeter: session old")
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the session file is still there")
	}
	p.exit()
}

// --build-tools -a writes the agent's wrappers into its own bin/; the
// environment's <AGENT>_* overrides and dynamic_instructions reach the
// request.
func TestAgentBuildToolsEnvironmentAndDynamicInstructions(t *testing.T) {
	fake := answering("ok")
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, ""))
	writeGreeter(t, e)
	r := e.run("", "--build-tools", "-a", "greeter")
	e.mustSucceed(r)
	for _, name := range []string{"whoami_user", "count_to"} {
		if _, err := os.Stat(filepath.Join(e.configDir, "agents", "greeter", "bin", name)); err != nil {
			t.Errorf("--build-tools -a: %v (stdout %q)", err, r.stdout)
		}
	}
	if r := e.run("", "--build-tools", "-a", "nope"); r.code != 1 || !strings.Contains(oneLineError(t, r), "no such agent") {
		t.Errorf("--build-tools -a nope: %d %q", r.code, r.stderr)
	}

	// The variable from GREETER_VARIABLES, the temperature from
	// GREETER_TEMPERATURE.
	e.set(`GREETER_VARIABLES=[{"name":"username","value":"zoe"}]`, "GREETER_TEMPERATURE=0.25")
	e.mustSucceed(e.run("", "-a", "greeter", "hi"))
	req := fake.Requests()[len(fake.Requests())-1]
	if sys := systemText(&req); !strings.Contains(sys, "You greet zoe.") {
		t.Errorf("GREETER_VARIABLES: %q", sys)
	}
	if req.Temperature == nil || *req.Temperature != 0.25 {
		t.Errorf("GREETER_TEMPERATURE: %v", req.Temperature)
	}

	e.writeFiles(map[string]string{
		"agents/dyn/config.yaml": "dynamic_instructions: true\ninstructions: never used\nvariables:\n  - name: team\n    default: red\n",
		"agents/dyn/tools.sh":    "#!/usr/bin/env bash\n_instructions() { echo \"Made at run time for team $LLM_AGENT_VAR_TEAM.\"; }\n",
	})
	e.mustSucceed(e.run("", "-a", "dyn", "hi"))
	req = fake.Requests()[len(fake.Requests())-1]
	if sys := systemText(&req); !strings.HasPrefix(sys, "Made at run time for team red.") || strings.Contains(sys, "never used") {
		t.Errorf("dynamic_instructions: %q", sys)
	}
}

// .edit agent-config opens the agent's config.yaml in the editor, and the
// agent goes on with what was saved; a broken edit keeps the settings it had.
func TestEditAgentConfigInTheREPL(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "ok"} })
	e := newEnv(t, fakeConfig(fake.url, ""))
	writeGreeter(t, e)
	editor := filepath.Join(t.TempDir(), "editor.sh")
	// The editor changes the instructions (or, given BREAK, the file's
	// syntax).
	script := "#!/bin/sh\nif [ -n \"$BREAK\" ]; then printf 'temperature: [\\n' >> \"$1\"; else sed -i 's/You greet/You warmly greet/' \"$1\"; fi\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e.set("EDITOR=" + editor)
	p := e.startPTY("-a", "greeter", "--agent-variable", "username", "ann")
	p.expect("greeter>> ", replTimeout)
	p.enter(".edit agent-config", "The agent uses its new settings.")
	p.enter("hello", "ok")
	reqs := fake.Requests()
	if sys := systemText(&reqs[len(reqs)-1]); !strings.Contains(sys, "You warmly greet ann.") {
		t.Fatalf("after .edit agent-config: %q", sys)
	}
	p.exit()

	e.set("BREAK=1")
	p = e.startPTY("-a", "greeter", "--agent-variable", "username", "ann")
	p.expect("greeter>> ", replTimeout)
	p.enter(".edit agent-config", "the agent keeps its previous settings", "config.yaml:")
	p.enter("hello again", "ok")
	reqs = fake.Requests()
	if sys := systemText(&reqs[len(reqs)-1]); !strings.Contains(sys, "You warmly greet ann.") {
		t.Fatalf("after a broken edit: %q", sys)
	}
	p.exit()
}

// coyote -a NAME in a terminal asks before it builds the agent's RAG from
// its documents; without a terminal it says how to build it, and goes on.
func TestAgentDocumentsFromTheCommandLine(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "answered"} })
	e := newEnv(t, fakeConfig(fake.url, "rag_embedding_model: fake:embed\n"))
	e.writeFiles(map[string]string{
		"agents/lore/config.yaml": "description: Knows the lore\ninstructions: Answer from the lore.\ndocuments:\n  - lore.md\n",
		"agents/lore/lore.md":     "# Lore\n\nThe castle's password is PELICAN-7731.\n",
	})
	r := e.run("", "-a", "lore", "what is the password")
	e.mustSucceed(r)
	if !strings.Contains(r.stderr, "has documents but no RAG yet; start it once in a terminal") {
		t.Fatalf("without a terminal: %q", r.stderr)
	}
	p := e.startPTY("-a", "lore")
	p.expect("Build its RAG now", replTimeout)
	p.enter("y", "lore>@agent-lore> ")
	p.enter("what is the password", "answered")
	reqs := fake.Requests()
	var all string
	for _, m := range reqs[len(reqs)-1].Messages {
		s, _ := m["content"].(string)
		all += s
	}
	if !strings.Contains(all, "PELICAN-7731") {
		t.Fatalf("the planted fact did not reach the model: %s", all)
	}
	p.exit()
}
