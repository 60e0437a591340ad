package session

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"slices"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// Two coyote processes may hold the same session: a REPL and a one-shot
// prompt, or two one-shots started together. Each remembers the file as it
// last read or wrote it (its base); a save takes the file's lock, and when
// the file has changed since the base, it merges instead of overwriting:
//
//   - When this process only added turns since its base, the merged
//     history is the file's (with whatever the other process did to it:
//     new turns, a compression, an emptied session) followed by this
//     process's new turns.
//   - When this process rewrote its history (.compress, .empty, .undo) and
//     the other only added turns, the other's new turns follow this
//     process's history.
//   - When both rewrote it, they cannot be merged: this process's session
//     is saved under a new name, <name>-conflict-<n>, and Save returns a
//     *ConflictError that names the other process and the new name.
//
// A setting changed by this process since its base wins; the others come
// from the file. So does the todo list: this process's when it changed
// it, else the file's. Nothing either process recorded is dropped.

// ConflictError is returned by Save when another process changed the
// session's file in a way that cannot be merged with this one's changes.
// The session was saved under SavedAs and now has that name.
type ConflictError struct {
	Name    string // the session's name before
	SavedAs string // the name it was saved under instead
	PID     int    // the process that changed the file, 0 when unknown
	Reason  string
}

func (e *ConflictError) Error() string {
	who := "another program"
	if e.PID > 0 {
		who = fmt.Sprintf("another coyote (pid %d)", e.PID)
	}
	return fmt.Sprintf("session %q was changed by %s since it was loaded, and %s; this one was saved as %q instead, so nothing is lost",
		e.Name, who, e.Reason, e.SavedAs)
}

// base is the session file as this Session last read or wrote it.
type base struct {
	data fileData
	// info identifies the file then (nil: there was no file).
	info os.FileInfo
	// rewrote is set when the history changed other than by appending
	// since then (Compress, Empty, Undo).
	rewrote bool
}

// setBase makes the session's current content its base, info being its
// file's identity (nil when it has none).
func (s *Session) setBase(info os.FileInfo) {
	s.base = base{
		data: fileData{
			settings:   s.settings.clone(),
			extra:      slices.Clip(s.extra),
			compressed: slices.Clip(s.compressed),
			messages:   slices.Clip(s.messages),
			dataURLs:   slices.Clip(s.dataURLs),
			todos:      s.todos.Clone(),
		},
		info: info,
	}
}

// unchangedSince reports whether info describes the same file, with the
// same size and time, as was (nil for no file).
func unchangedSince(was, info os.FileInfo) bool {
	return was != nil && os.SameFile(was, info) && was.Size() == info.Size() && was.ModTime().Equal(info.ModTime())
}

// merge returns ours merged with theirs, the file another process wrote
// since base; false when both rewrote the history. The result shares
// entries with its inputs.
func merge(b *base, theirs, ours *fileData) (*fileData, bool) {
	out := &fileData{}
	switch {
	case !b.rewrote:
		added := ours.messages[len(b.data.messages):]
		if len(added) > 0 && len(theirs.messages) > 0 && sameEntries(added[:1], theirs.messages[:1]) && added[0].role == provider.RoleSystem {
			// Both started the session with the same system prompt.
			added = added[1:]
		}
		out.compressed = theirs.compressed
		out.messages = slices.Concat(theirs.messages, added)
	case theirsOnlyAdded(&b.data, theirs):
		out.compressed = ours.compressed
		out.messages = slices.Concat(ours.messages, theirs.messages[len(b.data.messages):])
	default:
		return nil, false
	}
	out.settings = mergeSettings(&b.data.settings, &theirs.settings, &ours.settings)
	out.extra = theirs.extra
	if !reflect.DeepEqual(ours.extra, b.data.extra) {
		out.extra = ours.extra
	}
	out.dataURLs = mergeDataURLs(b.data.dataURLs, theirs.dataURLs, ours.dataURLs)
	out.todos, out.todoExtra = theirs.todos, theirs.todoExtra
	if !ours.todos.Equal(b.data.todos) {
		out.todos, out.todoExtra = ours.todos, ours.todoExtra
	}
	return out, true
}

// theirsOnlyAdded reports whether theirs is base with turns added: the
// same compressed messages and base's messages first.
func theirsOnlyAdded(base, theirs *fileData) bool {
	return len(theirs.messages) >= len(base.messages) &&
		sameEntries(theirs.compressed, base.compressed) &&
		sameEntries(theirs.messages[:len(base.messages)], base.messages)
}

// sameEntries compares two lists of entries as they are written, since
// entries read from two files are never the same values.
func sameEntries(a, b []entry) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	wa, wb := &writer{}, &writer{}
	wa.entries(a)
	wb.entries(b)
	return bytes.Equal(wa.b, wb.b)
}

// mergeSettings takes each setting from ours when this process changed
// it since base, else from theirs.
func mergeSettings(base, theirs, ours *Settings) Settings {
	out := *theirs
	vo, vb, vr := reflect.ValueOf(ours).Elem(), reflect.ValueOf(base).Elem(), reflect.ValueOf(&out).Elem()
	for i := range vo.NumField() {
		if !reflect.DeepEqual(vo.Field(i).Interface(), vb.Field(i).Interface()) {
			vr.Field(i).Set(vo.Field(i))
		}
	}
	return out.clone()
}

// mergeDataURLs keeps theirs and adds the images this process recorded or
// moved since base.
func mergeDataURLs(base, theirs, ours []dataURL) []dataURL {
	out := slices.Clone(theirs)
	for _, u := range ours {
		if slices.Contains(base, u) {
			continue
		}
		if i := slices.IndexFunc(out, func(o dataURL) bool { return o.sha == u.sha }); i >= 0 {
			out[i] = u
		} else {
			out = append(out, u)
		}
	}
	return out
}
