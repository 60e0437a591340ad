package convo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/skill"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// callerModel is a configuration whose model calls functions.
const callerModel = "model: a:one\nclients:\n  - {type: openai, name: a, models: [{name: one, supports_function_calling: true}]}\n"

// skillState is a conversation with the user tools fs_read and other,
// and the skills of files (name → SKILL.md) in its config directory.
func skillState(t *testing.T, yaml string, files map[string]string) *State {
	t.Helper()
	st := newState(t, callerModel+yaml)
	for name, text := range files {
		path := filepath.Join(st.Paths().SkillsDir, name, skill.FileName)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st.Tools = tools.NewRegistry()
	for _, n := range []string{"fs_read", "other"} {
		st.Tools.Add(&tools.Func{Name: n, Source: "script", Call: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }})
	}
	return st
}

const reviewSkill = "---\ndescription: reviews\nenabled_tools: [fs_read]\nauto_unload: true\n---\nREVIEW BODY\n"

func reqSystem(req *provider.ChatRequest) string {
	if len(req.Messages) == 0 || req.Messages[0].Role != provider.RoleSystem {
		return ""
	}
	return req.Messages[0].Text()
}

func TestLoadingASkillAddsItsBodyAndToolsAndAutoUnloadDropsIt(t *testing.T) {
	st := skillState(t, "", map[string]string{"review": reviewSkill, "plain": "just a body"})
	st.Role = role.Temp("You are terse.")
	req, _ := st.Request([]provider.Part{{Text: "hi"}}, false)
	if sys := reqSystem(req); !strings.HasPrefix(sys, "You are terse.\n\n"+skill.Instructions) || strings.Contains(sys, "REVIEW BODY") {
		t.Fatalf("before loading: %q", sys)
	}
	if got := offeredNames(st); got != "skill__list,skill__load,skill__unload" {
		t.Fatalf("offered before loading: %s", got)
	}
	if _, err := st.LoadSkill("review"); err != nil {
		t.Fatal(err)
	}
	req, _ = st.Request([]provider.Part{{Text: "hi"}}, false)
	if sys := reqSystem(req); !strings.HasSuffix(sys, skill.Instructions+"\n\n## Skill: review\n\nREVIEW BODY") {
		t.Fatalf("loaded: %q", sys)
	}
	if got := offeredNames(st); got != "fs_read,skill__list,skill__load,skill__unload" {
		t.Fatalf("offered when loaded: %s", got)
	}
	if _, err := st.LoadSkill("review"); err == nil {
		t.Fatal("loaded twice")
	}
	if _, err := st.LoadSkill("plain"); err != nil {
		t.Fatal(err)
	}
	st.endSkillTurn() // the end of Run
	if names := strings.Join(skillNames(st), ","); names != "plain" {
		t.Fatalf("after the turn: %s", names)
	}
	req, _ = st.Request([]provider.Part{{Text: "hi"}}, false)
	if sys := reqSystem(req); strings.Contains(sys, "REVIEW BODY") || !strings.HasSuffix(sys, "## Skill: plain\n\njust a body") || strings.Contains(offeredNames(st), "fs_read") {
		t.Fatalf("auto_unload left %q, %s", sys, offeredNames(st))
	}
	if err := st.UnloadSkill("plain"); err != nil || len(st.LoadedSkills()) != 0 {
		t.Fatalf("unload: %v", err)
	}
	// A fork starts with the parent's skills and changes its own.
	if _, err := st.LoadSkill("plain"); err != nil {
		t.Fatal(err)
	}
	f := st.Fork()
	if err := f.UnloadSkill("plain"); err != nil || len(st.LoadedSkills()) != 1 {
		t.Fatalf("fork: %v, parent %v", err, skillNames(st))
	}
}

func skillNames(st *State) []string {
	var out []string
	for _, s := range st.LoadedSkills() {
		out = append(out, s.Name)
	}
	return out
}

func TestSkillToolsJoinAnEnabledToolsList(t *testing.T) {
	st := skillState(t, "enabled_tools: other\n", map[string]string{"review": reviewSkill})
	if got := offeredNames(st); got != "other,skill__list,skill__load,skill__unload" {
		t.Fatalf("before: %s", got)
	}
	if _, err := st.LoadSkill("review"); err != nil {
		t.Fatal(err)
	}
	if got := offeredNames(st); got != "fs_read,other,skill__list,skill__load,skill__unload" {
		t.Fatalf("after: %s", got)
	}
}

func TestSkillPrecedence(t *testing.T) {
	files := map[string]string{"a": "A", "b": "B", "gh": "---\nenabled_mcp_servers: github\n---\nGH"}
	for _, tc := range []struct {
		name, yaml string
		role       *role.Settings
		want       string // available skills, or the error
	}{
		{"all installed", "", nil, "a,b,gh"},
		{"mcp off drops the skill that needs it", "mcp_server_support: false\n", nil, "a,b"},
		{"global enabled_skills", "enabled_skills: [b]\n", nil, "b"},
		{"the role's beats the global", "enabled_skills: [b]\n", &role.Settings{EnabledSkills: role.StringList{Set: true, Items: []string{"a"}}}, "a"},
		{"visible_skills", "visible_skills: [a, gh]\n", nil, "a,gh"},
		{"not visible", "visible_skills: [a]\nenabled_skills: [b]\n", nil, `error: enabled_skills names skill "b", which visible_skills does not list`},
		{"not installed", "enabled_skills: [nope]\n", nil, `error: enabled_skills names skill "nope", which is not installed`},
		{"skills_enabled false in the role", "", &role.Settings{SkillsEnabled: new(false)}, ""},
		{"skills_enabled false globally beats the role's true", "skills_enabled: false\n", &role.Settings{SkillsEnabled: new(true)}, ""},
		{"function calling off", "function_calling_support: false\n", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := skillState(t, tc.yaml, files)
			if tc.role != nil {
				st.Role = role.Temp("r")
				st.Role.Settings = *tc.role
			}
			got, err := st.AvailableSkills()
			s := strings.Join(got, ",")
			if err != nil {
				s = "error: " + err.Error()
			}
			if !strings.HasPrefix(s, tc.want) || tc.want == "" && s != "" {
				t.Fatalf("got %q, want %q", s, tc.want)
			}
			// A hard error fails the turn before anything is sent.
			_, _, _, perr := st.Prepare(context.Background(), Ask{Parts: []provider.Part{{Text: "x"}}})
			if (perr != nil) != (err != nil) {
				t.Fatalf("Prepare: %v", perr)
			}
			if tc.want == "" {
				if _, err := st.LoadSkill("a"); err == nil {
					t.Fatal("loaded a skill with skills off")
				}
				if strings.Contains(offeredNames(st), "skill__") {
					t.Fatal("skill functions offered with skills off")
				}
			}
		})
	}
}

func TestSkillHintSettings(t *testing.T) {
	files := map[string]string{"a": "A"}
	for _, tc := range []struct {
		name, yaml string
		files      map[string]string
		want       string // the system message
	}{
		{"default", "", files, skill.Instructions},
		{"custom", "skill_instructions: Use skills.\n", files, "Use skills."},
		{"off", "inject_skill_instructions: false\n", files, ""},
		{"no skills", "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := skillState(t, tc.yaml, tc.files)
			req, _ := st.Request([]provider.Part{{Text: "hi"}}, false)
			if got := reqSystem(req); got != tc.want {
				t.Fatalf("system %q, want %q", got, tc.want)
			}
		})
	}
	// A role that takes the input gets no system text, loaded skills
	// included.
	st := skillState(t, "", files)
	if _, err := st.LoadSkill("a"); err != nil {
		t.Fatal(err)
	}
	st.Role = role.Temp("Translate: " + role.InputPlaceholder)
	req, _ := st.Request([]provider.Part{{Text: "hi"}}, false)
	if len(req.Messages) != 1 || req.Messages[0].Role != provider.RoleUser || req.Messages[0].Text() != "Translate: hi" {
		t.Fatalf("__INPUT__ role: %+v", req.Messages)
	}
}

func TestASkillNamingAMissingToolIsWarnedAbout(t *testing.T) {
	st := skillState(t, "", map[string]string{"odd": "---\nenabled_tools: [fs_read, no_such_tool]\n---\nB"})
	w := warnings(st)
	if _, err := st.LoadSkill("odd"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(st.Paths().SkillsDir, "odd", skill.FileName)
	if len(*w) != 1 || (*w)[0] != path+`: enabled_tools names "no_such_tool", which is no tool or mapping_tools alias` {
		t.Fatalf("warnings %q", *w)
	}
}

func TestABrokenSkillIsOneWarningAndLeftOut(t *testing.T) {
	st := skillState(t, "", map[string]string{"ok": "---\ndescription: fine\n---\nB", "bad": "---\ndescription: [\n---\nB"})
	w := warnings(st)
	list, err := st.ListSkills()
	if err != nil || len(list) != 1 || list[0].Name != "ok" {
		t.Fatalf("list %+v, %v", list, err)
	}
	if len(*w) != 1 || !strings.Contains((*w)[0], filepath.Join("bad", "SKILL.md")+":2: front matter:") {
		t.Fatalf("warnings %q", *w)
	}
	if _, err := st.LoadSkill("bad"); err == nil || !strings.Contains(err.Error(), "SKILL.md:2:") {
		t.Fatalf("load: %v", err)
	}
}

// skillLoader is a model that loads a skill with its first reply and
// answers the tool result with text; it records the requests.
type skillLoader struct {
	mu   sync.Mutex
	reqs []*provider.ChatRequest
}

func (p *skillLoader) Chat(_ context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	cp := *req
	p.reqs = append(p.reqs, &cp)
	if req.Messages[len(req.Messages)-1].Role == provider.RoleTool {
		return send(&provider.ChatEvent{Text: "done"})
	}
	return send(&provider.ChatEvent{ToolCall: &provider.ToolCall{ID: "1", Name: "skill__load", Arguments: `{"name":"review"}`}})
}

func TestASkillTheModelLoadsTakesEffectOnTheNextRequest(t *testing.T) {
	for _, withRole := range []bool{false, true} {
		st := skillState(t, "", map[string]string{"review": reviewSkill})
		if withRole {
			st.Role = role.Temp("You are terse.")
		}
		p := &skillLoader{}
		a := Ask{Parts: []provider.Part{{Text: "review this"}}, Display: func() chat.Display { return chat.Plain(nopWriter{}) }}
		req, added, _, err := st.Prepare(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		reply, _, err := st.Turn(context.Background(), p, models.Model{Name: "one", SupportsFunctionCalling: true}, req, added, a.Display)
		if err != nil || reply.Text != "done" || len(p.reqs) != 2 {
			t.Fatalf("reply %+v, %v, %d requests", reply, err, len(p.reqs))
		}
		first, second := p.reqs[0], p.reqs[1]
		if strings.Contains(reqSystem(first), "REVIEW BODY") || strings.Contains(toolNames(first), "fs_read") {
			t.Fatalf("first request already has the skill: %q %s", reqSystem(first), toolNames(first))
		}
		sys := reqSystem(second)
		if !strings.HasSuffix(sys, "## Skill: review\n\nREVIEW BODY") || strings.Count(sys, skill.Instructions) != 1 || !strings.Contains(toolNames(second), "fs_read") {
			t.Fatalf("second request: %q %s", sys, toolNames(second))
		}
		if withRole && !strings.HasPrefix(sys, "You are terse.\n\n") {
			t.Fatalf("the role's prompt was lost: %q", sys)
		}
		if n := len(second.Messages); second.Messages[n-1].Role != provider.RoleTool || second.Messages[1].Text() != "review this" {
			t.Fatalf("second request:\n%s", dumpTexts(second))
		}
	}
}

type nopWriter struct{}

func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
