package macro

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fixture is a discovered list: review (workspace, shadowing a global
// review), commit and notes (global), help (global; a built-in name),
// enable (reserved: invalid) and broken (invalid).
func fixture() []*Macro {
	bad := &FileError{File: "/g/broken.yaml", Line: 1, Msg: `unknown key "stpes"`}
	reserved := &FileError{File: "/g/enable.yaml", Msg: `"enable" is reserved`}
	return []*Macro{
		{Name: "broken", Source: SourceGlobal, Err: bad, Isolated: true},
		{Name: "commit", Source: SourceGlobal, Isolated: true, Steps: []string{"c"}},
		{Name: "enable", Source: SourceGlobal, Err: reserved, Isolated: true},
		{Name: "help", Source: SourceGlobal, Isolated: true, Steps: []string{"h"}},
		{Name: "notes", Source: SourceGlobal, Isolated: true, Steps: []string{"n"}},
		{Name: "review", Source: SourceWorkspace, Steps: []string{"w"}},
		{Name: "review", Source: SourceGlobal, ShadowedBy: SourceWorkspace, Isolated: true, Steps: []string{"g"}},
	}
}

func builtin(name string) bool { return name == "help" || name == "info" }

func set(kind, where string, names ...string) Level {
	if names == nil {
		names = []string{}
	}
	return Level{Kind: kind, Where: where, Set: true, List: names}
}

func unset(kind, where string) Level { return Level{Kind: kind, Where: where} }

// states renders Resolve's rows as "name[@source]=state[:by]".
func states(entries []Entry) string {
	var out []string
	for _, e := range entries {
		s := e.Name
		if e.Macro != nil && e.Macro.ShadowedBy != "" {
			s += "@" + e.Macro.Source
		}
		s += "=" + e.State.String()
		if e.LockedBy != "" {
			s += ":" + e.LockedBy
		}
		if e.ListedBy != "" {
			s += ":" + e.ListedBy
		}
		out = append(out, s)
	}
	return strings.Join(out, " | ")
}

func TestLevelLabel(t *testing.T) {
	tests := []struct {
		l    Level
		want string
	}{
		{Level{Kind: KindRole, Where: "coder"}, "role:coder enabled_macros"},
		{Level{Kind: KindAgent, Where: "oracle"}, "agent:oracle enabled_macros"},
		{Level{Kind: KindSession, Where: "work"}, "session:work enabled_macros"},
		{Level{Kind: KindGlobal}, "global enabled_macros"},
		{Level{Kind: KindSession}, "session enabled_macros"},
	}
	for _, tt := range tests {
		if got := tt.l.Label(); got != tt.want {
			t.Errorf("Label(%+v) = %q, want %q", tt.l, got, tt.want)
		}
	}
}

func TestStateString(t *testing.T) {
	want := []string{"enabled", "disabled (runtime)", "locked", "missing", "shadowed (built-in)", "invalid"}
	for s := Enabled; s <= Invalid; s++ {
		if s.String() != want[s] {
			t.Errorf("State(%d) = %q, want %q", s, s.String(), want[s])
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name string
		p    Policy
		want string
	}{
		{"no policy: everything enabled", nil,
			"broken=invalid | commit=enabled | enable=invalid | help=shadowed (built-in) | notes=enabled | review=enabled | review@global=enabled"},
		{"all levels null: everything enabled", Policy{unset(KindSession, "s"), unset(KindAgent, "a"), unset(KindRole, "r"), unset(KindGlobal, "")},
			"broken=invalid | commit=enabled | enable=invalid | help=shadowed (built-in) | notes=enabled | review=enabled | review@global=enabled"},
		{"global list: the rest disabled (runtime)", Policy{set(KindGlobal, "", "commit")},
			"broken=invalid | commit=enabled | enable=invalid | help=shadowed (built-in) | notes=disabled (runtime) | review=disabled (runtime) | review@global=disabled (runtime)"},
		{"role list: the rest locked by the role", Policy{unset(KindSession, "s"), set(KindRole, "coder", "review"), set(KindGlobal, "", "commit")},
			"broken=invalid | commit=locked:role:coder enabled_macros | enable=invalid | help=shadowed (built-in) | notes=locked:role:coder enabled_macros | review=enabled | review@global=enabled"},
		{"empty role list: nothing enabled", Policy{set(KindRole, "coder")},
			"broken=invalid | commit=locked:role:coder enabled_macros | enable=invalid | help=shadowed (built-in) | notes=locked:role:coder enabled_macros | review=locked:role:coder enabled_macros | review@global=locked:role:coder enabled_macros"},
		{"config unknown name: a missing row", Policy{set(KindAgent, "oracle", "commit", "gone", "gone", "zzz")},
			"broken=invalid | commit=enabled | enable=invalid | gone=missing:agent:oracle enabled_macros | help=shadowed (built-in) | notes=locked:agent:oracle enabled_macros | review=locked:agent:oracle enabled_macros | review@global=locked:agent:oracle enabled_macros | zzz=missing:agent:oracle enabled_macros"},
		{"a listed invalid file is invalid, not missing", Policy{set(KindGlobal, "", "broken")},
			"broken=invalid | commit=disabled (runtime) | enable=invalid | help=shadowed (built-in) | notes=disabled (runtime) | review=disabled (runtime) | review@global=disabled (runtime)"},
		{"shadowed by a built-in wins over locked", Policy{set(KindSession, "s", "help")},
			"broken=invalid | commit=locked:session:s enabled_macros | enable=invalid | help=shadowed (built-in) | notes=locked:session:s enabled_macros | review=locked:session:s enabled_macros | review@global=locked:session:s enabled_macros"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := states(Resolve(fixture(), tt.p, builtin)); got != tt.want {
				t.Errorf("Resolve =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestResolveWithoutBuiltinFunc(t *testing.T) {
	for _, e := range Resolve(fixture(), nil, nil) {
		if e.Name == "help" && e.State != Enabled {
			t.Errorf("help = %v with no built-ins", e.State)
		}
	}
}

func TestResolveKeepsSources(t *testing.T) {
	entries := Resolve(fixture(), nil, builtin)
	var got []string
	for _, e := range entries {
		if e.Name == "review" {
			got = append(got, e.Macro.Source)
		}
	}
	if !reflect.DeepEqual(got, []string{SourceWorkspace, SourceGlobal}) {
		t.Errorf("review sources = %q, want workspace then global", got)
	}
}

func TestCheck(t *testing.T) {
	role := Policy{unset(KindSession, "s"), set(KindRole, "coder", "review", "help"), set(KindGlobal, "", "commit")}
	global := Policy{set(KindGlobal, "", "commit", "help")}
	tests := []struct {
		name, macro string
		p           Policy
		want        string // "" = may run
		is          error
	}{
		{"enabled with no policy", "commit", nil, "", nil},
		{"enabled by the role list", "review", role, "", nil},
		{"locked by the role", "commit", role, `macro "commit" is not enabled here: restricted by role:coder enabled_macros; edit enabled_macros there`, nil},
		{"runtime-disabled", "notes", global, `macro "notes" is disabled: re-enable it with .macro enable notes`, nil},
		{"invalid", "broken", nil, `macro "broken" is invalid: /g/broken.yaml line 1: unknown key "stpes"`, nil},
		{"reserved-name file", "enable", nil, `macro "enable" is invalid: /g/enable.yaml: "enable" is reserved`, nil},
		{"unknown", "nope", nil, `unknown macro "nope"`, ErrUnknown},
		{"listed but missing is unknown", "gone", Policy{set(KindGlobal, "", "gone")}, `unknown macro "gone"`, ErrUnknown},
		{"shadowed by a built-in is the caller's call", "help", global, "", nil},
		{"workspace macro decides for its name", "review", global, `macro "review" is disabled: re-enable it with .macro enable review`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(fixture(), tt.p, tt.macro)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Check = %v, want nil", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Fatalf("Check = %v, want %q", err, tt.want)
			case tt.is != nil && !errors.Is(err, tt.is):
				t.Errorf("errors.Is(%v, %v) is false", err, tt.is)
			}
		})
	}
}

func TestCheckErrorsAreClassifiable(t *testing.T) {
	var ne *NotEnabledError
	err := Check(fixture(), Policy{set(KindAgent, "oracle")}, "commit")
	if !errors.As(err, &ne) || ne.State != Locked || ne.By != "agent:oracle enabled_macros" {
		t.Errorf("locked: %#v", err)
	}
	err = Check(fixture(), Policy{set(KindGlobal, "")}, "commit")
	if !errors.As(err, &ne) || ne.State != DisabledRuntime {
		t.Errorf("disabled: %#v", err)
	}
	var fe *FileError
	if err := Check(fixture(), nil, "broken"); !errors.As(err, &fe) || fe.Line != 1 {
		t.Errorf("invalid: %#v", err)
	}
}

func TestCheckWorkspaceInvalidShadowsValidGlobal(t *testing.T) {
	list := []*Macro{
		{Name: "x", Source: SourceWorkspace, Err: &FileError{File: "/w/x.yaml", Msg: "no steps"}},
		{Name: "x", Source: SourceGlobal, ShadowedBy: SourceWorkspace, Steps: []string{"g"}},
	}
	if err := Check(list, nil, "x"); err == nil || !strings.Contains(err.Error(), "/w/x.yaml") {
		t.Errorf("Check = %v, want the workspace file's error", err)
	}
}

func TestToggle(t *testing.T) {
	role := Policy{set(KindRole, "coder", "review"), unset(KindGlobal, "")}
	tests := []struct {
		name, macro string
		p           Policy
		enable      bool
		want        []string
		notice      string
		err         string
		is          error
	}{
		// enable
		{"enable while everything is enabled: no-op, nil stays nil", "commit", Policy{unset(KindGlobal, "")}, true, nil, "macro commit is already enabled", "", nil},
		{"enable with no global level at all", "commit", nil, true, nil, "macro commit is already enabled", "", nil},
		{"enable when listed: no-op", "commit", Policy{set(KindGlobal, "", "commit")}, true, []string{"commit"}, "macro commit is already enabled", "", nil},
		{"enable appends", "notes", Policy{set(KindGlobal, "", "commit")}, true, []string{"commit", "notes"}, "", "", nil},
		{"enable from an empty list", "notes", Policy{set(KindGlobal, "")}, true, []string{"notes"}, "", "", nil},
		{"enable a built-in-shadowed macro", "help", Policy{set(KindGlobal, "")}, true, []string{"help"}, "", "", nil},
		{"enable when locked by the role", "commit", role, true, nil, "",
			`cannot enable macro "commit": restricted by role:coder enabled_macros, which .macro enable cannot override; edit enabled_macros there`, nil},
		{"enable a role-listed macro still names the role", "review", role, true, nil, "", "restricted by role:coder enabled_macros", nil},
		{"enable when an empty session list rules", "commit", Policy{set(KindSession, "s"), set(KindGlobal, "", "commit")}, true, nil, "", "restricted by session:s enabled_macros", nil},
		{"enable unknown", "nope", nil, true, nil, "", `unknown macro "nope"`, ErrUnknown},
		{"enable invalid", "broken", nil, true, nil, "", `macro "broken" is invalid`, nil},
		{"enable the reserved-name file", "enable", nil, true, nil, "", `macro "enable" is invalid`, nil},
		// disable
		{"disable while everything is enabled materialises the rest", "commit", Policy{unset(KindGlobal, "")}, false, []string{"help", "notes", "review"}, "", "", nil},
		{"disable with no global level materialises", "review", nil, false, []string{"commit", "help", "notes"}, "", "", nil},
		{"disable removes", "commit", Policy{set(KindGlobal, "", "commit", "gone", "notes")}, false, []string{"gone", "notes"}, "", "", nil},
		{"disable when absent: no-op", "notes", Policy{set(KindGlobal, "", "commit")}, false, []string{"commit"}, "macro notes is already disabled", "", nil},
		{"disable when the list is empty: no-op", "notes", Policy{set(KindGlobal, "")}, false, []string{}, "macro notes is already disabled", "", nil},
		{"disable when an agent list rules", "commit", Policy{set(KindAgent, "oracle", "commit")}, false, nil, "",
			`cannot disable macro "commit": restricted by agent:oracle enabled_macros, which .macro disable cannot override; edit enabled_macros there`, nil},
		{"disable unknown", "nope", nil, false, nil, "", "unknown macro", ErrUnknown},
		{"disable invalid", "broken", nil, false, nil, "", "invalid", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notice, err := Toggle(fixture(), tt.p, tt.macro, tt.enable)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Toggle error = %v, want one containing %q", err, tt.err)
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("errors.Is(%v, %v) is false", err, tt.is)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) || (got == nil) != (tt.want == nil) {
				t.Errorf("global = %#v, want %#v", got, tt.want)
			}
			if notice != tt.notice {
				t.Errorf("notice = %q, want %q", notice, tt.notice)
			}
		})
	}
}

func TestToggleDoesNotChangeThePolicyList(t *testing.T) {
	list := []string{"commit", "notes"}
	p := Policy{set(KindGlobal, "", list...)}
	got, _, _ := Toggle(fixture(), p, "commit", false)
	_ = append(got, "x")
	got, _, _ = Toggle(fixture(), p, "commit", true)
	got[0] = "changed"
	if !reflect.DeepEqual(p[0].List, []string{"commit", "notes"}) {
		t.Errorf("the policy's list changed: %q", p[0].List)
	}
}

func TestToggleThenCheckRoundTrip(t *testing.T) {
	p := Policy{unset(KindRole, "r"), unset(KindGlobal, "")}
	global, _, err := Toggle(fixture(), p, "commit", false)
	if err != nil {
		t.Fatal(err)
	}
	p[1] = set(KindGlobal, "", global...)
	if err := Check(fixture(), p, "commit"); err == nil || !strings.Contains(err.Error(), ".macro enable commit") {
		t.Errorf("after disable: %v", err)
	}
	if err := Check(fixture(), p, "notes"); err != nil {
		t.Errorf("another macro after disable: %v", err)
	}
	global, _, err = Toggle(fixture(), p, "commit", true)
	if err != nil {
		t.Fatal(err)
	}
	p[1] = set(KindGlobal, "", global...)
	if err := Check(fixture(), p, "commit"); err != nil {
		t.Errorf("after enable: %v", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{}, ""},
		{[]string{"commit", "review"}, ""},
		{[]string{"broken"}, ""}, // the file exists; it shows as invalid
		{[]string{"commit", "nope"}, `unknown macro "nope"`},
		{[]string{"nope", "gone", "nope"}, `unknown macros "nope", "gone"`},
	}
	for _, tt := range tests {
		err := Validate(fixture(), tt.names)
		if tt.want == "" {
			if err != nil {
				t.Errorf("Validate(%q) = %v", tt.names, err)
			}
			continue
		}
		if err == nil || err.Error() != tt.want || !errors.Is(err, ErrUnknown) {
			t.Errorf("Validate(%q) = %v, want %q wrapping ErrUnknown", tt.names, err, tt.want)
		}
	}
}

// TestPrecedenceOverEveryLevelCombination walks every combination of the
// four levels, each absent, null, [] (none), [x] or [y], and checks that
// the first Set level alone decides for x: Resolve, Check and Toggle agree.
func TestPrecedenceOverEveryLevelCombination(t *testing.T) {
	list := []*Macro{
		{Name: "x", Source: SourceGlobal, Isolated: true, Steps: []string{"x"}},
		{Name: "y", Source: SourceGlobal, Isolated: true, Steps: []string{"y"}},
	}
	kinds := []string{KindSession, KindAgent, KindRole, KindGlobal}
	variants := []string{"absent", "null", "[]", "[x]", "[y]"}
	level := func(kind, v string) (Level, bool) {
		where := map[string]string{KindSession: "s", KindAgent: "a", KindRole: "r", KindGlobal: ""}[kind]
		switch v {
		case "absent":
			return Level{}, false
		case "null":
			return unset(kind, where), true
		case "[]":
			return set(kind, where), true
		case "[x]":
			return set(kind, where, "x"), true
		}
		return set(kind, where, "y"), true
	}
	n := 0
	var idx [4]int
	for idx[0] = range variants {
		for idx[1] = range variants {
			for idx[2] = range variants {
				for idx[3] = range variants {
					n++
					var p Policy
					var desc []string
					winner, winnerKind := "", ""
					for i, k := range kinds {
						v := variants[idx[i]]
						desc = append(desc, k+"="+v)
						if l, ok := level(k, v); ok {
							p = append(p, l)
						}
						if winner == "" && v != "absent" && v != "null" {
							winner, winnerKind = v, k
						}
					}
					name := strings.Join(desc, ",")

					wantState, wantLabel := Enabled, ""
					switch {
					case winner == "" || winner == "[x]":
					case winnerKind == KindGlobal:
						wantState = DisabledRuntime
					default:
						wantState = Locked
						l, _ := level(winnerKind, winner)
						wantLabel = l.Label()
					}

					var got Entry
					for _, e := range Resolve(list, p, nil) {
						if e.Name == "x" {
							got = e
						}
					}
					if got.State != wantState || got.LockedBy != wantLabel {
						t.Errorf("%s: x = %v %q, want %v %q", name, got.State, got.LockedBy, wantState, wantLabel)
					}

					err := Check(list, p, "x")
					if (err == nil) != (wantState == Enabled) {
						t.Errorf("%s: Check = %v, want state %v", name, err, wantState)
					}
					if wantState == Locked && (err == nil || !strings.Contains(err.Error(), wantLabel)) {
						t.Errorf("%s: Check = %v, want it to name %q", name, err, wantLabel)
					}

					_, _, terr := Toggle(list, p, "x", true)
					if overridden := winnerKind != "" && winnerKind != KindGlobal; (terr != nil) != overridden {
						t.Errorf("%s: Toggle enable error = %v, want error: %v", name, terr, overridden)
					}
				}
			}
		}
	}
	if n != 625 {
		t.Fatalf("walked %d combinations", n)
	}
}

func ExampleResolve() {
	list := []*Macro{
		{Name: "commit", Source: SourceGlobal, Isolated: true, Steps: []string{"c"}},
		{Name: "review", Source: SourceWorkspace, Steps: []string{"r"}},
	}
	p := Policy{
		{Kind: KindSession, Where: "work"}, // null: no opinion
		{Kind: KindRole, Where: "coder", Set: true, List: []string{"review", "stale"}},
		{Kind: KindGlobal, Set: true, List: []string{}},
	}
	for _, e := range Resolve(list, p, nil) {
		fmt.Println(strings.TrimSpace(fmt.Sprint(e.Name, " ", e.State, " ", e.LockedBy+e.ListedBy)))
	}
	// Output:
	// commit locked role:coder enabled_macros
	// review enabled
	// stale missing role:coder enabled_macros
}
