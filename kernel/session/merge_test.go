package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// texts is a session's visible conversation as "role:text" items.
func texts(s *Session) []string {
	var out []string
	for _, m := range s.Messages() {
		out = append(out, string(m.Role)+":"+m.Text())
	}
	return out
}

// fileTexts loads the named session afresh and returns its conversation.
func fileTexts(t *testing.T, st *Store, name string) []string {
	t.Helper()
	s, err := st.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return texts(s)
}

// twoProcesses saves a session with one exchange, then loads it twice, as
// two coyote processes would.
func twoProcesses(t *testing.T) (st *Store, a, b *Session) {
	t.Helper()
	st, s := newSession(t, "s", exchange("zero", "0")...)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	a, errA := st.Load("s")
	b, errB := st.Load("s")
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	return st, a, b
}

func mustSave(t *testing.T, s *Session) {
	t.Helper()
	if err := s.Save(); err != nil {
		t.Fatalf("Save: %v", err)
	}
}

func mustAppend(t *testing.T, s *Session, msgs ...provider.Message) {
	t.Helper()
	if err := s.Append(msgs...); err != nil {
		t.Fatal(err)
	}
}

// Issue 14: two processes on one session never lose a turn. Each case
// has A change and save first, then B change and save.
func TestSavesOfTwoProcessesMerge(t *testing.T) {
	tests := []struct {
		name string
		a, b func(t *testing.T, s *Session)
		want []string
	}{
		{
			"both add a turn: A's comes first, then B's",
			func(t *testing.T, s *Session) { mustAppend(t, s, exchange("A", "a")...) },
			func(t *testing.T, s *Session) { mustAppend(t, s, exchange("B", "b")...) },
			[]string{"user:zero", "assistant:0", "user:A", "assistant:a", "user:B", "assistant:b"},
		},
		{
			"A adds two turns, B one",
			func(t *testing.T, s *Session) {
				mustAppend(t, s, exchange("A1", "a1")...)
				mustAppend(t, s, exchange("A2", "a2")...)
			},
			func(t *testing.T, s *Session) { mustAppend(t, s, exchange("B", "b")...) },
			[]string{"user:zero", "assistant:0", "user:A1", "assistant:a1", "user:A2", "assistant:a2", "user:B", "assistant:b"},
		},
		{
			"A compresses, B adds: B's turn follows the summary",
			func(t *testing.T, s *Session) { s.Compress("they said zero", 0, "Summary: ") },
			func(t *testing.T, s *Session) { mustAppend(t, s, exchange("B", "b")...) },
			[]string{"system:Summary: they said zero", "user:B", "assistant:b"},
		},
		{
			"A adds, B compresses: A's turn follows B's summary",
			func(t *testing.T, s *Session) { mustAppend(t, s, exchange("A", "a")...) },
			func(t *testing.T, s *Session) { s.Compress("they said zero", 0, "Summary: ") },
			[]string{"system:Summary: they said zero", "user:A", "assistant:a"},
		},
		{
			"A empties the session, B adds",
			func(t *testing.T, s *Session) { s.Empty() },
			func(t *testing.T, s *Session) { mustAppend(t, s, exchange("B", "b")...) },
			[]string{"user:B", "assistant:b"},
		},
		{
			"A adds, B undoes its last exchange",
			func(t *testing.T, s *Session) { mustAppend(t, s, exchange("A", "a")...) },
			func(t *testing.T, s *Session) {
				if _, err := s.Undo(); err != nil {
					t.Fatal(err)
				}
			},
			[]string{"user:A", "assistant:a"},
		},
		{
			"only A changed: B's save of nothing new keeps A's turn",
			func(t *testing.T, s *Session) { mustAppend(t, s, exchange("A", "a")...) },
			func(t *testing.T, s *Session) {},
			[]string{"user:zero", "assistant:0", "user:A", "assistant:a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, a, b := twoProcesses(t)
			tt.a(t, a)
			mustSave(t, a)
			tt.b(t, b)
			mustSave(t, b)
			if got := fileTexts(t, st, "s"); !slices.Equal(got, tt.want) {
				t.Fatalf("file holds %q\nwant        %q", got, tt.want)
			}
			if got := texts(b); !slices.Equal(got, tt.want) {
				t.Fatalf("B holds %q after its save, want %q", got, tt.want)
			}
		})
	}
}

// A REPL that saves several times while one-shots add turns keeps them
// all, in the order they were saved.
func TestLongLivedSessionKeepsMergingLaterChanges(t *testing.T) {
	st, repl, _ := twoProcesses(t)
	want := []string{"user:zero", "assistant:0"}
	for i := range 3 {
		oneShot, err := st.Load("s")
		if err != nil {
			t.Fatal(err)
		}
		mustAppend(t, oneShot, exchange(fmt.Sprint("shot", i), "s")...)
		mustSave(t, oneShot)
		mustAppend(t, repl, exchange(fmt.Sprint("repl", i), "r")...)
		mustSave(t, repl)
		want = append(want, "user:shot"+fmt.Sprint(i), "assistant:s", "user:repl"+fmt.Sprint(i), "assistant:r")
	}
	if got := fileTexts(t, st, "s"); !slices.Equal(got, want) {
		t.Fatalf("file holds %q\nwant %q", got, want)
	}
}

// A setting changed by one process and another changed by the other are
// both kept; for the same setting, the later save wins.
func TestSettingsChangedByEachProcessAreKept(t *testing.T) {
	st, a, b := twoProcesses(t)
	a.Update(func(s *Settings) { s.Temperature = ptr(0.5); s.Model = "a:model" })
	mustAppend(t, a, exchange("A", "a")...)
	mustSave(t, a)
	b.Update(func(s *Settings) { s.TopP = ptr(0.9); s.Model = "b:model" })
	b.SetDataURL("sha-b", "/img/b.png")
	mustSave(t, b)
	got, err := st.Load("s")
	if err != nil {
		t.Fatal(err)
	}
	set := got.Settings()
	if set.Temperature == nil || *set.Temperature != 0.5 || set.TopP == nil || *set.TopP != 0.9 || set.Model != "b:model" {
		t.Fatalf("settings %+v", set)
	}
	if p, ok := got.DataURL("sha-b"); !ok || p != "/img/b.png" {
		t.Fatal("B's image record was lost")
	}
	if n := len(got.Messages()); n != 4 {
		t.Fatalf("%d messages", n)
	}
}

// Two processes that start the same new session keep both turns, and the
// system prompt both began with once.
func TestTwoNewSessionsOfTheSameNameMerge(t *testing.T) {
	st := &Store{Dir: t.TempDir(), Now: fixedClock}
	a, _ := st.New("fresh", Settings{Model: "m:a"})
	b, _ := st.New("fresh", Settings{Model: "m:a"})
	mustAppend(t, a, msg(sys, text("be brief")), msg(user, text("A")), msg(asst, text("a")))
	mustAppend(t, b, msg(sys, text("be brief")), msg(user, text("B")), msg(asst, text("b")))
	mustSave(t, a)
	mustSave(t, b)
	want := []string{"system:be brief", "user:A", "assistant:a", "user:B", "assistant:b"}
	if got := fileTexts(t, st, "fresh"); !slices.Equal(got, want) {
		t.Fatalf("file holds %q", got)
	}
}

// When both processes rewrote the history, neither is dropped: the later
// one is saved under another name and told so, naming the other process.
func TestUnmergeableChangesAreSavedUnderAnotherName(t *testing.T) {
	st, a, b := twoProcesses(t)
	a.Compress("summary by A", 0, "S: ")
	mustSave(t, a)
	mustAppend(t, b, exchange("B", "b")...)
	if _, err := b.Undo(); err != nil {
		t.Fatal(err)
	}
	b.Empty()
	mustAppend(t, b, exchange("B2", "b2")...)
	err := b.Save()
	var conflict *ConflictError
	if !errors.As(err, &conflict) || conflict.SavedAs != "s-conflict-1" || conflict.PID != os.Getpid() {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{`session "s"`, fmt.Sprintf("pid %d", os.Getpid()), `"s-conflict-1"`, "nothing is lost"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	// (Messages shows the exchange before a summary that kept none.)
	if got := fileTexts(t, st, "s"); !slices.Equal(got, []string{"system:S: summary by A", "user:zero", "assistant:0"}) {
		t.Fatalf("A's session became %q", got)
	}
	if got := fileTexts(t, st, "s-conflict-1"); !slices.Equal(got, []string{"user:B2", "assistant:b2"}) {
		t.Fatalf("B's session became %q", got)
	}
	if b.Name() != "s-conflict-1" || b.Dirty() {
		t.Fatalf("B is %q, dirty %v", b.Name(), b.Dirty())
	}
}

// A conflict is saved under the session's own name: that of a fork is
// <fork>-conflict-<n>, never a name that reads as the conflict of the
// session it was forked from.
func TestAConflictOfAForkKeepsTheForksName(t *testing.T) {
	st, s := newSession(t, "work-fork-2", exchange("zero", "0")...)
	mustSave(t, s)
	a, errA := st.Load("work-fork-2")
	b, errB := st.Load("work-fork-2")
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	a.Empty()
	mustSave(t, a)
	b.Empty()
	mustAppend(t, b, exchange("B", "b")...)
	var conflict *ConflictError
	if err := b.Save(); !errors.As(err, &conflict) || conflict.Name != "work-fork-2" || conflict.SavedAs != "work-fork-2-conflict-1" {
		t.Fatalf("got %v", err)
	}
	if b.Name() != "work-fork-2-conflict-1" || st.Exists("work-conflict-1") {
		t.Fatalf("B is %q; work-conflict-1 exists: %v", b.Name(), st.Exists("work-conflict-1"))
	}
	if got := fileTexts(t, st, "work-fork-2-conflict-1"); !slices.Equal(got, []string{"user:B", "assistant:b"}) {
		t.Fatalf("B's session became %q", got)
	}
}

// A file that another program broke since it was loaded is not
// overwritten.
func TestSessionFileBrokenMeanwhileIsKept(t *testing.T) {
	st, a, _ := twoProcesses(t)
	if err := os.WriteFile(a.Path(), []byte("model: [unclosed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, a, exchange("A", "a")...)
	var conflict *ConflictError
	if err := a.Save(); !errors.As(err, &conflict) || !strings.Contains(err.Error(), "can no longer be read") {
		t.Fatalf("got %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(st.Dir, "s.yaml")); string(data) != "model: [unclosed\n" {
		t.Fatal("the broken file was overwritten")
	}
	if got := fileTexts(t, st, "s-conflict-1"); len(got) != 4 {
		t.Fatalf("saved %q", got)
	}
}

// A session deleted by another process since it was loaded is saved
// again whole.
func TestSessionDeletedMeanwhileIsSavedAgain(t *testing.T) {
	st, a, _ := twoProcesses(t)
	os.Remove(a.Path())
	mustAppend(t, a, exchange("A", "a")...)
	mustSave(t, a)
	if got := fileTexts(t, st, "s"); len(got) != 4 {
		t.Fatalf("file holds %q", got)
	}
}

// Two temporary sessions saved in the same second under the same title
// are two sessions, never merged.
func TestTempSessionsSavedAtOnceStayApart(t *testing.T) {
	st := &Store{Dir: t.TempDir(), Now: fixedClock}
	on := true
	var sessions []*Session
	for _, q := range []string{"A", "B"} {
		s, _ := st.New(TempName, Settings{Model: "m:a", SaveSession: &on})
		mustAppend(t, s, exchange(q, strings.ToLower(q))...)
		s.SetTitle("same title")
		sessions = append(sessions, s)
	}
	for _, s := range sessions {
		mustSave(t, s)
	}
	if sessions[0].Name() == sessions[1].Name() {
		t.Fatalf("both saved as %s", sessions[0].Name())
	}
	for i, s := range sessions {
		if got := fileTexts(t, st, s.Name()); len(got) != 2 || got[0] != "user:"+[]string{"A", "B"}[i] {
			t.Fatalf("%s holds %q", s.Name(), got)
		}
	}
}

// Many writers at once, each loading, adding its turn and saving, lose
// nothing.
func TestConcurrentWritersLoseNoTurn(t *testing.T) {
	st, s := newSession(t, "s", exchange("zero", "0")...)
	mustSave(t, s)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			w, err := st.Load("s")
			if err != nil {
				t.Error(err)
				return
			}
			if err := w.Append(exchange(fmt.Sprint("q", i), fmt.Sprint("a", i))...); err != nil {
				t.Error(err)
			}
			if err := w.Save(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := fileTexts(t, st, "s")
	if len(got) != 2+16 {
		t.Fatalf("%d messages: %q", len(got), got)
	}
	for i := range 8 {
		j := slices.Index(got, fmt.Sprint("user:q", i))
		if j < 0 || got[j+1] != fmt.Sprint("assistant:a", i) {
			t.Fatalf("turn %d missing or split: %q", i, got)
		}
	}
}

// Session files are private: a file or folder left open by an older
// version becomes 0600 at the next save.
func TestSavedSessionIsPrivate(t *testing.T) {
	st, s := newSession(t, "team/s", exchange("q", "a")...)
	mustSave(t, s)
	if err := os.Chmod(s.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, exchange("q2", "a2")...)
	mustSave(t, s)
	if info, _ := os.Stat(s.Path()); info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %04o", info.Mode().Perm())
	}
	if info, _ := os.Stat(filepath.Join(st.Dir, "team")); info.Mode().Perm() != 0o700 {
		t.Fatalf("new folder mode %04o", info.Mode().Perm())
	}
}

// The automatic name is taken under the file's lock: a name another
// process took meanwhile is never overwritten.
func TestSaveNewNeverOverwrites(t *testing.T) {
	st, s := newSession(t, TempName, exchange("mine", "m")...)
	other, _ := st.New("_/20250314T150926", Settings{Model: "x:y"})
	mustAppend(t, other, exchange("theirs", "t")...)
	mustSave(t, other)
	saved, err := s.saveNew("_/20250314T150926")
	if err != nil || saved {
		t.Fatalf("saveNew = %v, %v", saved, err)
	}
	if got := fileTexts(t, st, "_/20250314T150926"); got[0] != "user:theirs" {
		t.Fatalf("overwritten: %q", got)
	}
}
