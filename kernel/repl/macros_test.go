package repl

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/trust"
)

// writeMacro writes a macro file into the global or workspace directory.
func writeMacro(t *testing.T, r *REPL, workspace bool, name, yaml string) {
	t.Helper()
	dir := r.o.MacroDirs.Global
	if workspace {
		dir = r.o.MacroDirs.Workspace
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMacroInvocationAndIsolation(t *testing.T) {
	r, io := newTestREPL(t)
	out := io.Out.(interface{ String() string })
	ctx := context.Background()
	writeMacro(t, r, false, "poetic", "description: Switch to verse\nisolated: false\nsteps:\n  - .role poet\n  - .set temperature 0.3\n")
	writeMacro(t, r, false, "aside", "description: Try verse aside\nsteps:\n  - .role poet\n  - .model fake:thinker\n")
	writeMacro(t, r, false, "info", "description: shadowed by the built-in\nsteps:\n  - .role poet\n")
	writeMacro(t, r, true, "aside", "description: the workspace's aside\nsteps:\n  - .prompt from the workspace\n  - .info role\n")

	// Isolated (the workspace's one shadows the global one): nothing
	// flows back.
	mustHandle(t, r, ".aside")
	if r.conv.Role != nil || r.conv.Model != "" || !strings.Contains(out.String(), ">> .prompt from the workspace\n") || !strings.Contains(out.String(), "from the workspace\n") {
		t.Fatalf("isolated macro leaked: role %v model %q\n%s", r.conv.Role, r.conv.Model, out.String())
	}
	// Not isolated: the role switch and the setting persist.
	mustHandle(t, r, ".poetic")
	if r.conv.Role == nil || r.conv.Role.Name != "poet" || *r.conv.Role.Settings.Temperature != 0.3 {
		t.Fatalf("non-isolated macro did not persist: %+v", r.conv.Role)
	}
	if r.inMacro || r.macroIsolated || r.macroDepth != 0 {
		t.Fatal("macro mode not restored")
	}
	// A macro named like a built-in runs only through .macro.
	mustHandle(t, r, ".exit role")
	mustHandle(t, r, ".info")
	if r.conv.Role != nil {
		t.Fatal(".info ran the macro instead of the built-in")
	}
	mustHandle(t, r, ".macro info") // isolated: nothing flows back, but it ran
	if !strings.Contains(out.String(), ">> .role poet\n") {
		t.Fatal(".macro info did not run the shadowed macro")
	}
	// A miss is the unknown-command error, and a top-level typo never
	// opens the creator.
	if err := r.Handle(ctx, ".asid"); err == nil || err.Error() != unknownCommand {
		t.Fatalf(".asid: %v", err)
	}
}

func TestMacroStepsFailFastAndRestoreTheMode(t *testing.T) {
	r, io := newTestREPL(t)
	out := io.Out.(interface{ String() string })
	writeMacro(t, r, false, "broken", "isolated: false\nsteps:\n  - .role poet\n  - .undo\n  - .model fake:thinker\n  - .exit\n")
	err := r.Handle(context.Background(), ".broken")
	if err == nil || !strings.Contains(err.Error(), "macro broken stopped at step 2 (.undo)") {
		t.Fatalf("err = %v", err)
	}
	if r.conv.Role == nil || r.conv.Model != "" || strings.Contains(out.String(), ">> .model") {
		t.Fatal("steps before the failure must stay, steps after it must not run")
	}
	if r.inMacro || r.macroIsolated || r.macroDepth != 0 {
		t.Fatal("macro mode not restored after an error")
	}
	writeMacro(t, r, false, "leave", "isolated: false\nsteps:\n  - .exit\n")
	mustHandle(t, r, ".leave")
	if r.exit {
		t.Fatal("a .exit step left the REPL")
	}
}

func TestNestedMacros(t *testing.T) {
	r, _ := newTestREPL(t)
	ctx := context.Background()
	writeMacro(t, r, false, "inner", "isolated: false\nsteps:\n  - .role poet\n")
	writeMacro(t, r, false, "outer-live", "isolated: false\nsteps:\n  - .inner\n")
	writeMacro(t, r, false, "outer-live-macro", "isolated: false\nsteps:\n  - .macro inner\n")
	writeMacro(t, r, false, "outer-aside", "steps:\n  - .inner\n  - .info role\n")
	for _, name := range []string{".outer-live", ".outer-live-macro"} {
		if err := r.Handle(ctx, name); err == nil || !strings.Contains(err.Error(), "nested macros are not allowed in a non-isolated macro") {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// An isolated macro's step runs a non-isolated macro on the fork: the
	// role is set there (.info role works) and not here.
	mustHandle(t, r, ".outer-aside")
	if r.conv.Role != nil {
		t.Fatal("the nested macro reached the live conversation")
	}
}

func TestMacroScopingAndToggles(t *testing.T) {
	r, io := newTestREPL(t)
	out := io.Out.(interface{ String() string })
	ctx := context.Background()
	writeMacro(t, r, false, "alpha", "description: first\nsteps:\n  - .info\n")
	writeMacro(t, r, false, "beta", "description: second\nsteps:\n  - .info\n")

	mustHandle(t, r, ".macro disable alpha")
	if err := r.Handle(ctx, ".alpha"); err == nil || !strings.Contains(err.Error(), ".macro enable alpha") {
		t.Fatalf("disabled: %v", err)
	}
	mustHandle(t, r, ".macro enable alpha")
	mustHandle(t, r, ".alpha")
	mustHandle(t, r, ".macro enable alpha")
	if !strings.Contains(out.String(), "already enabled") {
		t.Fatal("no notice for a no-op toggle")
	}
	if err := r.Handle(ctx, ".set enabled_macros alpha,nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf(".set with an unknown name: %v", err)
	}
	// A role's allowlist locks the others, and the toggle cannot override it.
	if err := os.WriteFile(filepath.Join(r.conv.Paths().RolesDir, "strict.md"), []byte("---\nenabled_macros: beta\n---\nBe strict."), 0o644); err != nil {
		t.Fatal(err)
	}
	mustHandle(t, r, ".role strict")
	if err := r.Handle(ctx, ".alpha"); err == nil || !strings.Contains(err.Error(), "role:strict enabled_macros") {
		t.Fatalf("locked: %v", err)
	}
	if err := r.Handle(ctx, ".macro enable alpha"); err == nil || !strings.Contains(err.Error(), "role:strict enabled_macros") {
		t.Fatalf("toggle under a role allowlist: %v", err)
	}
	mustHandle(t, r, ".list macros")
	if !strings.Contains(out.String(), "locked by role:strict enabled_macros") {
		t.Fatalf("list: %s", out.String())
	}
	// Completion: visible macros with their descriptions beside the
	// built-ins; .macro completes every macro plus enable/disable.
	cands, _ := r.Complete(".b", 2, r.state())
	if len(cands) != 1 || cands[0].Value != ".beta" || cands[0].Desc != "second" {
		t.Fatalf(".b<TAB> = %+v", cands)
	}
	cands, _ = r.Complete(".macro ", 7, r.state())
	var names []string
	for _, c := range cands {
		names = append(names, c.Value)
	}
	if strings.Join(names, ",") != "enable,disable,alpha,beta" {
		t.Fatalf(".macro <TAB> = %v", names)
	}
}

func TestMacroCreatorRefusesReservedNames(t *testing.T) {
	r, _ := newTestREPL(t)
	if err := r.Handle(context.Background(), ".macro disable"); err == nil || !strings.Contains(err.Error(), "usage: .macro disable <name>") {
		t.Fatalf("%v", err)
	}
	if err := r.createMacro("enable"); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Fatalf("%v", err)
	}
}

// TestAWorkspaceMacroThatRunsCommandsRunsOnlyOnceApproved: refused when
// no one can be asked, asked once and the answer kept, approved with
// .workspace trust, asked again when the file changes; .workspace and
// .list macros say where it stands. A global macro is the user's own.
func TestAWorkspaceMacroThatRunsCommandsRunsOnlyOnceApproved(t *testing.T) {
	r, io := newTestREPL(t)
	out := io.Out.(interface{ String() string })
	ctx := context.Background()
	proof := filepath.Join(t.TempDir(), "ran")
	deploy := "steps:\n  - '!echo ran >> " + proof + "'\n"
	writeMacro(t, r, true, "deploy", deploy)
	writeMacro(t, r, false, "mine", "steps:\n  - '!true'\n")
	ran := func() int {
		b, _ := os.ReadFile(proof)
		return strings.Count(string(b), "ran")
	}

	// No gate: nothing can approve it.
	if err := r.Handle(ctx, ".deploy"); err == nil || !strings.Contains(err.Error(), "macro deploy was not run") || !strings.Contains(err.Error(), trust.Hint) {
		t.Fatalf("without a terminal: %v", err)
	}
	mustHandle(t, r, ".mine")

	asked := 0
	answer := trust.No
	r.o.Trust = trust.NewGate(trust.Options{Store: trust.NewStore(filepath.Join(t.TempDir(), "trust.json")), Ask: func(s trust.Subject) trust.Answer {
		asked++
		if !strings.Contains(s.Describe(), "step 1 runs a shell command: !echo ran") {
			t.Errorf("the question does not show the command:\n%s", s.Describe())
		}
		return answer
	}})
	for range 2 {
		if err := r.Handle(ctx, ".deploy"); err == nil || !strings.Contains(err.Error(), "you declined") {
			t.Fatalf("declined: %v", err)
		}
	}
	if asked != 1 || ran() != 0 {
		t.Fatalf("asked %d times, ran %d times", asked, ran())
	}
	mustHandle(t, r, ".list macros")
	if !strings.Contains(out.String(), "(declined: .workspace trust)") {
		t.Fatalf(".list macros:\n%s", out.String())
	}
	mustHandle(t, r, ".workspace")
	if !strings.Contains(out.String(), "deploy.yaml (macro): declined\n    step 1 runs a shell command: !echo ran") {
		t.Fatalf(".workspace:\n%s", out.String())
	}
	mustHandle(t, r, ".workspace trust")
	mustHandle(t, r, ".deploy")
	if asked != 1 || ran() != 1 {
		t.Fatalf("after .workspace trust: asked %d times, ran %d times", asked, ran())
	}

	// A changed file is asked about again.
	writeMacro(t, r, true, "deploy", deploy+"  - '!echo ran >> "+proof+"'\n")
	answer = trust.Yes
	mustHandle(t, r, ".deploy")
	if asked != 2 || ran() != 3 {
		t.Fatalf("after a change: asked %d times, ran %d times", asked, ran())
	}

	mustHandle(t, r, ".workspace untrust")
	if !strings.Contains(out.String(), "Forgot the answers about 1 file of this workspace") {
		t.Fatalf(".workspace untrust:\n%s", out.String())
	}
	mustHandle(t, r, ".deploy")
	if asked != 3 {
		t.Fatalf("after .workspace untrust: asked %d times", asked)
	}
}

// A macro cannot approve (or revoke) the workspace: a workspace macro of
// harmless-looking steps would otherwise trust its own mcp.json and the
// macros that run commands, with no question.
func TestAMacroCannotApproveTheWorkspace(t *testing.T) {
	r, _ := newTestREPL(t)
	ctx := context.Background()
	proof := filepath.Join(t.TempDir(), "ran")
	writeMacro(t, r, true, "evil", "steps:\n  - '!echo ran >> "+proof+"'\n")
	writeMacro(t, r, true, "setup", "steps:\n  - .workspace trust\n  - .evil\n")
	asked := 0
	r.o.Trust = trust.NewGate(trust.Options{Store: trust.NewStore(filepath.Join(t.TempDir(), "trust.json")),
		Ask: func(trust.Subject) trust.Answer { asked++; return trust.No }})
	err := r.Handle(ctx, ".setup")
	if err == nil || !strings.Contains(err.Error(), ".workspace trust cannot run inside a macro") {
		t.Fatalf(".setup: %v", err)
	}
	if _, statErr := os.Stat(proof); statErr == nil {
		t.Fatal("the workspace macro's command ran")
	}
	if asked != 0 {
		t.Fatalf("asked %d times; the macro failed at its first step, before .evil", asked)
	}
}
