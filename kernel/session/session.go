package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/kernel/todo"
	"github.com/coyote-cli/coyote/sdk/fsx"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// InterruptedReply is the assistant message Checkpoint records for a turn
// that did not finish, so that `.recover` can ask the model to go on.
const InterruptedReply = "[Response interrupted: the reply did not finish]"

// ErrNothingToUndo is returned by Undo when the session has no exchange.
var ErrNothingToUndo = errors.New("nothing to undo: the session has no message of yours")

// Session is one conversation with its settings, as its file holds it.
// A Session is not safe for concurrent use.
type Session struct {
	store *Store
	name  string
	path  string // "" until a temp session is saved
	fileData
	dirty bool
	// todoRev is the todo list's version when the file was last read or
	// written: a change to the list since makes the session dirty.
	todoRev uint64
	title   string // slug of the automatic name of a temp session
	// base is the file as last read or written, to merge with what another
	// process wrote since (merge.go).
	base base
}

// New starts an empty session with the given settings; it has no file
// until it is saved. The kernel seeds save_session from the global
// setting, as the original does. New does not look for an existing file:
// see Open.
func (st *Store) New(name string, settings Settings) (*Session, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	s := &Session{store: st, name: name, fileData: fileData{settings: settings.clone(), todos: new(todo.List)}}
	if name != TempName {
		s.path, _ = st.Path(name)
	}
	s.setBase(nil)
	return s, nil
}

// Load reads the named session's file. A missing file is an error
// matching fs.ErrNotExist; a malformed one names the file, line and column
// (a *FileError).
func (st *Store) Load(name string) (*Session, error) {
	p, err := st.Path(name)
	if err != nil {
		return nil, err
	}
	data, info, err := readWithInfo(p)
	if err != nil {
		return nil, fmt.Errorf("load session %q: %w", name, err)
	}
	fd, err := decode(p, data)
	if err != nil {
		return nil, fmt.Errorf("load session %q: %w", name, err)
	}
	s := &Session{store: st, name: name, path: p, fileData: *fd, todoRev: fd.todos.Version()}
	s.setBase(info)
	return s, nil
}

// readWithInfo reads a file and describes the very file it read (a
// rename may replace it just before or after).
func readWithInfo(path string) ([]byte, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	return data, info, nil
}

// Open loads the named session, or starts it with settings when it has no
// file yet. The temp session is always new.
func (st *Store) Open(name string, settings Settings) (*Session, error) {
	if name != TempName && st.Exists(name) {
		return st.Load(name)
	}
	return st.New(name, settings)
}

// Name is the session's name: TempName, a name the user gave, or
// _/<stamp>[-<slug>] once a temp session was saved automatically.
func (s *Session) Name() string { return s.name }

// Path is the session's file, "" for a temp session not yet saved.
func (s *Session) Path() string { return s.path }

// IsTemp reports whether this is the temporary session.
func (s *Session) IsTemp() bool { return s.name == TempName }

// Settings returns a copy of the session's settings.
func (s *Session) Settings() Settings { return s.settings.clone() }

// Update changes the settings through fn (`.set`, `.model` and the like
// on a session) and reports whether anything changed; a change makes the
// session dirty.
func (s *Session) Update(fn func(*Settings)) bool {
	next := s.settings.clone()
	fn(&next)
	if reflect.DeepEqual(next, s.settings) {
		return false
	}
	s.settings = next
	s.dirty = true
	return true
}

// Dirty reports whether the session changed since it was loaded or saved,
// its todo list included.
func (s *Session) Dirty() bool { return s.dirty || s.todos.Version() != s.todoRev }

// Messages returns the conversation to send before the next user message.
// When a compression kept no message, the last exchange before it is
// added after the summary, so that the model knows where the conversation
// stood.
func (s *Session) Messages() []provider.Message {
	entries := s.messages
	if len(entries) == 1 && len(s.compressed) >= 2 {
		for i := len(s.compressed) - 1; i >= 0; i-- {
			if s.compressed[i].role == provider.RoleUser {
				entries = slices.Concat(entries, s.compressed[i:])
				break
			}
		}
	}
	return toMessages(entries, make([]provider.Message, 0, len(entries)+len(entries)/8))
}

// CompressedMessages returns the messages that compression replaced with
// a summary, oldest first.
func (s *Session) CompressedMessages() []provider.Message {
	return toMessages(s.compressed, nil)
}

// IsEmpty reports whether the session holds no message at all.
func (s *Session) IsEmpty() bool { return len(s.messages) == 0 && len(s.compressed) == 0 }

// HasUserMessages reports whether the visible conversation holds a
// message of the user's (`.compress session` has nothing to do without
// one).
func (s *Session) HasUserMessages() bool {
	for i := range s.messages {
		if s.messages[i].role == provider.RoleUser {
			return true
		}
	}
	return false
}

// Append records messages: a turn's input (the system prompt too, when the
// session was empty), then the reply. An assistant message with tool calls
// must come with the tool messages that answer it; it is recorded as one
// tool-calls entry, as the original records a turn that called tools.
// Nothing is recorded when an error is returned.
func (s *Session) Append(msgs ...provider.Message) error {
	entries, err := fromMessages(msgs)
	if err != nil {
		return fmt.Errorf("record in session %q: %w", s.name, err)
	}
	if len(entries) == 0 {
		return nil
	}
	s.messages = append(s.messages, entries...)
	s.dirty = true
	return nil
}

// Checkpoint records a turn that failed or was interrupted: its input and,
// as the answer, the part of the reply that arrived (partial, possibly
// empty) ended by InterruptedReply, so the session keeps what was said
// and `.recover` can send the turn again.
func (s *Session) Checkpoint(partial string, input ...provider.Message) error {
	answer := InterruptedReply
	if p := strings.TrimRight(partial, " \t\r\n"); p != "" {
		answer = p + "\n\n" + InterruptedReply
	}
	return s.Append(append(slices.Clip(input), provider.TextMessage(provider.RoleAssistant, answer))...)
}

// Interrupted reports whether the last turn was checkpointed (it failed
// or was cancelled), so that `.recover` can send it again.
func (s *Session) Interrupted() bool {
	n := len(s.messages)
	return n > 0 && s.messages[n-1].role == provider.RoleAssistant && strings.HasSuffix(entryText(&s.messages[n-1]), InterruptedReply)
}

// Empty clears the conversation (`.empty session`), compressed messages,
// images and the todo list included, and keeps the settings.
func (s *Session) Empty() {
	s.todos.Clear()
	s.messages, s.compressed, s.dataURLs = nil, nil, nil
	s.title = ""
	s.dirty = true
	s.base.rewrote = true
}

// Undo drops the last exchange (`.undo`): the last message of the user's
// and everything after it. It returns that message's text so that the REPL
// can put it back on the input line.
func (s *Session) Undo() (string, error) {
	for i := len(s.messages) - 1; i >= 0; i-- {
		e := &s.messages[i]
		if e.role != provider.RoleUser {
			continue
		}
		text := entryText(e)
		s.messages = s.messages[:i:i]
		s.dirty = true
		s.base.rewrote = true
		return text, nil
	}
	return "", ErrNothingToUndo
}

// entryText is the text of a message: its text parts, blank-line
// separated.
func entryText(e *entry) string {
	switch e.kind {
	case textContent:
		return e.text
	case partsContent:
		var texts []string
		for _, p := range e.parts {
			if p.raw == nil && p.typ == "text" {
				texts = append(texts, p.text)
			}
		}
		return strings.Join(texts, "\n\n")
	}
	return ""
}

// Fork saves the session and copies it under a new name (`.fork`), which
// it returns; the kernel switches to the copy. With no name the copy is
// <base>-fork-N for the first free N, where base is the name without any
// -fork-N of its own. A temp session is not saved first (it has no name
// to save under).
func (s *Session) Fork(name string) (*Session, error) {
	exists := func(name string) error {
		return fmt.Errorf("fork session %q: session %q already exists; choose another name", s.name, name)
	}
	if name != "" {
		if err := checkSaveName(name); err != nil {
			return nil, err
		}
		if s.store.Exists(name) { // before saving this one
			return nil, exists(name)
		}
	}
	if !s.IsTemp() && (s.Dirty() || !s.store.Exists(s.name)) {
		if err := s.Save(); err != nil {
			return nil, err
		}
	}
	f := &Session{
		store: s.store,
		name:  s.name,
		fileData: fileData{
			settings:   s.settings.clone(),
			extra:      slices.Clone(s.extra),
			compressed: slices.Clone(s.compressed),
			messages:   slices.Clone(s.messages),
			dataURLs:   slices.Clone(s.dataURLs),
			todos:      s.todos.Clone(),
			todoExtra:  s.todoExtra,
		},
	}
	// saveNew writes only where nothing is, under the lock: a session
	// another process created meanwhile is never overwritten.
	if name != "" {
		saved, err := f.saveNew(name)
		if err != nil {
			return nil, err
		}
		if !saved {
			return nil, exists(name)
		}
		return f, nil
	}
	base := forkBase(s.name)
	for n := 1; ; n++ {
		candidate := fmt.Sprintf("%s-fork-%d", base, n)
		if s.store.Exists(candidate) {
			continue
		}
		saved, err := f.saveNew(candidate)
		if err != nil {
			return nil, err
		}
		if saved {
			return f, nil
		}
	}
}

// SaveMode is what save_session asks for when a dirty session closes.
type SaveMode int

const (
	// SaveAsk: save_session is unset; the REPL asks (a command line run
	// does not save).
	SaveAsk SaveMode = iota
	// SaveAlways: save_session: true.
	SaveAlways
	// SaveNever: save_session: false.
	SaveNever
)

// SaveMode reads the session's save_session.
func (s *Session) SaveMode() SaveMode {
	switch {
	case s.settings.SaveSession == nil:
		return SaveAsk
	case *s.settings.SaveSession:
		return SaveAlways
	}
	return SaveNever
}

// ExitAction is what to do with a session that is being closed.
type ExitAction int

const (
	// ExitKeep: nothing to save (not dirty, or save_session: false).
	ExitKeep ExitAction = iota
	// ExitAsk: ask the user; a temp session then needs a name (SaveAs).
	ExitAsk
	// ExitSave: call Save.
	ExitSave
)

// OnExit says what to do when the session closes (`.exit session`, a new
// session, the end of the program). force is --save-session.
func (s *Session) OnExit(force bool) ExitAction {
	switch {
	case !s.Dirty():
		return ExitKeep
	case force:
		return ExitSave
	}
	switch s.SaveMode() {
	case SaveAlways:
		return ExitSave
	case SaveAsk:
		return ExitAsk
	}
	return ExitKeep
}

// Save writes the session to its file. A temp session is saved as
// _/<YYYYmmddTHHMMSS>[-<slug of its title>] and takes that name, so that
// later saves go to the same file.
//
// The file is written under its lock; when another process changed it
// since this Session read or wrote it, the two are merged (merge.go), and
// the Session then holds the merged session. When they cannot be merged
// the session is saved under a new name and a *ConflictError says so.
func (s *Session) Save() error {
	if !s.IsTemp() {
		return s.saveTo(s.name)
	}
	for {
		saved, err := s.saveNew(s.store.autoName(s.title))
		if saved || err != nil {
			return err
		}
	}
}

// SaveRecovery writes a session that no one could be asked about (a
// signal ended the program) under _/<YYYYmmddTHHMMSS>-<its name>, leaving
// its own file, if any, as it was, and returns the name it was kept
// under.
func (s *Session) SaveRecovery() (string, error) {
	slug := s.title
	if !s.IsTemp() {
		slug = Slug(s.name)
	}
	name := s.store.autoName(slug)
	return name, s.saveTo(name)
}

// SaveAs writes the session under another name (`.save session NAME`)
// and takes that name.
func (s *Session) SaveAs(name string) error {
	if err := checkSaveName(name); err != nil {
		return err
	}
	return s.saveTo(name)
}

func checkSaveName(name string) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	if name == TempName {
		return fmt.Errorf("%q is the unsaved session's name; choose another name", TempName)
	}
	return nil
}

// saveTo writes the session under name, merging with another process's
// changes when name is the session's own file.
func (s *Session) saveTo(name string) error {
	p, err := s.store.Path(name)
	if err != nil {
		return err
	}
	lock, err := fsx.LockFile(p, fsx.DefaultLockWait)
	if err != nil {
		return fmt.Errorf("save session %q: %w", name, err)
	}
	defer lock.Unlock()
	if p == s.path {
		if reason := s.rebase(p); reason != "" {
			lock.Unlock()
			return s.saveConflict(lock.Previous, reason)
		}
	}
	return s.write(name, p)
}

// saveNew writes the session under name unless a file has that name, and
// reports whether it did.
func (s *Session) saveNew(name string) (bool, error) {
	p, err := s.store.Path(name)
	if err != nil {
		return false, err
	}
	lock, err := fsx.LockFile(p, fsx.DefaultLockWait)
	if err != nil {
		return false, fmt.Errorf("save session %q: %w", name, err)
	}
	defer lock.Unlock()
	if _, err := os.Lstat(p); err == nil {
		return false, nil
	}
	return true, s.write(name, p)
}

// write writes the session to p, which is locked, and takes name.
func (s *Session) write(name, p string) error {
	if err := fsx.WritePrivate(p, s.Encode()); err != nil {
		return fmt.Errorf("save session %q: %w", name, err)
	}
	info, err := os.Stat(p)
	if err != nil {
		info = nil // the next save merges with the file, whatever it is
	}
	s.name, s.path, s.dirty, s.todoRev = name, p, false, s.todos.Version()
	s.setBase(info)
	return nil
}

// rebase merges what another process wrote to p since the base into the
// session. It returns why it could not, "" when it did (or had nothing to
// do).
func (s *Session) rebase(p string) (reason string) {
	// The common case, no other writer, costs a stat: a session with
	// images is megabytes, read only when it changed.
	if info, err := os.Stat(p); err != nil || unchangedSince(s.base.info, info) {
		return "" // unchanged, gone (removed since) or unreadable: write ours
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	theirs, err := decode(p, data)
	if err != nil {
		return "its file can no longer be read (" + err.Error() + ")"
	}
	merged, ok := merge(&s.base, theirs, &s.fileData)
	if !ok {
		return "both rewrote its history (.compress, .empty or .undo)"
	}
	list := s.todos // the same list for the life of the Session
	if merged.todos != list {
		list.Set(merged.todos.Goal(), merged.todos.Items())
	}
	s.fileData = *merged
	s.todos = list
	return ""
}

// saveConflict saves the session as <name>-conflict-<n> and reports it.
func (s *Session) saveConflict(pid int, reason string) error {
	old := s.name
	for n := 1; ; n++ {
		name := fmt.Sprintf("%s-conflict-%d", old, n)
		saved, err := s.saveNew(name)
		if err != nil {
			return err
		}
		if saved {
			return &ConflictError{Name: old, SavedAs: name, PID: pid, Reason: reason}
		}
	}
}

// Encode returns the session file's text.
func (s *Session) Encode() []byte { return encode(&s.fileData) }

// NeedsTitle reports whether the kernel should ask the create-title role
// for a title: a temp session that will be saved automatically, after its
// first exchange.
func (s *Session) NeedsTitle() bool {
	if !s.IsTemp() || s.title != "" || s.SaveMode() != SaveAlways {
		return false
	}
	user, reply := s.firstExchange()
	return user != "" && reply != ""
}

// TitleContext is the first exchange as a short transcript, the input the
// create-title role gets.
func (s *Session) TitleContext() string {
	user, reply := s.firstExchange()
	return "USER: " + user + "\nASSISTANT: " + reply + "\n"
}

func (s *Session) firstExchange() (user, reply string) {
	for i := range s.messages {
		e := &s.messages[i]
		switch {
		case e.role == provider.RoleUser && user == "":
			user = entryText(e)
		case e.role == provider.RoleAssistant && user != "" && e.kind != callsContent:
			return user, entryText(e)
		}
	}
	return user, ""
}

// SetTitle names a temp session for its automatic save: the title's slug
// ends the file name.
func (s *Session) SetTitle(title string) { s.title = Slug(title) }

// Title is the slug SetTitle made, "" before.
func (s *Session) Title() string { return s.title }

// SetDataURL records which file an image of the conversation came from
// (data_urls: sha → path), so that the REPL shows the path, not the data.
func (s *Session) SetDataURL(sha, path string) {
	for i := range s.dataURLs {
		if s.dataURLs[i].sha == sha {
			if s.dataURLs[i].path != path {
				s.dataURLs = slices.Clone(s.dataURLs)
				s.dataURLs[i].path = path
				s.dirty = true
			}
			return
		}
	}
	s.dataURLs = append(s.dataURLs, dataURL{sha: sha, path: path})
	s.dirty = true
}

// DataURL returns the file an image came from.
func (s *Session) DataURL(sha string) (string, bool) {
	for _, u := range s.dataURLs {
		if u.sha == sha {
			return u.path, true
		}
	}
	return "", false
}
