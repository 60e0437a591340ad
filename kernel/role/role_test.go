package role

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/coyote-cli/coyote/internal/compat"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// compatDir is the original's corpus; tests skip without it (fail under CI).
func compatDir(t testing.TB) string { return compat.Dir(t) }

func builtinFS() fstest.MapFS {
	return fstest.MapFS{
		"shell.md": {Data: []byte("---\nskills_enabled: false\n---\nBuilt-in shell prompt.\n")},
		"code.md":  {Data: []byte("Built-in code prompt.\n")},
	}
}

func writeRole(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadPrefersTheUserFileOverTheBuiltin(t *testing.T) {
	dir := t.TempDir()
	writeRole(t, dir, "shell.md", "My own shell prompt.")
	r, _, err := Load("shell", dir, builtinFS())
	if err != nil {
		t.Fatal(err)
	}
	if r.Prompt != "My own shell prompt." || r.Source != filepath.Join(dir, "shell.md") {
		t.Errorf("loaded %q from %s, want the user file", r.Prompt, r.Source)
	}
	if r.Settings.SkillsEnabled != nil {
		t.Error("the built-in's settings leaked into the user's role")
	}
	r, _, err = Load("code", dir, builtinFS())
	if err != nil {
		t.Fatal(err)
	}
	if r.Prompt != "Built-in code prompt." || r.Source != SourceBuiltin {
		t.Errorf("loaded %q from %s, want the built-in", r.Prompt, r.Source)
	}
}

func TestLoadMissingRoleSaysWhereItLooked(t *testing.T) {
	dir := t.TempDir()
	_, _, err := Load("nope", dir, builtinFS())
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	want := `role "nope" not found (looked in ` + dir + ` and the built-in roles; run coyote --list-roles)`
	if err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
	_, _, err = Load("nope", "", nil)
	if err == nil || err.Error() != `role "nope" not found (looked in the built-in roles; run coyote --list-roles)` {
		t.Errorf("without a user dir: %v", err)
	}
}

func TestLoadRejectsNamesThatAreNotFileNames(t *testing.T) {
	dir := t.TempDir()
	writeRole(t, dir, "ok.md", "x")
	for _, name := range []string{"", "../ok", "a/b", `a\b`, ".hidden", "..", "a\x00b"} {
		if _, _, err := Load(name, dir, builtinFS()); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("Load(%q) err = %v, want an invalid-name error", name, err)
		}
	}
}

func TestLoadBrokenFileNamesRoleFileAndLine(t *testing.T) {
	dir := t.TempDir()
	writeRole(t, dir, "bad.md", "---\nmodel: a\ntemperature: 0.2: x\n---\nHi\n")
	_, _, err := Load("bad", dir, nil)
	path := filepath.Join(dir, "bad.md")
	if err == nil || !strings.HasPrefix(err.Error(), `load role "bad": `+path+" line 3: ") {
		t.Fatalf("err = %v", err)
	}
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 3 || fe.File != path {
		t.Errorf("FileError = %+v", fe)
	}
}

func TestLoadUnreadableFileIsAnErrorNotABuiltin(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "shell.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load("shell", dir, builtinFS()); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want a read error", err)
	}
}

func TestLoadReturnsWarnings(t *testing.T) {
	dir := t.TempDir()
	writeRole(t, dir, "w.md", "---\ncolor: red\n---\nHi")
	r, warnings, err := Load("w", dir, nil)
	if err != nil || r.Prompt != "Hi" {
		t.Fatalf("Load = %v, %v", r, err)
	}
	if len(warnings) != 1 || warnings[0].File != filepath.Join(dir, "w.md") || warnings[0].Line != 2 {
		t.Errorf("warnings = %v", warnings)
	}
}

func TestListMergesUserAndBuiltinRolesSorted(t *testing.T) {
	dir := t.TempDir()
	writeRole(t, dir, "shell.md", "mine")
	writeRole(t, dir, "alpha.md", "a")
	writeRole(t, dir, "notes.txt", "not a role")
	writeRole(t, dir, ".hidden.md", "skipped")
	writeRole(t, dir, ".alpha.md.tmp-123", "an interrupted save")
	if err := os.Mkdir(filepath.Join(dir, "sub.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := List(dir, builtinFS())
	if want := []string{"alpha", "code", "shell"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	if got := List(filepath.Join(dir, "missing"), nil); len(got) != 0 {
		t.Errorf("List of a missing dir = %v", got)
	}
}

func TestTempRoleUsesTheTextAsPrompt(t *testing.T) {
	r := Temp("  You are a pirate.  ")
	if r.Name != "temp" || r.Prompt != "You are a pirate." || r.Source != SourceTemp {
		t.Errorf("Temp = %+v", r)
	}
	if got, want := r.Messages("hello"), []provider.Message{sys("You are a pirate."), user("hello")}; !reflect.DeepEqual(got, want) {
		t.Errorf("messages = %#v", got)
	}
	r = Temp("---\nmodel: x\n---\nnot front matter")
	if r.Settings.Model != "" || !strings.HasPrefix(r.Prompt, "---") {
		t.Errorf("Temp read front matter from the text: %+v", r)
	}
}

func TestSaveWritesTheRoleFileAndLoadReadsItBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "roles")
	r := Temp("Be terse.")
	r.Name = "terse"
	r.Settings.Temperature = ptr(0.1)
	r.Settings.EnabledTools = StringList{Set: true}
	path, err := r.Save(dir)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "terse.md") || r.Source != path {
		t.Errorf("saved to %s, source %s", path, r.Source)
	}
	got, _, err := Load("terse", dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Prompt != "Be terse." || !got.Settings.Equal(&r.Settings) {
		t.Errorf("read back %+v", got)
	}
	r.Name = "../escape"
	if _, err := r.Save(dir); err == nil {
		t.Error("saved a role under a path-like name")
	}
}

// Every role file and the annotated example of the original load, with
// the settings they hold.
func TestCompatRolesLoad(t *testing.T) {
	dir := filepath.Join(compatDir(t), "roles")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("the compat corpus (../shared) is missing: %v", err)
	}
	if len(entries) != 12 {
		t.Errorf("%d compat roles, want 12", len(entries))
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".md")
		r, warnings, err := Load(name, dir, nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(warnings) != 0 {
			t.Errorf("%s: warnings %v", name, warnings)
		}
		if r.Prompt == "" && name != "functions" && name != "mcp-servers" {
			t.Errorf("%s: empty prompt", name)
		}
	}
	want := map[string]Settings{
		"diagnose": {EnabledTools: ListOf("execute_command", "fs_cat", "fs_ls", "web_search_coyote"),
			SkillsEnabled: ptr(false), AutoContinue: ptr(true), MaxAutoContinues: ptr(10)},
		"repo-analyzer": {EnabledTools: ListOf("fs_cat", "fs_ls", "fs_write", "fs_patch", "execute_command")},
		"functions":     {EnabledTools: ListOf("all")},
		"mcp-servers":   {EnabledMCPServers: ListOf("all")},
		"github":        {EnabledMCPServers: ListOf("github")},
		"code":          {},
		"shell":         {SkillsEnabled: ptr(false)},
	}
	for name, settings := range want {
		r, _, err := Load(name, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Settings.Equal(&settings) {
			t.Errorf("%s settings = %+v\nwant %+v", name, r.Settings, settings)
		}
	}
	code, _, _ := Load("code", dir, nil)
	if msgs := code.Messages("x"); len(msgs) != 4 || msgs[1].Role != provider.RoleUser || msgs[2].Role != provider.RoleAssistant {
		t.Errorf("the original code role did not give few-shot messages: %#v", msgs)
	}
}

func TestCompatExampleRoleLoads(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(compatDir(t), "config.role.example.md"))
	if err != nil {
		t.Fatalf("the compat corpus (../shared) is missing: %v", err)
	}
	r, warnings, err := Parse("example", data, "config.role.example.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	want := Settings{
		Model:                   "openai:gpt-4o",
		Temperature:             ptr(0.2),
		TopP:                    ptr(0.0),
		EnabledTools:            ListOf("fs_ls", "fs_cat"),
		EnabledMCPServers:       ListOf("github", "gitmcp"),
		SkillsEnabled:           ptr(true),
		EnabledSkills:           ListOf("git-master", "ai-slop-remover"),
		InjectSkillInstructions: ptr(true),
		EnabledMacros:           ListOf("generate-commit-message"),
		AutoContinue:            ptr(false),
		MaxAutoContinues:        ptr(10),
		InjectTodoInstructions:  ptr(true),
	}
	if !r.Settings.Equal(&want) {
		t.Errorf("settings = %+v\nwant %+v", r.Settings, want)
	}
	if r.Settings.ReasoningEffort != "" || r.Settings.Memory != nil || r.Settings.SkillInstructions != nil || r.Settings.ContinuationPrompt != nil {
		t.Error("a null key of the example was read as set")
	}
	if !strings.HasPrefix(r.Prompt, "You are an expert at doing things.") {
		t.Errorf("prompt = %q", r.Prompt)
	}
}

var builtinNames = []string{
	"atlassian", "code", "create-prompt", "create-title", "diagnose", "explain-shell",
	"functions", "github", "mcp-servers", "repo-analyzer", "shell", "slack",
}

func TestBuiltinRolesLoadWithoutWarnings(t *testing.T) {
	builtin := os.DirFS("../../assets/roles")
	if got := List("", builtin); !reflect.DeepEqual(got, builtinNames) {
		t.Fatalf("built-in roles = %v\nwant %v", got, builtinNames)
	}
	for _, name := range builtinNames {
		r, warnings, err := Load(name, "", builtin)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(warnings) != 0 {
			t.Errorf("%s: warnings %v", name, warnings)
		}
		if r.Source != SourceBuiltin {
			t.Errorf("%s: source %q", name, r.Source)
		}
	}
}

// The built-in roles keep the original's settings (their behaviour), even
// though their prompts are our own.
func TestBuiltinRolesHaveTheOriginalsSettings(t *testing.T) {
	builtin := os.DirFS("../../assets/roles")
	for _, name := range builtinNames {
		ours, _, err := Load(name, "", builtin)
		if err != nil {
			t.Fatal(err)
		}
		theirs, _, err := Load(name, filepath.Join(compatDir(t), "roles"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !ours.Settings.Equal(&theirs.Settings) {
			t.Errorf("%s settings = %+v\nthe original's %+v", name, ours.Settings, theirs.Settings)
		}
		if ours.Embedded() != theirs.Embedded() || (ours.Prompt == "") != (theirs.Prompt == "") {
			t.Errorf("%s: the prompt's kind differs from the original's", name)
		}
	}
}

func TestBuiltinShellRoleAsksForOneCommandForThisSystem(t *testing.T) {
	r, _, err := Load("shell", "", os.DirFS("../../assets/roles"))
	if err != nil {
		t.Fatal(err)
	}
	vars := func(name string) string {
		return map[string]string{"__shell__": "fish", "__os_distro__": "Arch Linux", "__os__": "linux", "__arch__": "x86_64"}[name]
	}
	msgs := r.Build([]provider.Part{{Text: "list big files"}}, vars)
	if len(msgs) != 2 || msgs[0].Role != provider.RoleSystem {
		t.Fatalf("messages = %#v", msgs)
	}
	system := msgs[0].Text()
	for _, want := range []string{"fish", "Arch Linux", "nothing else"} {
		if !strings.Contains(system, want) {
			t.Errorf("the shell prompt does not say %q:\n%s", want, system)
		}
	}
	if strings.Contains(system, "{{") {
		t.Errorf("unexpanded variable in:\n%s", system)
	}
}

func TestBuiltinCodeRoleAsksForOneFencedBlockWithAnExample(t *testing.T) {
	r, _, err := Load("code", "", os.DirFS("../../assets/roles"))
	if err != nil {
		t.Fatal(err)
	}
	msgs := r.Messages("fizzbuzz in c")
	if len(msgs) != 4 {
		t.Fatalf("messages = %#v, want system, example input, example output, input", msgs)
	}
	if !strings.Contains(msgs[0].Text(), "code only") || !strings.Contains(msgs[0].Text(), "single fenced code block") {
		t.Errorf("system = %q", msgs[0].Text())
	}
	out := msgs[2].Text()
	if msgs[2].Role != provider.RoleAssistant || !strings.HasPrefix(out, "```go\n") || !strings.HasSuffix(out, "\n```") || strings.Count(out, "```") != 2 {
		t.Errorf("the example answer is not one fenced block: %q", out)
	}
}

func TestBuiltinCreateTitleAndExplainShellRoles(t *testing.T) {
	builtin := os.DirFS("../../assets/roles")
	title, _, err := Load("create-title", "", builtin)
	if err != nil {
		t.Fatal(err)
	}
	if p := title.Prompt; !strings.Contains(p, "title") || !strings.Contains(p, "three to six words") {
		t.Errorf("create-title prompt = %q", p)
	}
	explain, _, err := Load("explain-shell", "", builtin)
	if err != nil {
		t.Fatal(err)
	}
	if p := explain.Prompt; !strings.Contains(p, "shell command") || !strings.Contains(p, "option") {
		t.Errorf("explain-shell prompt = %q", p)
	}
	prompt, _, err := Load("create-prompt", "", builtin)
	if err != nil {
		t.Fatal(err)
	}
	if msgs := prompt.Messages("a tutor"); len(msgs) != 1 || !strings.HasSuffix(msgs[0].Text(), "a tutor") {
		t.Errorf("create-prompt messages = %#v", msgs)
	}
}

// The built-in prompts are ours: none repeats a line of the original's.
func TestBuiltinPromptsShareNoLineWithTheOriginals(t *testing.T) {
	builtin := os.DirFS("../../assets/roles")
	for _, name := range builtinNames {
		ours, _, _ := Load(name, "", builtin)
		theirs, _, _ := Load(name, filepath.Join(compatDir(t), "roles"), nil)
		if ours == nil || theirs == nil {
			t.Fatalf("%s did not load", name)
		}
		mine := map[string]bool{}
		for line := range strings.Lines(ours.Prompt) {
			if l := strings.TrimSpace(line); len(l) > 25 {
				mine[l] = true
			}
		}
		for line := range strings.Lines(theirs.Prompt) {
			if l := strings.TrimSpace(line); mine[l] {
				t.Errorf("%s repeats the original's line %q", name, l)
			}
		}
	}
}

func BenchmarkLoadBuiltinAndBuildMessages(b *testing.B) {
	builtin := os.DirFS("../../assets/roles")
	for b.Loop() {
		r, _, err := Load("diagnose", "", builtin)
		if err != nil {
			b.Fatal(err)
		}
		_ = r.Messages("the wifi drops every hour")
	}
}

func BenchmarkLoadUserFileWithFrontMatter(b *testing.B) {
	dir := b.TempDir()
	data, err := os.ReadFile(filepath.Join(compatDir(b), "config.role.example.md"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "example.md"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := Load("example", dir, nil); err != nil {
			b.Fatal(err)
		}
	}
}
