package convo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/kernel/memory"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/session"
	"github.com/coyote-cli/coyote/sdk/provider"
)

const fcModel = "model: a:one\nclients:\n  - {type: openai, name: a, models: [{name: one, supports_function_calling: true}]}\n"

// memoryState is a conversation in a repository with no workspace memory
// and a global memory holding one entry.
func memoryState(t *testing.T, yaml string) *State {
	t.Helper()
	st := newState(t, yaml)
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	g := memory.GlobalStore(st.d.Paths.ConfigDir)
	if _, _, err := memory.Init(g); err != nil {
		t.Fatal(err)
	}
	if _, _, err := memory.Write(g, "tests", memory.Draft{Description: "run make test, never go test alone", Body: "BODY-4711"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	return st
}

func systemOf(st *State) string {
	req, _ := st.Request([]provider.Part{{Text: "hi"}}, false)
	return reqSystem(req)
}

func offeredNames(st *State) string {
	offered, _ := st.Offered(models.Model{Name: "one", SupportsFunctionCalling: true})
	var names []string
	for _, f := range offered {
		names = append(names, f.Name)
	}
	return strings.Join(names, ",")
}

const indexLine = "- [tests](tests.md): run make test, never go test alone"

func TestMemoryReachesThePromptWithItsFunctions(t *testing.T) {
	st := memoryState(t, fcModel)
	st.Role = role.Temp("Be terse.")
	sys := systemOf(st)
	if !strings.HasPrefix(sys, "Be terse.") || !strings.Contains(sys, memory.Instructions) || !strings.Contains(sys, indexLine) ||
		!strings.Contains(sys, filepath.Join(st.d.Paths.ConfigDir, "memory", "MEMORY.md")) || strings.Contains(sys, "BODY-4711") {
		t.Fatalf("system prompt:\n%s", sys)
	}
	if got := offeredNames(st); !strings.Contains(got, "memory__write") || !strings.Contains(got, "memory__lint") {
		t.Fatalf("offered %s", got)
	}
	var row string
	for _, r := range st.Info() {
		if r.Key == "memory_in_force" {
			row = r.Value
		}
	}
	if row != "global: "+filepath.Join(st.d.Paths.ConfigDir, "memory", "MEMORY.md") {
		t.Fatalf("memory_in_force %q", row)
	}
}

// Without function calling the drill files are inlined, with the
// read-only note, and no function is offered.
func TestMemoryWithoutFunctionsIsInlinedAndReadOnly(t *testing.T) {
	for _, yaml := range []string{fcModel + "function_calling_support: false\n",
		"model: a:one\nclients:\n  - {type: openai, name: a, models: [{name: one, supports_function_calling: false}]}\n"} {
		st := memoryState(t, yaml)
		sys := systemOf(st)
		if !strings.Contains(sys, memory.ReadOnlyNote) || !strings.Contains(sys, indexLine) || !strings.Contains(sys, "BODY-4711") ||
			strings.Contains(sys, "memory__write") {
			t.Fatalf("%s:\n%s", yaml, sys)
		}
	}
}

// memory resolves agent → session → role → global (true when unset);
// --no-memory wins over all; no MEMORY.md, no memory.
func TestMemoryPrecedence(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name            string
		global          string
		role, session   *bool
		noMemory, reset bool
		want            bool
	}{
		{name: "unset", want: true},
		{name: "global off", global: "memory: false\n", want: false},
		{name: "role over global", global: "memory: false\n", role: &yes, want: true},
		{name: "session over role", role: &yes, session: &no, want: false},
		{name: "--no-memory", role: &yes, noMemory: true, want: false},
		{name: "no MEMORY.md", reset: true, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := memoryState(t, fcModel+tc.global)
			if tc.role != nil {
				st.Role = role.Temp("r")
				st.Role.Settings.Memory = tc.role
			}
			if tc.session != nil {
				sess, err := st.OpenSession("s")
				if err != nil {
					t.Fatal(err)
				}
				sess.Update(func(s *session.Settings) { s.Memory = tc.session })
			}
			st.NoMemory = tc.noMemory
			if tc.reset {
				if err := os.Remove(filepath.Join(st.d.Paths.ConfigDir, "memory", "MEMORY.md")); err != nil {
					t.Fatal(err)
				}
			}
			sys, offered := systemOf(st), offeredNames(st)
			if got := strings.Contains(sys, indexLine); got != tc.want {
				t.Fatalf("memory in the prompt: %v, want %v\n%s", got, tc.want, sys)
			}
			if got := strings.Contains(offered, "memory__read"); got != tc.want {
				t.Fatalf("memory functions offered: %v, want %v (%s)", got, tc.want, offered)
			}
			if tc.noMemory && st.Fork().memoryText() != "" {
				t.Fatal("a fork lost --no-memory")
			}
		})
	}
}

// A memory longer than its cap is cut with a note in the prompt and one
// warning; a bad date is one warning naming the file, the entry left out.
func TestMemoryCapAndBadEntriesAreNeverSilent(t *testing.T) {
	st := memoryState(t, fcModel+"memory_cap_with_tools: 200\n")
	w := warnings(st)
	g := memory.GlobalStore(st.d.Paths.ConfigDir)
	var lines strings.Builder
	for i := range 20 {
		lines.WriteString("- A long free-text line of the index that takes room, number " + string(rune('a'+i)) + "\n")
	}
	if err := memory.AppendIndex(g, lines.String()+"- [Bad](bad.md): bad\n"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(g.Dir, "bad.md"), []byte("---\nexpires: 31/12/2025\n---\nx\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sys := systemOf(st)
	systemOf(st) // a second request warns no more
	if !strings.Contains(sys, "[Memory cut here:") || !strings.Contains(sys, "memory_cap_with_tools") || strings.Contains(sys, "number t") {
		t.Fatalf("system prompt:\n%s", sys)
	}
	if len(*w) != 2 || !strings.Contains((*w)[0], filepath.Join(g.Dir, "bad.md")+": expires: \"31/12/2025\" is not a date") ||
		!strings.Contains((*w)[1], "more than memory_cap_with_tools (200)") {
		t.Fatalf("warnings %q", *w)
	}
}
