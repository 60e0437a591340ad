package skill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/assets"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       Skill // Name and Path are filled in
		err        string
	}{
		{name: "body only", text: "Be careful.\n", want: Skill{Body: "Be careful."}},
		{name: "every key, lists", text: "---\ndescription: Reviews code\nenabled_tools: [fs_read, fs_grep]\nenabled_mcp_servers:\n  - github\nauto_unload: true\n---\n\n# Body\n",
			want: Skill{Description: "Reviews code", EnabledTools: []string{"fs_read", "fs_grep"}, EnabledMCPServers: []string{"github"}, AutoUnload: true, Body: "# Body"}},
		{name: "comma strings", text: "---\nenabled_tools: \"a, b,,c\"\nenabled_mcp_servers: x\n---\nB",
			want: Skill{EnabledTools: []string{"a", "b", "c"}, EnabledMCPServers: []string{"x"}, Body: "B"}},
		{name: "nulls and unknown keys", text: "---\ndescription:\nenabled_tools:\nauto_unload:\nname: other\nversion: 2\n---\nB",
			want: Skill{Body: "B"}},
		{name: "empty front matter", text: "---\n---\nB", want: Skill{Body: "B"}},
		{name: "BOM and CRLF", text: "\ufeff---\r\ndescription: d\r\n---\r\nB\r\n", want: Skill{Description: "d", Body: "B"}},
		{name: "not closed", text: "---\ndescription: d\nbody", err: "SKILL.md:1: the front matter that starts here is not closed by a --- line"},
		{name: "bad yaml", text: "---\ndescription: d\nenabled_tools: [a\n---\nB", err: "SKILL.md:3: front matter: "},
		{name: "wrong type", text: "---\nauto_unload: maybe\n---\nB", err: "SKILL.md:2: auto_unload must be true or false"},
		{name: "list of maps", text: "---\ndescription: d\nenabled_tools:\n  - {a: 1}\n---\nB", err: "SKILL.md:4: enabled_tools must be a list of names"},
		{name: "not a mapping", text: "---\n- a\n---\nB", err: "SKILL.md:2: the front matter between the --- lines must be"},
		{name: "repeated key", text: "---\ndescription: a\ndescription: b\n---\nB", err: "SKILL.md:3: description is set twice (first at line 2)"},
		{name: "not UTF-8", text: "---\ndescription: d\n---\nline\n\xff\xfe\n", err: "SKILL.md:5: not UTF-8 text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse("s", "SKILL.md", []byte(tc.text))
			if tc.err != "" {
				var fe *FileError
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) || !errors.As(err, &fe) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line starting %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Name, tc.want.Path = "s", "SKILL.md"
			if fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", tc.want) {
				t.Fatalf("got  %+v\nwant %+v", *got, tc.want)
			}
		})
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{"code-review": true, "a_b.c2": true, "": false, ".hidden": false, "a/b": false, "..": false, "a b": false} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v", name, err)
		}
	}
}

// writeSkill writes dir/name/SKILL.md.
func writeSkill(t testing.TB, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name, FileName)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDiscoveryTheWorkspaceCopyWins(t *testing.T) {
	d := Dirs{Global: t.TempDir(), Workspace: filepath.Join(t.TempDir(), "skills")}
	writeSkill(t, d.Global, "shared", "---\ndescription: global\n---\nglobal body")
	writeSkill(t, d.Global, "mine", "---\ndescription: mine\n---\nmy body")
	ws := writeSkill(t, d.Workspace, "shared", "---\ndescription: workspace\n---\nworkspace body")
	writeSkill(t, d.Workspace, "local", "local body")
	// Not skills: a dot directory, a directory without SKILL.md, a file.
	writeSkill(t, d.Global, ".hidden", "x")
	if err := os.MkdirAll(filepath.Join(d.Global, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Global, "README.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := NewCatalog()
	list, warnings := c.Installed(d)
	var got []string
	for _, e := range list {
		got = append(got, e.Name+":"+e.Source)
	}
	if want := []string{"local:workspace", "mine:global", "shared:workspace"}; !slices.Equal(got, want) || len(warnings) != 0 {
		t.Fatalf("installed %v (warnings %v), want %v", got, warnings, want)
	}
	s, err := c.Load(d, "shared")
	if err != nil || s.Path != ws || s.Body != "workspace body" || s.Description != "workspace" || s.Source != SourceWorkspace {
		t.Fatalf("Load: %+v, %v", s, err)
	}
	if _, err := c.Load(d, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load(nope) = %v", err)
	}
	if _, err := c.Load(d, "../mine"); err == nil {
		t.Fatal("a name with a slash loaded")
	}
}

func TestHeaderReadsTheFrontMatterOnlyAndIsCachedUntilTheFileChanges(t *testing.T) {
	dir := t.TempDir()
	// The body is not UTF-8: reading the header must not look at it.
	path := writeSkill(t, dir, "s", "---\ndescription: first\n---\nbody \xff")
	c := NewCatalog()
	e := Entry{Name: "s", Path: path, Source: SourceGlobal}
	h, err := c.Header(e)
	if err != nil || h.Description != "first" || h.Body != "" {
		t.Fatalf("Header: %+v, %v", h, err)
	}
	if _, err := c.Load(Dirs{Global: dir}, "s"); err == nil || !strings.Contains(err.Error(), "SKILL.md:4: not UTF-8") {
		t.Fatalf("Load of a body that is not UTF-8: %v", err)
	}
	again, _ := c.Header(e)
	if again != h {
		t.Fatal("an unchanged file was parsed again")
	}
	writeSkill(t, dir, "s", "---\ndescription: second, longer\n---\nbody")
	if h, _ := c.Header(e); h.Description != "second, longer" {
		t.Fatalf("a changed file was not read again: %+v", h)
	}
	writeSkill(t, dir, "s", "---\ndescription: [\n---\nbody")
	if _, err := c.Header(e); err == nil || !strings.HasPrefix(err.Error(), path+":2: front matter:") {
		t.Fatalf("broken header: %v", err)
	}
}

func TestAvailable(t *testing.T) {
	installed := []string{"a", "b", "mcp"}
	needsMCP := func(n string) (bool, error) { return n == "mcp", nil }
	for _, tc := range []struct {
		name string
		p    Policy
		want []string
		err  string
	}{
		{"all installed", Policy{Enabled: true, MCP: true}, []string{"a", "b", "mcp"}, ""},
		{"off", Policy{Enabled: false, MCP: true, EnabledSkills: []string{"a"}}, nil, ""},
		{"MCP off drops the MCP skill", Policy{Enabled: true}, []string{"a", "b"}, ""},
		{"visible", Policy{Enabled: true, MCP: true, Visible: []string{"b"}}, []string{"b"}, ""},
		{"enabled beats visible", Policy{Enabled: true, MCP: true, Visible: []string{"a", "b"}, EnabledSkills: []string{"a"}}, []string{"a"}, ""},
		{"enabled [] is none", Policy{Enabled: true, MCP: true, EnabledSkills: []string{}}, []string{}, ""},
		{"enabled outside visible", Policy{Enabled: true, MCP: true, Visible: []string{"a"}, EnabledSkills: []string{"b"}}, nil,
			`enabled_skills names skill "b", which visible_skills does not list`},
		{"enabled not installed", Policy{Enabled: true, MCP: true, EnabledSkills: []string{"a", "zz"}}, nil,
			`enabled_skills names skill "zz", which is not installed`},
		{"visible not installed", Policy{Enabled: true, MCP: true, Visible: []string{"zz"}}, nil, `visible_skills names skill "zz", which is not installed`},
		{"enabled MCP skill with MCP off", Policy{Enabled: true, EnabledSkills: []string{"mcp", "a"}}, []string{"a"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Available(tc.p, installed, needsMCP)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestAvailableReadsNoFrontMatterWithMCPOn(t *testing.T) {
	asked := 0
	if _, err := Available(Policy{Enabled: true, MCP: true}, []string{"a", "b"}, func(string) (bool, error) { asked++; return false, nil }); err != nil || asked != 0 {
		t.Fatalf("asked %d times (err %v)", asked, err)
	}
	// With MCP off, a skill whose front matter is broken is left out.
	got, _ := Available(Policy{Enabled: true}, []string{"a", "b"}, func(n string) (bool, error) {
		if n == "a" {
			return false, errors.New("broken")
		}
		return false, nil
	})
	if !slices.Equal(got, []string{"b"}) {
		t.Fatalf("got %v", got)
	}
}

func TestLoaded(t *testing.T) {
	var l Loaded
	a := &Skill{Name: "a", EnabledTools: []string{"t1", "t2"}, Body: "A body"}
	b := &Skill{Name: "b", EnabledTools: []string{"t2", "t3"}, EnabledMCPServers: []string{"gh"}, AutoUnload: true, Body: "B body"}
	if err := l.Add(a); err != nil {
		t.Fatal(err)
	}
	if err := l.Add(b); err != nil {
		t.Fatal(err)
	}
	if err := l.Add(a); err == nil {
		t.Fatal("a loaded twice")
	}
	if got := l.Tools(); !slices.Equal(got, []string{"t1", "t2", "t3"}) {
		t.Fatalf("tools %v", got)
	}
	if got := l.MCPServers(); !slices.Equal(got, []string{"gh"}) {
		t.Fatalf("servers %v", got)
	}
	if got := l.Bodies(); got != "## Skill: a\n\nA body\n\n## Skill: b\n\nB body" {
		t.Fatalf("bodies %q", got)
	}
	fork := l.Clone()
	v := l.Version()
	if dropped := l.DropAutoUnload(); !slices.Equal(dropped, []string{"b"}) || l.Has("b") || !l.Has("a") || l.Version() == v {
		t.Fatalf("dropped %v, loaded %v", dropped, l.Names())
	}
	if !fork.Has("b") {
		t.Fatal("the fork lost a skill its parent dropped")
	}
	if err := l.Remove("b"); err == nil {
		t.Fatal("removed a skill that is not loaded")
	}
	if err := l.Remove("a"); err != nil || len(l.Names()) != 0 {
		t.Fatalf("remove: %v, %v", err, l.Names())
	}
	var none *Loaded
	if none.Has("a") || none.Tools() != nil || none.Bodies() != "" || none.DropAutoUnload() != nil || none.Version() != 0 {
		t.Fatal("a nil set is not empty")
	}
}

// host is a Host over a fixed set of skills.
type host struct {
	skills map[string]*Skill
	loaded Loaded
}

func (h *host) ListSkills() ([]Listed, error) {
	var out []Listed
	for _, n := range []string{"a", "b"} {
		s := h.skills[n]
		out = append(out, Listed{Name: n, Description: s.Description, Tools: s.EnabledTools, Loaded: h.loaded.Has(n)})
	}
	return out, nil
}

func (h *host) LoadSkill(name string) (*Skill, error) {
	s, ok := h.skills[name]
	if !ok {
		return nil, fmt.Errorf("skill %q: %w", name, ErrNotFound)
	}
	return s, h.loaded.Add(s)
}

func (h *host) UnloadSkill(name string) error { return h.loaded.Remove(name) }

func TestFuncs(t *testing.T) {
	h := &host{skills: map[string]*Skill{
		"a": {Name: "a", Description: "does a", EnabledTools: []string{"fs_read"}, AutoUnload: true},
		"b": {Name: "b", Description: "does b"},
	}}
	byName := map[string]func(string) (string, error){}
	for _, f := range Funcs(h) {
		if !f.Builtin || !f.Serial || f.Source != "builtin" || !strings.HasPrefix(f.Name, Prefix) {
			t.Fatalf("%s: %+v", f.Name, f)
		}
		if !json.Valid(f.Tool().Parameters) {
			t.Fatalf("%s: bad schema", f.Name)
		}
		call := f.Call
		byName[f.Name] = func(args string) (string, error) { return call(context.Background(), json.RawMessage(args)) }
	}
	out, err := byName["skill__load"](`{"name":"a"}`)
	if err != nil || !strings.Contains(out, "Loaded skill a") || !strings.Contains(out, "fs_read") || !strings.Contains(out, "unloads itself") {
		t.Fatalf("load: %q, %v", out, err)
	}
	out, err = byName["skill__list"](``)
	var listed struct{ Skills []Listed }
	if err != nil || json.Unmarshal([]byte(out), &listed) != nil || len(listed.Skills) != 2 || !listed.Skills[0].Loaded || listed.Skills[1].Loaded ||
		listed.Skills[0].Tools[0] != "fs_read" || listed.Skills[1].Description != "does b" {
		t.Fatalf("list: %s, %v", out, err)
	}
	for args, want := range map[string]string{`{}`: "needs the name", `{"name":"  "}`: "needs the name", `[1]`: "invalid arguments", `{"name":"zz"}`: "no such skill"} {
		if _, err := byName["skill__load"](args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("load %s: %v, want %q", args, err, want)
		}
	}
	if out, err := byName["skill__unload"](`{"name":"a"}`); err != nil || out != "Unloaded skill a." {
		t.Fatalf("unload: %q, %v", out, err)
	}
	if _, err := byName["skill__unload"](`{"name":"a"}`); err == nil {
		t.Fatal("unloaded a skill that is not loaded")
	}
}

func TestBundledSkillsParseAndInstallWithoutReplacing(t *testing.T) {
	var names []string
	err := fs.WalkDir(assets.Skills(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := fs.ReadFile(assets.Skills(), p)
		name := filepath.Dir(p)
		s, perr := Parse(name, p, data)
		if perr != nil {
			t.Errorf("%s: %v", p, perr)
		} else if s.Description == "" || len(strings.Split(s.Body, "\n")) < 30 {
			t.Errorf("%s: no description or a short body", p)
		}
		names = append(names, name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"code-review", "commit-hygiene", "debugging", "writing-a-plan"} {
		if !slices.Contains(names, want) {
			t.Errorf("no bundled skill %s (have %v)", want, names)
		}
	}
	dir := t.TempDir()
	edited := writeSkill(t, dir, "debugging", "my own")
	installed, err := Install(dir)
	if err != nil || slices.Contains(installed, "debugging/SKILL.md") || len(installed) != len(names)-1 {
		t.Fatalf("installed %v, %v", installed, err)
	}
	if data, _ := os.ReadFile(edited); string(data) != "my own" {
		t.Fatalf("the user's skill was replaced: %q", data)
	}
	if again, err := Install(dir); err != nil || len(again) != 0 {
		t.Fatalf("second install: %v, %v", again, err)
	}
}

func TestCreate(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(dir, "new", func(s string) (string, error) { return s, nil }); err == nil || !strings.Contains(err.Error(), "unchanged") {
		t.Fatalf("unchanged scaffold: %v", err)
	}
	if _, err := Create(dir, "new", func(string) (string, error) { return "---\nauto_unload: x\n---\n", nil }); err == nil {
		t.Fatal("a broken skill was created")
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused skill left %v", err)
	}
	path, err := Create(dir, "new", func(s string) (string, error) {
		return strings.Replace(s, "description: ", "description: mine", 1), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := Parse("new", path, mustRead(t, path)); err != nil || s.Description != "mine" {
		t.Fatalf("created %+v, %v", s, err)
	}
	if _, err := Create(dir, "new", func(string) (string, error) { return "other", nil }); err == nil {
		t.Fatal("Create replaced an existing skill")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
