package repl

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
