package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// Skills through the real binary (issue 18): --skill, .skill load and the
// model's skill__load add a skill's body to the system message and its
// tools to the request; auto_unload drops them after one turn; a broken
// SKILL.md is one line.

// The skills these tests write: review grants a bundled tool and drops
// itself after a turn; sticky stays.
var testSkills = map[string]string{
	"skills/review/SKILL.md": "---\ndescription: Reviews code\nenabled_tools: [get_current_time]\nauto_unload: true\n---\nREVIEW-BODY-7731\n",
	"skills/sticky/SKILL.md": "---\ndescription: Stays loaded\n---\nSTICKY-BODY-4410\n",
}

func hasSkill(req *fakellm.ChatRequest, body, tool string) (inSystem, offeredTool bool) {
	return strings.Contains(systemText(req), body), slices.Contains(offered(req), tool)
}

func TestSkillFlagAddsTheBodyAndTheToolsToTheRequest(t *testing.T) {
	fake := answering("ok")
	e := newEnv(t, fakeConfig(fakellm.StartOpenAI(t, fake), ""))
	e.writeFiles(testSkills)
	e.mustSucceed(e.run("", "hello"))
	e.mustSucceed(e.run("", "--skill", "review", "--skill", "sticky", "hello"))
	reqs := fake.Requests()
	without, with := &reqs[0], &reqs[1]
	if body, tool := hasSkill(without, "REVIEW-BODY-7731", "get_current_time"); body || tool {
		t.Fatalf("without --skill: system %q, tools %v", systemText(without), offered(without))
	}
	// The hint and the functions are there whenever skills are.
	if !strings.Contains(systemText(without), "skill__list") || !slices.Contains(offered(without), "skill__load") {
		t.Fatalf("no skill hint or functions: %q %v", systemText(without), offered(without))
	}
	body, tool := hasSkill(with, "REVIEW-BODY-7731", "get_current_time")
	if !body || !tool || !strings.Contains(systemText(with), "STICKY-BODY-4410") {
		t.Fatalf("with --skill: system %q, tools %v", systemText(with), offered(with))
	}
	// The bundled skills were installed.
	if _, err := os.Stat(filepath.Join(e.configDir, "skills", "code-review", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	// An unknown name without a terminal is an error, not an editor.
	line := oneLineError(t, e.run("", "--skill", "nope", "hello"))
	if !strings.Contains(line, `--skill nope: skill "nope": no such skill`) {
		t.Fatalf("error %q", line)
	}
	// enabled_skills naming a skill that is not installed fails the run.
	e2 := newEnv(t, fakeConfig(fakellm.StartOpenAI(t, answering("ok")), "enabled_skills: [ghost]\n"))
	if line := oneLineError(t, e2.run("", "hello")); !strings.Contains(line, `enabled_skills names skill "ghost", which is not installed`) {
		t.Fatalf("error %q", line)
	}
}

func TestSkillLoadInTheREPLAndAutoUnload(t *testing.T) {
	fake := startREPLFake(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "reply " + string(rune('A'+n))}
	})
	e := newEnv(t, fakeConfig(fake.url, ""))
	e.writeFiles(testSkills)
	p := e.startREPL("--skill", "sticky")
	p.enter(".skill load review", "Loaded skill review.")
	p.enter(".skill", "sticky", "review")
	p.enter(".list skills", "code-review", "* review", "Reviews code", "* sticky")
	p.enter("first question", "reply A")
	p.enter("second question", "reply B")
	p.enter(".skill", "sticky")
	p.enter(".skill unload sticky", "Unloaded skill sticky.")
	p.enter("third question", "reply C")
	p.exit()
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range []struct{ review, sticky bool }{{true, true}, {false, true}, {false, false}} {
		review, tool := hasSkill(&reqs[i], "REVIEW-BODY-7731", "get_current_time")
		sticky := strings.Contains(systemText(&reqs[i]), "STICKY-BODY-4410")
		if review != want.review || tool != want.review || sticky != want.sticky {
			t.Fatalf("request %d: review %v (tool %v), sticky %v; want %+v\nsystem %q", i+1, review, tool, sticky, want, systemText(&reqs[i]))
		}
	}
}

func TestTheModelLoadsASkill(t *testing.T) {
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		if last := req.Messages[len(req.Messages)-1]; last["role"] == "tool" {
			return fakellm.Reply{Text: "reviewed"}
		}
		return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "s", Name: "skill__load", Arguments: `{"name":"sticky"}`}}}
	}}
	e := newEnv(t, fakeConfig(fakellm.StartOpenAI(t, fake), ""))
	e.writeFiles(testSkills)
	r := e.run("", "review my change")
	e.mustSucceed(r)
	reqs := fake.Requests()
	if len(reqs) != 2 || !strings.Contains(r.stdout, "reviewed") {
		t.Fatalf("%d requests, stdout %q", len(reqs), r.stdout)
	}
	if strings.Contains(systemText(&reqs[0]), "STICKY-BODY-4410") || !strings.Contains(systemText(&reqs[1]), "STICKY-BODY-4410") {
		t.Fatalf("system messages:\n%q\n%q", systemText(&reqs[0]), systemText(&reqs[1]))
	}
	if res := toolResultOf(&reqs[1]); !strings.Contains(res, "Loaded skill sticky") {
		t.Fatalf("tool result %q", res)
	}
}

func TestABrokenSkillIsOneLine(t *testing.T) {
	fake := answering("ok")
	e := newEnv(t, fakeConfig(fakellm.StartOpenAI(t, fake), ""))
	e.writeFiles(map[string]string{
		"skills/broken/SKILL.md": "---\ndescription: [unclosed\n---\nbody\n",
		"skills/sticky/SKILL.md": testSkills["skills/sticky/SKILL.md"],
	})
	// A workspace copy wins over the user's of the same name.
	work := t.TempDir()
	ws := filepath.Join(work, ".coyote", "skills", "sticky", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(ws), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws, []byte("WORKSPACE-STICKY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.runIn(work, "", "--list-skills")
	e.mustSucceed(r)
	names := strings.Fields(r.stdout)
	if !slices.Contains(names, "broken") || !slices.Contains(names, "sticky") || !slices.Contains(names, "debugging") {
		t.Fatalf("listed %v", names)
	}
	path := filepath.Join(e.configDir, "skills", "broken", "SKILL.md")
	if want := "warning: " + path + ":2: front matter: "; strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, want) {
		t.Fatalf("stderr %q, want one line starting %q", r.stderr, want)
	}
	// The run goes on without it; loading it is one line naming the file.
	r = e.runIn(work, "", "--skill", "sticky", "hello")
	e.mustSucceed(r)
	if sys := systemText(&fake.Requests()[0]); !strings.Contains(sys, "WORKSPACE-STICKY") || strings.Contains(sys, "STICKY-BODY-4410") {
		t.Fatalf("system %q", sys)
	}
	if line := oneLineError(t, e.run("", "--skill", "broken", "hello")); !strings.Contains(line, path+":2:") {
		t.Fatalf("error %q", line)
	}
}

// .info skills lists what is available, .edit skill edits one (a loaded
// skill is read again), and .delete skill removes one picked from the list.
func TestSkillInfoEditAndDeleteInTheREPL(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "ok"} })
	e := newEnv(t, fakeConfig(fake.url, ""))
	e.writeFiles(testSkills)
	editor := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/STICKY-BODY-4410/EDITED-BODY-5520/' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.set("EDITOR=" + editor)
	p := e.startREPL()
	p.enter(".info skills", "review", "Reviews code", "sticky", "Stays loaded")
	p.enter(".skill load sticky", "Loaded skill sticky.")
	p.enter(".edit skill sticky")
	p.enter("hello", "ok")
	if sys := systemText(&fake.Requests()[0]); !strings.Contains(sys, "EDITED-BODY-5520") {
		t.Fatalf("the edited skill was not read again: %q", sys)
	}
	p.enter(".edit skill nope", "there is no skill \"nope\"")
	p.enter(".delete skill", "review", "Delete which")
	// The list is in name order, the bundled skills among the test's.
	names := []string{"code-review", "commit-hygiene", "debugging", "review", "sticky", "writing-a-plan"}
	p.enter(strconv.Itoa(slices.Index(names, "review")+1), "Deleted review")
	p.exit()
	if _, err := os.Stat(filepath.Join(e.configDir, "skills", "review", "SKILL.md")); err == nil {
		t.Fatal("the skill's file is still there")
	}
}

// .delete macro lists the global and workspace macros (the workspace's
// marked) and removes the ones picked, through the real binary.
func TestDeleteMacroInTheREPL(t *testing.T) {
	fake := startREPLFake(t, func(int, *fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "ok"} })
	e := newEnv(t, fakeConfig(fake.url, ""))
	e.writeFiles(map[string]string{"macros/zz-mine.yaml": "steps:\n  - .info\n", "macros/zz-keep.yaml": "steps:\n  - .info\n"})
	p := e.startREPL()
	p.enter(".delete macro")
	out := p.expect("Delete which", replTimeout)
	m := regexp.MustCompile(`(?m)^\s*(\d+)\s+zz-mine\s*$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("zz-mine is not in the list:\n%s", out)
	}
	p.enter(m[1], "Deleted zz-mine")
	p.exit()
	for name, want := range map[string]bool{"zz-mine.yaml": false, "zz-keep.yaml": true} {
		if _, err := os.Stat(filepath.Join(e.configDir, "macros", name)); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", name, err == nil, want)
		}
	}
}
