package trust

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/kernel/termtext"
)

// Kinds of workspace file, as questions and listings name them.
const (
	KindMCP   = "MCP servers"
	KindMacro = "macro"
)

// Hint is how a refusal says to approve a file.
const Hint = "approve it with coyote --trust-workspace, or .workspace trust in the REPL"

// Subject is one workspace file put to the Gate, described by the package
// that reads it.
type Subject struct {
	Kind string // KindMCP, KindMacro, …
	Path string // the file (made absolute by the Gate)
	// Sum is the hash of the exact bytes the caller will use: read the
	// file once, hash and parse those bytes, so that what was approved is
	// what runs.
	Sum Sum
	// Lines say what the file would run or reach, one line each, its
	// commands written with Command; shown as they are when printable
	// (termtext.Quote).
	Lines []string
	// Secrets are the vault secrets it names.
	Secrets []string
	// Risky: it can run a command on this machine or use the vault.
	Risky bool
}

// NeedsTrust reports whether the file must be approved before it is
// used: it can run a command, use the vault or names a secret. A file
// that can do none of these is used without a question.
func (s Subject) NeedsTrust() bool { return s.Risky || len(s.Secrets) > 0 }

// Answer is what the user said.
type Answer int

// Answers. Later (the question was interrupted, or the input ended) is
// kept for this run only; Yes and No are remembered.
const (
	Later Answer = iota
	Yes
	No
)

// Asker asks the user about s (show s.Describe(), then Prompt) and
// returns the answer; Later when the question could not be answered.
type Asker func(s Subject) Answer

// State is where a file stands, for listings.
type State int

// States.
const (
	NotNeeded State = iota // it runs nothing and names no secret
	Undecided              // never asked, or asked and not answered
	Trusted
	Declined
)

func (s State) String() string {
	switch s {
	case NotNeeded:
		return "needs no approval"
	case Undecided:
		return "not approved yet"
	case Trusted:
		return "trusted"
	case Declined:
		return "declined"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Why a file is refused.
const (
	NoTerminal  = "no-terminal"  // undecided, and no one to ask
	WasDeclined = "declined"     // declined before, as it is now
	DeclinedNow = "declined-now" // declined at the question just asked
	NotAnswered = "not-answered" // the question was interrupted
)

// RefusedError is Check's refusal: the file must not be used. Its text is
// one line that says how to approve the file.
type RefusedError struct {
	Subject Subject
	Reason  string // NoTerminal, WasDeclined, DeclinedNow or NotAnswered
}

func (e *RefusedError) Error() string {
	file := fmt.Sprintf("the workspace file %s (%s)", termtext.Quote(e.Subject.Path), e.Subject.Kind)
	switch e.Reason {
	case WasDeclined:
		return fmt.Sprintf("you declined %s as it is now: %s", file, Hint)
	case DeclinedNow:
		return fmt.Sprintf("you declined %s: it stays unused until it changes or you %s", file, Hint)
	case NotAnswered:
		return fmt.Sprintf("%s was not approved (no answer); it is asked about again next time, or %s", file, Hint)
	}
	return fmt.Sprintf("%s can run commands or use your secrets and is not approved (no terminal to ask on): %s", file, Hint)
}

// Options configure a Gate.
type Options struct {
	Store *Store
	// TrustAll is --trust-workspace: every file checked is approved (and
	// remembered) without a question, and Notify says so.
	TrustAll bool
	// Ask asks on the terminal; nil when there is none.
	Ask Asker
	// Notify shows the user one line: a file approved by TrustAll, a
	// decision that could not be saved. nil drops them.
	Notify func(string)
}

// Gate decides whether a workspace file may be used, asking the user when
// it must and can. One Gate serves a whole coyote process, so that a file
// is asked about at most once per run. Safe for concurrent use; questions
// are asked one at a time.
type Gate struct {
	o Options

	mu   sync.Mutex
	seen map[key]error // this run's verdicts, by file and content
}

type key struct {
	path string
	sum  Sum
}

// NewGate returns a gate; it reads nothing until a file is checked.
func NewGate(o Options) *Gate { return &Gate{o: o, seen: map[key]error{}} }

// SetAsker makes a the way questions are asked (the REPL asks on its
// input line) until restore is called.
func (g *Gate) SetAsker(a Asker) (restore func()) {
	g.mu.Lock()
	prev := g.o.Ask
	g.o.Ask = a
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		g.o.Ask = prev
		g.mu.Unlock()
	}
}

// Check returns nil when the file s describes may be used, and a
// *RefusedError when it must not be: it needs approval (NeedsTrust) and
// the user declined it, or did not answer, or could not be asked. The
// answer to a question is remembered by the file's path and content;
// the same file and content is decided once per run.
func (g *Gate) Check(s Subject) error {
	if !s.NeedsTrust() {
		return nil
	}
	s.Path = absolute(s.Path)
	k := key{s.Path, s.Sum}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err, ok := g.seen[k]; ok {
		return err
	}
	err := g.decide(s)
	g.seen[k] = err
	return err
}

// decide is Check's decision for a file not decided in this run.
func (g *Gate) decide(s Subject) error {
	rec, found, err := g.lookup(s)
	if err != nil {
		g.notify("warning: " + err.Error())
	}
	switch {
	case found && rec.Trusted:
		return nil
	case g.o.TrustAll:
		g.remember(s, true)
		g.notify(fmt.Sprintf("Trusted the workspace file %s (%s), as --trust-workspace says.", termtext.Quote(s.Path), s.Kind))
		return nil
	case found:
		return &RefusedError{Subject: s, Reason: WasDeclined}
	case g.o.Ask == nil:
		return &RefusedError{Subject: s, Reason: NoTerminal}
	}
	switch g.o.Ask(s) {
	case Yes:
		g.remember(s, true)
		return nil
	case No:
		g.remember(s, false)
		return &RefusedError{Subject: s, Reason: DeclinedNow}
	}
	return &RefusedError{Subject: s, Reason: NotAnswered}
}

// Approve trusts the files as subs describe them now (.workspace
// trust), without a question: for this run, and in the store in one
// change (all of them are remembered, or none).
func (g *Gate) Approve(subs ...Subject) error {
	records := make([]Record, len(subs))
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, s := range subs {
		s.Path = absolute(s.Path)
		g.seen[key{s.Path, s.Sum}] = nil
		records[i] = record(s, true)
	}
	if g.o.Store == nil || len(records) == 0 {
		return nil
	}
	return g.o.Store.Put(records...)
}

// State is where the file s describes stands: decided in this run or
// before, or not yet.
func (g *Gate) State(s Subject) State { return g.States(s)[0] }

// States is State for each of subs, reading the store at most once: a
// listing of many files costs one read.
func (g *Gate) States(subs ...Subject) []State {
	out := make([]State, len(subs))
	g.mu.Lock()
	defer g.mu.Unlock()
	var stored *storeFile // read when first needed
	for i, s := range subs {
		if !s.NeedsTrust() {
			out[i] = NotNeeded
			continue
		}
		s.Path = absolute(s.Path)
		if err, ok := g.seen[key{s.Path, s.Sum}]; ok {
			out[i] = Undecided
			if err == nil {
				out[i] = Trusted
			} else if re, ok := err.(*RefusedError); ok && (re.Reason == WasDeclined || re.Reason == DeclinedNow) {
				out[i] = Declined
			}
			continue
		}
		if stored == nil {
			stored = &storeFile{}
			if g.o.Store != nil {
				if f, err := g.o.Store.read(); err == nil {
					stored = f
				}
			}
		}
		rec, found := stored.lookup(s.Path, s.Sum)
		switch {
		case !found:
			out[i] = Undecided
		case rec.Trusted:
			out[i] = Trusted
		default:
			out[i] = Declined
		}
	}
	return out
}

// Forget removes the remembered decisions match accepts (.workspace
// untrust), and this run's verdicts about their files, so that they are
// asked about again.
func (g *Gate) Forget(match func(Record) bool) ([]Record, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k := range g.seen {
		if match(Record{Path: k.path, SHA256: k.sum.String()}) {
			delete(g.seen, k)
		}
	}
	if g.o.Store == nil {
		return nil, nil
	}
	return g.o.Store.Forget(match)
}

// Store is the gate's store (nil when it has none).
func (g *Gate) Store() *Store { return g.o.Store }

func (g *Gate) lookup(s Subject) (Record, bool, error) {
	if g.o.Store == nil {
		return Record{}, false, nil
	}
	return g.o.Store.Lookup(s.Path, s.Sum)
}

// remember stores a decision; a store that cannot be written leaves the
// decision to this run, and says so.
func (g *Gate) remember(s Subject, trusted bool) {
	if g.o.Store == nil {
		return
	}
	if err := g.o.Store.Put(record(s, trusted)); err != nil {
		g.notify(fmt.Sprintf("warning: your answer about %s holds for this run only: %v", termtext.Quote(s.Path), err))
	}
}

func (g *Gate) notify(line string) {
	if g.o.Notify != nil {
		g.o.Notify(line)
	}
}

func record(s Subject, trusted bool) Record {
	return Record{Path: s.Path, SHA256: s.Sum.String(), Kind: s.Kind, Trusted: trusted, At: time.Now().UTC().Truncate(time.Second)}
}

// absolute is path made absolute and clean (as it is when that fails).
func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// Under returns a matcher of the decisions about the files in one of
// dirs (at any depth) or equal to one of files: a workspace's.
func Under(dirs, files []string) func(Record) bool {
	return func(r Record) bool {
		for _, f := range files {
			if r.Path == absolute(f) {
				return true
			}
		}
		for _, d := range dirs {
			if d = absolute(d); strings.HasPrefix(r.Path, d+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
}
