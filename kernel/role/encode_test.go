package role

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func allKeys() Settings {
	return Settings{
		Model:                   "claude:claude-sonnet-4-5",
		Temperature:             ptr(0.3),
		TopP:                    ptr(0.9),
		ReasoningEffort:         "high",
		EnabledTools:            ListOf("fs_ls", "fs_cat"),
		EnabledMCPServers:       StringList{Set: true},
		SkillsEnabled:           ptr(true),
		EnabledSkills:           ListOf("git-master"),
		EnabledMacros:           ListOf("review", "commit"),
		AutoContinue:            ptr(true),
		MaxAutoContinues:        ptr(5),
		InjectTodoInstructions:  ptr(false),
		ContinuationPrompt:      ptr("Carry on.\nFinish the list."),
		InjectSkillInstructions: ptr(false),
		SkillInstructions:       ptr("true"), // a string that looks like a boolean
		Memory:                  ptr(false),
	}
}

func TestEncodeNewRoleWithEveryKey(t *testing.T) {
	r := &Role{Name: "all", Prompt: "Do everything.", Settings: allKeys()}
	golden(t, "all-keys.md", r.Encode())
}

func TestEncodeRoundTrips(t *testing.T) {
	tests := []struct {
		name string
		role *Role
	}{
		{"every key", &Role{Prompt: "Do everything.", Settings: allKeys()}},
		{"empty lists stay set", &Role{Prompt: "p", Settings: Settings{EnabledTools: StringList{Set: true}, EnabledMacros: StringList{Set: true}}}},
		{"no settings", &Role{Prompt: "Just text."}},
		{"no prompt", &Role{Settings: Settings{EnabledTools: ListOf("all")}}},
		{"nothing at all", &Role{}},
		{"a prompt that starts with a dash line", &Role{Prompt: "---\nnot front matter\n---\nstill prompt"}},
		{"a temp role", Temp("You are a pirate.")},
		{"few-shot and variables", &Role{Prompt: "On {{__os__}}.\n### INPUT:\na\n### OUTPUT:\nb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.role.Encode()
			back, warnings, err := Parse("x", data, "x.md")
			if err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			if len(warnings) != 0 {
				t.Errorf("warnings %v", warnings)
			}
			if back.Prompt != tt.role.Prompt {
				t.Errorf("prompt = %q, want %q\n%s", back.Prompt, tt.role.Prompt, data)
			}
			if !back.Settings.Equal(&tt.role.Settings) {
				t.Errorf("settings = %+v\nwant %+v\n%s", back.Settings, tt.role.Settings, data)
			}
			if again := back.Encode(); string(again) != string(data) {
				t.Errorf("a second encode differs:\n%s\n---\n%s", again, data)
			}
		})
	}
}

func TestEncodeUnchangedFileIsWrittenBackAsItWas(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(compatDir(t), "roles", "*.md"))
	paths = append(paths, filepath.Join(compatDir(t), "config.role.example.md"))
	if len(paths) != 13 {
		t.Fatalf("found %d compat role files, want 13", len(paths))
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := Parse("x", data, path)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimRight(string(data), " \t\n") + "\n"
		if got := string(r.Encode()); got != want {
			t.Errorf("%s changed:\n%s", filepath.Base(path), got)
		}
	}
}

// A changed role keeps the file's comments, unknown keys and untouched
// values; a key written as null stays null while unset.
func TestEncodeChangedFileKeepsCommentsAndUnknownKeys(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "commented.md"))
	if err != nil {
		t.Fatal(err)
	}
	r, warnings, err := Parse("commented", data, "commented.md")
	if err != nil || len(warnings) != 1 {
		t.Fatalf("Parse: %v, %v", warnings, err)
	}
	s := &r.Settings
	s.Temperature = ptr(0.5)                   // changed
	s.EnabledTools = ListOf("fs_cat", "fs_ls") // the same list: kept as written
	s.EnabledSkills = ListOf("review", "lint") // new
	s.EnabledMCPServers = StringList{}         // unset: removed
	s.Memory = ptr(false)                      // was null
	s.EnabledMacros = StringList{Set: true}    // new, empty
	s.ContinuationPrompt = ptr("Keep going.")  // new
	out := r.Encode()
	golden(t, "commented-changed.md", out)

	back, _, err := Parse("commented", out, "commented.md")
	if err != nil {
		t.Fatal(err)
	}
	if !back.Settings.Equal(s) || back.Prompt != r.Prompt {
		t.Errorf("read back %+v\nwant %+v", back.Settings, *s)
	}
	for _, keep := range []string{"# Settings for reviewing pull requests.", "# the team's default reviewer model",
		"reasoning_effort: null", "enabled_tools: fs_cat,fs_ls", "owner: platform-team", "# Keep going until every todo is done."} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("lost %q", keep)
		}
	}
}

// The original's annotated example, changed, still reads back the same
// and keeps its keys that are not settings.
func TestEncodeChangedExampleRoleReadsBack(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(compatDir(t), "config.role.example.md"))
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := Parse("example", data, "example.md")
	if err != nil {
		t.Fatal(err)
	}
	r.Settings.Temperature = ptr(0.5)
	r.Settings.EnabledTools = StringList{}
	r.Settings.Memory = ptr(false)
	r.Settings.Model = ""
	out := r.Encode()
	back, warnings, err := Parse("example", out, "example.md")
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Parse: %v, %v\n%s", warnings, err, out)
	}
	if !back.Settings.Equal(&r.Settings) || back.Prompt != r.Prompt {
		t.Errorf("read back %+v\nwant %+v", back.Settings, r.Settings)
	}
	for _, keep := range []string{"name: <role-name>", "prompt: null", "reasoning_effort: null"} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("lost %q", keep)
		}
	}
	if strings.Contains(string(out), "model:") || strings.Contains(string(out), "enabled_tools:") {
		t.Errorf("an unset key is still written:\n%s", out)
	}
}

func TestEncodeKeepsUnknownKeysOfAChangedRole(t *testing.T) {
	r, warnings, err := Parse("x", []byte("---\ncolour: blue # mine\ntop_p: 1\n---\nHi\n"), "x.md")
	if err != nil || len(warnings) != 1 {
		t.Fatalf("Parse: %v %v", warnings, err)
	}
	r.Settings.TopP = ptr(0.5)
	if got, want := string(r.Encode()), "---\ncolour: blue # mine\ntop_p: 0.5\n---\nHi\n"; got != want {
		t.Errorf("Encode =\n%s\nwant\n%s", got, want)
	}
}

func TestEncodeSeesChangesMadeThroughPointers(t *testing.T) {
	r, _, err := Parse("x", []byte("---\ntemperature: 0.2\nenabled_tools: [a]\n---\nHi\n"), "x.md")
	if err != nil {
		t.Fatal(err)
	}
	*r.Settings.Temperature = 0.9
	r.Settings.EnabledTools.Items[0] = "b"
	if got, want := string(r.Encode()), "---\ntemperature: 0.9\nenabled_tools: [b]\n---\nHi\n"; got != want {
		t.Errorf("Encode =\n%s\nwant\n%s", got, want)
	}
}

func TestEncodeWritesAChangedListInTheFilesForm(t *testing.T) {
	tests := []struct {
		name, file string
		list       StringList
		want       string
	}{
		{"comma string", "enabled_tools: a,b", ListOf("a", "c"), "enabled_tools: a,c"},
		{"comma string, item with a comma", "enabled_tools: a,b", ListOf("a", "x,y"), "enabled_tools:\n  - a\n  - x,y"},
		{"comma string emptied", "enabled_tools: a", StringList{Set: true}, "enabled_tools: []"},
		{"flow list", "enabled_tools: [a, b]", ListOf("c"), "enabled_tools: [c]"},
		{"block list", "enabled_tools:\n  - a", ListOf("a", "b"), "enabled_tools:\n  - a\n  - b"},
		{"was null", "enabled_tools: null", ListOf("a"), "enabled_tools:\n  - a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, err := Parse("x", []byte("---\n"+tt.file+"\n---\nHi\n"), "x.md")
			if err != nil {
				t.Fatal(err)
			}
			r.Settings.EnabledTools = tt.list
			if got, want := string(r.Encode()), "---\n"+tt.want+"\n---\nHi\n"; got != want {
				t.Errorf("Encode =\n%s\nwant\n%s", got, want)
			}
		})
	}
}
