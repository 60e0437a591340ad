package session

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/sdk/provider"
)

func ptr[T any](v T) *T { return &v }

// fixedClock is the clock of automatic names in tests.
func fixedClock() time.Time { return time.Date(2025, 3, 14, 15, 9, 26, 0, time.Local) }

func newSession(t *testing.T, name string, msgs ...provider.Message) (*Store, *Session) {
	t.Helper()
	st := &Store{Dir: t.TempDir(), Now: fixedClock}
	s, err := st.New(name, Settings{Model: "openai:gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(msgs...); err != nil {
		t.Fatal(err)
	}
	return st, s
}

// exchange is a user message and its answer.
func exchange(q, a string) []provider.Message {
	return []provider.Message{msg(user, text(q)), msg(asst, text(a))}
}

func toolTurn(q string) []provider.Message {
	return []provider.Message{
		msg(user, text(q)),
		msg(asst, text("Looking."), call("c1", "ls", `{}`)),
		msg(tool, result("c1", "ls", "a b")),
		msg(asst, text("Two files.")),
	}
}

func TestUndo(t *testing.T) {
	for _, tc := range []struct {
		name     string
		history  []provider.Message
		wantText string
		wantErr  error
		wantLeft []provider.Message
	}{
		{
			name:     "drops the last exchange",
			history:  slices.Concat([]provider.Message{msg(sys, text("be brief"))}, exchange("one", "1"), exchange("two", "2")),
			wantText: "two",
			wantLeft: slices.Concat([]provider.Message{msg(sys, text("be brief"))}, exchange("one", "1")),
		},
		{
			name:     "drops the tool calls of the exchange too",
			history:  slices.Concat(exchange("one", "1"), toolTurn("list")),
			wantText: "list",
			wantLeft: exchange("one", "1"),
		},
		{
			name:     "returns the text parts of a message with images",
			history:  []provider.Message{msg(user, text("look"), image("https://x/y.png"), text("closely")), msg(asst, text("ok"))},
			wantText: "look\n\nclosely",
			wantLeft: []provider.Message{},
		},
		{
			name:     "drops an interrupted turn",
			history:  slices.Concat(exchange("one", "1"), []provider.Message{msg(user, text("two")), msg(asst, text(InterruptedReply))}),
			wantText: "two",
			wantLeft: exchange("one", "1"),
		},
		{
			name:    "nothing to undo without a message of the user's",
			history: []provider.Message{msg(sys, text("be brief"))},
			wantErr: ErrNothingToUndo,
		},
		{
			name:    "nothing to undo in an empty session",
			wantErr: ErrNothingToUndo,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newSession(t, "x", tc.history...)
			before := dump(s.Messages())
			wasDirty := s.Dirty()
			got, err := s.Undo()
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				if dump(s.Messages()) != before || s.Dirty() != wasDirty {
					t.Errorf("a failed Undo changed the session")
				}
				return
			}
			if got != tc.wantText {
				t.Errorf("returned %q, want %q", got, tc.wantText)
			}
			if g, w := dump(s.Messages()), dump(tc.wantLeft); g != w {
				t.Errorf("left\n%s\nwant\n%s", g, w)
			}
			if !s.Dirty() {
				t.Errorf("not dirty after Undo")
			}
		})
	}
}

// TestUndoThenAppendKeepsForksApart: after Undo, recording a new exchange
// must not write into a fork's history.
func TestUndoThenAppendKeepsForksApart(t *testing.T) {
	_, s := newSession(t, "base", slices.Concat(exchange("one", "1"), exchange("two", "2"))...)
	f, err := s.Fork("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Undo(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(exchange("three", "3")...); err != nil {
		t.Fatal(err)
	}
	if err := f.Append(exchange("four", "4")...); err != nil {
		t.Fatal(err)
	}
	if g, w := dump(f.Messages()), dump(slices.Concat(exchange("one", "1"), exchange("two", "2"), exchange("four", "4"))); g != w {
		t.Errorf("fork holds\n%s\nwant\n%s", g, w)
	}
	if g, w := dump(s.Messages()), dump(slices.Concat(exchange("one", "1"), exchange("three", "3"))); g != w {
		t.Errorf("session holds\n%s\nwant\n%s", g, w)
	}
}

func TestEmptyClearsMessagesAndKeepsSettings(t *testing.T) {
	st, s := newSession(t, "x", exchange("one", "1")...)
	s.Compress("summary", 0, "")
	s.SetDataURL("abc", "/tmp/cat.png")
	s.Update(func(st *Settings) { st.Temperature = ptr(0.3) })
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	s.Empty()
	if !s.IsEmpty() || len(s.Messages()) != 0 || len(s.CompressedMessages()) != 0 {
		t.Errorf("messages left: %s", dump(s.Messages()))
	}
	if _, ok := s.DataURL("abc"); ok {
		t.Errorf("data_urls left")
	}
	if got := s.Settings(); got.Model != "openai:gpt-4o" || got.Temperature == nil || *got.Temperature != 0.3 {
		t.Errorf("settings changed: %+v", got)
	}
	if !s.Dirty() {
		t.Errorf("not dirty after Empty")
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	loaded, _ := st.Load("x")
	if !loaded.IsEmpty() {
		t.Errorf("the saved file still has messages")
	}
}

func TestCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name    string
		history []provider.Message
		partial string
		input   []provider.Message
		want    []provider.Message
	}{
		{
			name:  "first turn with its system prompt",
			input: []provider.Message{msg(sys, text("be brief")), msg(user, text("hi"))},
			want:  []provider.Message{msg(sys, text("be brief")), msg(user, text("hi")), msg(asst, text(InterruptedReply))},
		},
		{
			name:    "later turn",
			history: exchange("one", "1"),
			input:   []provider.Message{msg(user, text("two"), image("data:image/png;base64,AA"))},
			want:    slices.Concat(exchange("one", "1"), []provider.Message{msg(user, text("two"), image("data:image/png;base64,AA")), msg(asst, text(InterruptedReply))}),
		},
		{
			name:    "the part of the reply that arrived is kept",
			partial: "Once upon a time \n",
			input:   []provider.Message{msg(user, text("a story"))},
			want:    []provider.Message{msg(user, text("a story")), msg(asst, text("Once upon a time\n\n"+InterruptedReply))},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, s := newSession(t, "x", tc.history...)
			if err := s.Checkpoint(tc.partial, tc.input...); err != nil {
				t.Fatal(err)
			}
			if g, w := dump(s.Messages()), dump(tc.want); g != w {
				t.Errorf("got\n%s\nwant\n%s", g, w)
			}
			if s.OnExit(false) == ExitKeep {
				t.Errorf("a checkpointed session is not dirty")
			}
			if err := s.Save(); err != nil {
				t.Fatal(err)
			}
			loaded, err := st.Load("x")
			if err != nil {
				t.Fatal(err)
			}
			if g, w := dump(loaded.Messages()), dump(tc.want); g != w {
				t.Errorf("after a reload\n%s\nwant\n%s", g, w)
			}
			if !loaded.Interrupted() {
				t.Errorf("a checkpointed session is not Interrupted after a reload")
			}
		})
	}
	t.Run("bad input records nothing", func(t *testing.T) {
		_, s := newSession(t, "x")
		if err := s.Checkpoint("", msg(tool, result("c", "t", "x"))); err == nil || !s.IsEmpty() {
			t.Errorf("error %v, messages %s", err, dump(s.Messages()))
		}
	})
}

func TestCompress(t *testing.T) {
	history := slices.Concat([]provider.Message{msg(sys, text("be brief"))}, exchange("one", "1"), toolTurn("two"), exchange("three", "3"))
	// 8 entries: the system prompt, 2, 3 (user, tool calls, answer), 2.
	for _, tc := range []struct {
		name           string
		history        []provider.Message
		keepLast       int
		contextPrompt  string
		wantSystem     string
		wantCompressed int
		wantKept       []provider.Message
	}{
		{
			name: "keeps the system prompt and nothing else", history: history, keepLast: 0, contextPrompt: "Earlier: ",
			wantSystem: "be brief\n\nEarlier: SUMMARY", wantCompressed: 8,
		},
		{
			name: "keeps the last messages", history: history, keepLast: 2, contextPrompt: "Earlier: ",
			wantSystem: "be brief\n\nEarlier: SUMMARY", wantCompressed: 6, wantKept: exchange("three", "3"),
		},
		{
			name: "keeping as many as there are keeps none", history: history, keepLast: 8, contextPrompt: "Earlier: ",
			wantSystem: "be brief\n\nEarlier: SUMMARY", wantCompressed: 8,
		},
		{
			name: "without a system prompt", history: slices.Concat(exchange("one", "1"), exchange("two", "2")), keepLast: 0, contextPrompt: "Earlier: ",
			wantSystem: "Earlier: SUMMARY", wantCompressed: 4,
		},
		{
			name: "the default context prompt", history: exchange("one", "1"), keepLast: 0,
			wantSystem: DefaultSummaryContextPrompt + "SUMMARY", wantCompressed: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, s := newSession(t, "x", tc.history...)
			if err := s.Save(); err != nil {
				t.Fatal(err)
			}
			s.Compress("SUMMARY", tc.keepLast, tc.contextPrompt)
			if !s.Dirty() {
				t.Errorf("not dirty after Compress")
			}
			if err := s.Save(); err != nil {
				t.Fatal(err)
			}
			loaded, err := st.Load("x")
			if err != nil {
				t.Fatal(err)
			}
			if n := len(loaded.compressed); n != tc.wantCompressed {
				t.Errorf("%d compressed messages, want %d", n, tc.wantCompressed)
			}
			got := loaded.messages
			if len(got) == 0 || got[0].role != sys || got[0].text != tc.wantSystem {
				t.Fatalf("first message %+v, want system %q", got[0], tc.wantSystem)
			}
			if g, w := dump(toMessages(got[1:], nil)), dump(tc.wantKept); g != w {
				t.Errorf("kept\n%s\nwant\n%s", g, w)
			}
		})
	}
}

// TestMessagesAfterCompressionRepeatTheLastExchange: with nothing kept,
// the request still shows the model the exchange the summary ends with.
func TestMessagesAfterCompressionRepeatTheLastExchange(t *testing.T) {
	_, s := newSession(t, "x", slices.Concat(exchange("one", "1"), toolTurn("two"))...)
	s.Compress("SUMMARY", 0, "S: ")
	want := slices.Concat([]provider.Message{msg(sys, text("S: SUMMARY"))}, toolTurn("two"))
	if g, w := dump(s.Messages()), dump(want); g != w {
		t.Errorf("got\n%s\nwant\n%s", g, w)
	}
	if err := s.Append(exchange("three", "3")...); err != nil {
		t.Fatal(err)
	}
	want = slices.Concat([]provider.Message{msg(sys, text("S: SUMMARY"))}, exchange("three", "3"))
	if g, w := dump(s.Messages()), dump(want); g != w {
		t.Errorf("after the next exchange\n%s\nwant\n%s", g, w)
	}
}

func TestCompressTwiceStacksSummaries(t *testing.T) {
	_, s := newSession(t, "x", slices.Concat([]provider.Message{msg(sys, text("sys"))}, exchange("one", "1"))...)
	s.Compress("first", 0, "S: ")
	_ = s.Append(exchange("two", "2")...)
	s.Compress("second", 0, "S: ")
	if got := s.messages[0].text; got != "sys\n\nS: first\n\nS: second" {
		t.Errorf("system %q", got)
	}
	if len(s.compressed) != 6 {
		t.Errorf("%d compressed, want 6", len(s.compressed))
	}
}

func TestSummaryRequest(t *testing.T) {
	_, s := newSession(t, "x", exchange("one", "1")...)
	for _, tc := range []struct{ prompt, want string }{
		{"Summarize.", "Summarize."},
		{"", DefaultSummarizationPrompt},
	} {
		got := s.SummaryRequest(tc.prompt)
		want := slices.Concat(exchange("one", "1"), []provider.Message{msg(user, text(tc.want))})
		if g, w := dump(got), dump(want); g != w {
			t.Errorf("got\n%s\nwant\n%s", g, w)
		}
	}
}

// TestTokensEstimate: about four bytes a token, four tokens a message, a
// thousand an image, eight a tool call.
func TestTokensEstimate(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs []provider.Message
		want int
	}{
		{"empty", nil, 0},
		{"one message of 400 bytes", []provider.Message{msg(user, text(strings.Repeat("x", 400)))}, 4 + 100},
		{"rounded up", []provider.Message{msg(user, text("xyz"))}, 4 + 1},
		{"an image", []provider.Message{msg(user, text(strings.Repeat("x", 40)), image("data:image/png;base64,"+strings.Repeat("A", 100000)))}, 4 + 1000 + 10},
		{"a tool call", []provider.Message{msg(asst, call("id", "name", `{"a":1}`)), msg(tool, result("id", "name", strings.Repeat("r", 33)))}, 4 + 8 + (2+4+7+33+3)/4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newSession(t, "x", tc.msgs...)
			if got := s.Tokens(); got != tc.want {
				t.Errorf("%d tokens, want %d", got, tc.want)
			}
		})
	}
}

func TestNeedsCompression(t *testing.T) {
	big := []provider.Message{msg(user, text(strings.Repeat("x", 4000)))} // 1004 tokens
	for _, tc := range []struct {
		name    string
		session *int64
		global  int64
		want    bool
	}{
		{"over the global threshold", nil, 1000, true},
		{"under the global threshold", nil, 2000, false},
		{"the session's threshold wins", ptr[int64](2000), 1000, false},
		{"the session's threshold wins the other way", ptr[int64](1000), 4000, true},
		{"zero turns it off", nil, 0, false},
		{"the session's zero turns it off", ptr[int64](0), 1000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newSession(t, "x", big...)
			s.Update(func(st *Settings) { st.CompressionThreshold = tc.session })
			if got := s.NeedsCompression(tc.global); got != tc.want {
				t.Errorf("NeedsCompression(%d) = %v with %d tokens", tc.global, got, s.Tokens())
			}
		})
	}
}

func TestFork(t *testing.T) {
	for _, tc := range []struct {
		name     string
		session  string
		existing []string // sessions already on disk
		fork     string
		want     string
		wantErr  string
	}{
		{name: "first free number", session: "work", want: "work-fork-1"},
		{name: "skips taken numbers", session: "work", existing: []string{"work-fork-1", "work-fork-2"}, want: "work-fork-3"},
		{name: "a fork of a fork counts from the base", session: "work-fork-1", existing: []string{"work-fork-1"}, want: "work-fork-2"},
		{name: "a name ending in fork-x is a base", session: "a-fork-x", want: "a-fork-x-fork-1"},
		{name: "in a subdirectory", session: "proj/api", want: "proj/api-fork-1"},
		{name: "an automatic name", session: "_/20250314T150926-cats", want: "_/20250314T150926-cats-fork-1"},
		{name: "a temp session", session: TempName, want: "temp-fork-1"},
		{name: "a chosen name", session: "work", fork: "experiment", want: "experiment"},
		{name: "a chosen name that exists", session: "work", existing: []string{"experiment"}, fork: "experiment", wantErr: `session "experiment" already exists`},
		{name: "temp is not a name to fork to", session: "work", fork: TempName, wantErr: "choose another name"},
		{name: "a bad name", session: "work", fork: "../x", wantErr: `".." is not allowed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, s := newSession(t, tc.session, exchange("one", "1")...)
			for _, n := range tc.existing {
				e, _ := st.New(n, Settings{})
				if err := e.Save(); err != nil {
					t.Fatal(err)
				}
			}
			f, err := s.Fork(tc.fork)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Name() != tc.want || f.Dirty() || f.Title() != "" {
				t.Errorf("fork %q (dirty %v, title %q), want %q, saved", f.Name(), f.Dirty(), f.Title(), tc.want)
			}
			loaded, err := st.Load(tc.want)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := dump(loaded.Messages()), dump(exchange("one", "1")); g != w {
				t.Errorf("fork holds\n%s", g)
			}
			if tc.session == TempName {
				if s.Path() != "" || !s.IsTemp() {
					t.Errorf("the temp session was saved as %q", s.Path())
				}
				return
			}
			if s.Dirty() || !st.Exists(tc.session) {
				t.Errorf("the forked session was not saved first")
			}
		})
	}
}

// Fork writes the copy only where nothing has its name, checked under
// the name's lock when it writes: a session another process created
// since Fork looked is never overwritten. Here the name is taken by a
// symbolic link to a session not written yet, which the first look
// (Exists: no session file there) does not see.
func TestForkNeverReplacesWhatHasTheName(t *testing.T) {
	st, s := newSession(t, "work", exchange("one", "1")...)
	mustSave(t, s)
	for _, name := range []string{"experiment", "work-fork-1"} {
		if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere.yaml"), filepath.Join(st.Dir, name+".yaml")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Fork("experiment"); err == nil || !strings.Contains(err.Error(), `session "experiment" already exists; choose another name`) {
		t.Fatalf("fork to a taken name: %v", err)
	}
	f, err := s.Fork("")
	if err != nil || f.Name() != "work-fork-2" {
		t.Fatalf("fork = %v, %v; want work-fork-2", f, err)
	}
	for _, name := range []string{"experiment", "work-fork-1"} {
		if fi, err := os.Lstat(filepath.Join(st.Dir, name+".yaml")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s was replaced: %v %v", name, fi, err)
		}
	}
}

func TestSaveModeAndExit(t *testing.T) {
	for _, tc := range []struct {
		name        string
		saveSession *bool
		dirty       bool
		force       bool
		wantMode    SaveMode
		wantExit    ExitAction
	}{
		{"unset asks", nil, true, false, SaveAsk, ExitAsk},
		{"true saves", ptr(true), true, false, SaveAlways, ExitSave},
		{"false keeps", ptr(false), true, false, SaveNever, ExitKeep},
		{"--save-session beats false", ptr(false), true, true, SaveNever, ExitSave},
		{"--save-session beats unset", nil, true, true, SaveAsk, ExitSave},
		{"a clean session needs nothing", ptr(true), false, true, SaveAlways, ExitKeep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &Store{Dir: t.TempDir()}
			s, _ := st.New("x", Settings{SaveSession: tc.saveSession})
			if tc.dirty {
				_ = s.Append(exchange("q", "a")...)
			}
			if got := s.SaveMode(); got != tc.wantMode {
				t.Errorf("SaveMode %v, want %v", got, tc.wantMode)
			}
			if got := s.OnExit(tc.force); got != tc.wantExit {
				t.Errorf("OnExit %v, want %v", got, tc.wantExit)
			}
		})
	}
}

// TestTempSessionSavesUnderStampAndSlug: with save_session: true a temp
// session goes to _/<stamp>[-<slug>].yaml, then keeps that file.
func TestTempSessionSavesUnderStampAndSlug(t *testing.T) {
	for _, tc := range []struct {
		name     string
		title    string
		existing []string
		want     string
	}{
		{name: "with a title", title: "Cats: Care & Feeding!", want: "_/20250314T150926-cats-care-feeding"},
		{name: "without a title", want: "_/20250314T150926"},
		{name: "a taken name gets a number", title: "cats", existing: []string{"_/20250314T150926-cats"}, want: "_/20250314T150926-cats-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &Store{Dir: t.TempDir(), Now: fixedClock}
			for _, n := range tc.existing {
				e, _ := st.New(n, Settings{})
				_ = e.Save()
			}
			s, _ := st.New(TempName, Settings{SaveSession: ptr(true)})
			_ = s.Append(exchange("how do I feed a cat?", "Twice a day.")...)
			if tc.title != "" {
				if !s.NeedsTitle() {
					t.Errorf("NeedsTitle false after the first exchange")
				}
				if got := s.TitleContext(); got != "USER: how do I feed a cat?\nASSISTANT: Twice a day.\n" {
					t.Errorf("TitleContext %q", got)
				}
				s.SetTitle(tc.title)
				if s.NeedsTitle() {
					t.Errorf("NeedsTitle true after SetTitle")
				}
			}
			if got := s.OnExit(false); got != ExitSave {
				t.Fatalf("OnExit %v", got)
			}
			if err := s.Save(); err != nil {
				t.Fatal(err)
			}
			wantPath := filepath.Join(st.Dir, filepath.FromSlash(tc.want)+".yaml")
			if s.Name() != tc.want || s.Path() != wantPath || s.IsTemp() {
				t.Errorf("saved as %q at %q, want %q", s.Name(), s.Path(), tc.want)
			}
			// The next save goes to the same file, even a second later.
			st.Now = func() time.Time { return fixedClock().Add(time.Second) }
			_ = s.Append(exchange("and water?", "Always.")...)
			if err := s.Save(); err != nil {
				t.Fatal(err)
			}
			if s.Path() != wantPath {
				t.Errorf("saved again to %q", s.Path())
			}
			names, _ := st.List()
			if len(names) != len(tc.existing)+1 {
				t.Errorf("sessions on disk: %q", names)
			}
		})
	}
}

func TestNeedsTitle(t *testing.T) {
	for _, tc := range []struct {
		name        string
		session     string
		saveSession *bool
		msgs        []provider.Message
		want        bool
	}{
		{"temp saved automatically after an exchange", TempName, ptr(true), exchange("q", "a"), true},
		{"not before an answer", TempName, ptr(true), []provider.Message{msg(user, text("q"))}, false},
		{"not when saving asks", TempName, nil, exchange("q", "a"), false},
		{"not for a named session", "work", ptr(true), exchange("q", "a"), false},
		{"after a tool turn", TempName, ptr(true), toolTurn("q"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := (&Store{Dir: t.TempDir()}).New(tc.session, Settings{SaveSession: tc.saveSession})
			_ = s.Append(tc.msgs...)
			if got := s.NeedsTitle(); got != tc.want {
				t.Errorf("NeedsTitle %v", got)
			}
		})
	}
}

func TestDirtyTracking(t *testing.T) {
	st, s := newSession(t, "x")
	steps := []struct {
		name  string
		do    func() error
		dirty bool
	}{
		{"a new session is clean", func() error { return nil }, false},
		{"setting the same value changes nothing", func() error {
			if s.Update(func(st *Settings) { st.Model = "openai:gpt-4o" }) {
				return errors.New("Update reported a change")
			}
			return nil
		}, false},
		{"a new setting", func() error { s.Update(func(st *Settings) { st.EnabledTools = []string{} }); return nil }, true},
		{"saving", s.Save, false},
		{"an empty list is not unset", func() error {
			if !s.Update(func(st *Settings) { st.EnabledTools = nil }) {
				return errors.New("no change reported")
			}
			return nil
		}, true},
		{"saving again", s.Save, false},
		{"a new image path", func() error { s.SetDataURL("sha", "/a.png"); return nil }, true},
		{"saving once more", s.Save, false},
		{"the same image path", func() error { s.SetDataURL("sha", "/a.png"); return nil }, false},
		{"recording", func() error { return s.Append(exchange("q", "a")...) }, true},
		{"SaveAs", func() error { return s.SaveAs("y") }, false},
	}
	for _, step := range steps {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if s.Dirty() != step.dirty {
			t.Fatalf("%s: dirty %v, want %v", step.name, s.Dirty(), step.dirty)
		}
	}
	if s.Name() != "y" || !st.Exists("y") {
		t.Errorf("SaveAs left the name %q", s.Name())
	}
	loaded, err := st.Load("y")
	if err != nil || loaded.Dirty() {
		t.Errorf("a loaded session is dirty (%v)", err)
	}
	if err := s.SaveAs(TempName); err == nil {
		t.Errorf("SaveAs(temp) succeeded")
	}
}

func TestOpenLoadsOrStarts(t *testing.T) {
	st := &Store{Dir: t.TempDir()}
	s, err := st.Open("work", Settings{Model: "a:b"})
	if err != nil || !s.IsEmpty() || s.Settings().Model != "a:b" || s.Path() != filepath.Join(st.Dir, "work.yaml") {
		t.Fatalf("Open of a new session: %v %+v", err, s)
	}
	_ = s.Append(exchange("q", "a")...)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := st.Open("work", Settings{Model: "other:model"})
	if err != nil || again.IsEmpty() || again.Settings().Model != "a:b" {
		t.Errorf("Open of an existing session: %v %+v", err, again.Settings())
	}
	// A file named temp.yaml (the original could write one) is not the
	// temp session.
	tmp, _ := st.New("x", Settings{})
	_ = tmp.Append(exchange("q", "a")...)
	_ = os.WriteFile(filepath.Join(st.Dir, "temp.yaml"), tmp.Encode(), 0o600)
	if s, _ := st.Open(TempName, Settings{}); !s.IsEmpty() || s.Path() != "" {
		t.Errorf("Open(temp) loaded a file")
	}
	if _, err := st.Load("missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing session: %v", err)
	}
}

func TestSettingsLookup(t *testing.T) {
	s := Settings{
		Model: "a:b", Temperature: ptr(0.5), EnabledTools: []string{}, EnabledSkills: []string{"git"},
		SaveSession: ptr(false), CompressionThreshold: ptr[int64](100), RoleName: ptr("coder"),
		AgentVariables: []Variable{{"k", "v"}},
	}
	for _, tc := range []struct {
		key  string
		want any
		set  bool
	}{
		{"model", "a:b", true},
		{"temperature", 0.5, true},
		{"top_p", nil, false},
		{"enabled_tools", []string{}, true},
		{"enabled_mcp_servers", []string(nil), false},
		{"enabled_skills", []string{"git"}, true},
		{"save_session", false, true},
		{"compression_threshold", int64(100), true},
		{"role_name", "coder", true},
		{"agent_variables", []Variable{{"k", "v"}}, true},
		{"agent_instructions", "", false},
		{"no_such_key", nil, false},
	} {
		got, set := s.Lookup(tc.key)
		if set != tc.set || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Lookup(%q) = %#v, %v; want %#v, %v", tc.key, got, set, tc.want, tc.set)
		}
	}
}

func TestSettingsSet(t *testing.T) {
	for _, tc := range []struct {
		key  string
		v    any
		ok   bool
		want any // Lookup's value after Set
		set  bool
	}{
		{"model", "c:d", true, "c:d", true},
		{"model", nil, true, "", false},
		{"model", 1.5, false, "a:b", true},
		{"temperature", 0.7, true, 0.7, true},
		{"temperature", nil, true, nil, false},
		{"temperature", "hot", false, 0.5, true},
		{"temperature", float32(0.7), false, 0.5, true},
		{"reasoning_effort", "high", true, "high", true},
		{"compression_threshold", int64(2000), true, int64(2000), true},
		{"compression_threshold", 2000, false, int64(100), true},
		{"save_session", true, true, true, true},
		{"memory", false, true, false, true},
		{"enabled_tools", []string{"fs_cat"}, true, []string{"fs_cat"}, true},
		{"enabled_tools", []string{}, true, []string{}, true},
		{"enabled_tools", nil, true, []string(nil), false},
		{"enabled_tools", "fs_cat", false, []string{}, true},
		{"enabled_macros", []string{"review"}, true, []string{"review"}, true},
		{"role_name", "coder", false, "coder", true},
		{"no_such_key", "x", false, nil, false},
	} {
		s := Settings{Model: "a:b", Temperature: ptr(0.5), EnabledTools: []string{}, CompressionThreshold: ptr[int64](100), RoleName: ptr("coder")}
		if ok := s.Set(tc.key, tc.v); ok != tc.ok {
			t.Errorf("Set(%q, %#v) = %v, want %v", tc.key, tc.v, ok, tc.ok)
		}
		got, set := s.Lookup(tc.key)
		if set != tc.set || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("after Set(%q, %#v): Lookup = %#v, %v; want %#v, %v", tc.key, tc.v, got, set, tc.want, tc.set)
		}
	}
	// The setting does not share the caller's list.
	var s Settings
	l := []string{"a"}
	s.Set("enabled_skills", l)
	l[0] = "changed"
	if s.EnabledSkills[0] != "a" {
		t.Errorf("Set kept the caller's list: %q", s.EnabledSkills)
	}
}

func TestDataURLs(t *testing.T) {
	st, s := newSession(t, "x")
	s.SetDataURL("b", "/b.png")
	s.SetDataURL("a", "/a.png")
	s.SetDataURL("b", "/b2.png")
	_ = s.Save()
	loaded, _ := st.Load("x")
	if p, ok := loaded.DataURL("b"); !ok || p != "/b2.png" {
		t.Errorf("DataURL(b) = %q, %v", p, ok)
	}
	if !strings.Contains(string(loaded.Encode()), "data_urls:\n  b: /b2.png\n  a: /a.png\n") {
		t.Errorf("data_urls not kept in order:\n%s", loaded.Encode())
	}
}
