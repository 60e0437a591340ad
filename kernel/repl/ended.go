package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/kernel/session"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// When a signal ends the REPL (SIGTERM, or SIGHUP when the terminal
// closes) no one can be asked whether to save the session. ended does
// what .exit would have done without asking: a session that save_session
// (or --save-session) says to save is saved; one the user would have been
// asked about is kept recoverable under sessions/_/ and named on the next
// start, from a note in the cache directory; save_session: false keeps
// nothing, as it says.

// recoveredFile is the note of sessions kept when a signal ended a REPL.
const recoveredFile = "recovered-sessions"

// ErrHangUp ends Run when the terminal went away: the caller exits as
// SIGHUP's default would (129), whichever came first, the signal or the
// failed read.
var ErrHangUp = errors.New("the terminal closed")

// hangUpCause is why the REPL ended when the terminal closed.
const hangUpCause = "coyote was ended by SIGHUP (the terminal closed)"

// ended closes the session after ctx was cancelled by a signal.
func (r *REPL) ended(ctx context.Context) {
	why := "coyote was ended"
	if cause := context.Cause(ctx); cause != nil {
		why = cause.Error()
	}
	r.endedBy(why)
}

// endedBy closes the session when the REPL ends for why, with no one to ask.
func (r *REPL) endedBy(why string) {
	s := r.conv.Session
	if s == nil {
		return
	}
	switch s.OnExit(r.o.SaveSession) {
	case session.ExitSave:
		if err := s.Save(); err != nil {
			r.printError(fmt.Errorf("%s; saving session %s failed: %w", why, s.Name(), err))
			return
		}
		r.printf("\n%s; session %s saved.\n", why, s.Name())
	case session.ExitAsk:
		was := s.Name()
		name, err := s.SaveRecovery()
		if err != nil {
			r.printError(fmt.Errorf("%s; keeping session %s failed: %w", why, was, err))
			return
		}
		r.noteRecovered(was, name, why)
		r.printf("\n%s; session %s was not saved: it is kept as %s.\n", why, was, name)
	}
	r.conv.Session = nil
}

// noteRecovered adds a kept session to the note read at the next start,
// one line appended in one write, so REPLs ended together keep every note.
func (r *REPL) noteRecovered(was, name, why string) {
	f, err := fsx.OpenPrivateAppend(filepath.Join(r.conv.Paths().CacheDir, recoveredFile))
	if err != nil {
		return // the session is kept all the same; only the note is lost
	}
	defer f.Close()
	fmt.Fprintf(f, "%s\t%s\t%s\t%s\n", time.Now().Format(time.RFC3339), was, name, strings.ReplaceAll(why, "\t", " "))
}

// announceRecovered tells, once, of the sessions kept when signals ended
// earlier REPLs.
func (r *REPL) announceRecovered() {
	path := filepath.Join(r.conv.Paths().CacheDir, recoveredFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	_ = os.Remove(path)
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 4 {
			continue
		}
		at, _ := time.Parse(time.RFC3339, f[0])
		r.printf("%s at %s with session %s unsaved; it was kept: .session %s continues it.\n",
			upperFirst(f[3]), at.Local().Format("2006-01-02 15:04"), f[1], f[2])
	}
}
