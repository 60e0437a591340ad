package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/kernel/tools"
)

// Prefix starts the names of the memory functions.
const Prefix = "memory__"

// Instructions tell the model what its memory is and how to keep it;
// they come before the indexes when the memory functions are offered.
const Instructions = `# Memory

You have a memory that lasts from one conversation to the next: the indexes below, one line per entry, each line linking the file that holds the entry. The global memory is the user's, for all their work; the workspace memory belongs to the current repository.

- Read an entry's file with memory__read when its line looks useful for the task at hand; memory__list shows every entry with its status.
- Save what will help in a later conversation with memory__write: a preference the user stated, a fact about the project that took effort to find, a decision and why it was made. One short entry per subject; writing to an existing file replaces it. Set expires on what is true only for a while, and superseded_by on an entry that a newer one replaces.
- Keep the index tidy with memory__edit_index, memory__rename and memory__delete; memory__lint reports expired, superseded and broken entries.
- Never save secrets (keys, passwords, tokens). Changes go to the workspace memory when it exists, else to the global one; the scope argument picks one.`

// ReadOnlyNote comes before the indexes when the memory functions are not
// offered (function calling is off).
const ReadOnlyNote = `# Memory

Below is what you remember from earlier conversations: the global memory (the user's, for all their work) and the workspace memory (the current repository's), each an index followed by its entries. It is read-only here: function calling is off, so you cannot change it.`

// Funcs are the memory functions working on the stores in force (stores
// is asked at each call, so that a memory set up meanwhile is seen); now
// gives the date written in the drill files. They run one at a time, in
// call order.
func Funcs(stores func() []Store, now func() time.Time) []*tools.Func {
	scopeProp := `"scope":{"type":"string","enum":["global","workspace"],"description":"Which memory: the workspace one when it exists, else the global one, unless you say."}`
	fileProp := `"file":{"type":"string","description":"The entry's file name in the memory directory, like test-command.md."}`
	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		if len(required) == 0 {
			req = []byte("[]")
		}
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
	}
	mk := func(name, desc string, params json.RawMessage, call func(a args) (string, error)) *tools.Func {
		return &tools.Func{
			Name: name, Description: desc, Parameters: params, Source: "builtin", Builtin: true, Serial: true,
			Call: func(_ context.Context, raw json.RawMessage) (string, error) {
				var a args
				if len(bytes.TrimSpace(raw)) > 0 {
					if err := json.Unmarshal(raw, &a); err != nil {
						return "", fmt.Errorf("invalid arguments: %v", err)
					}
				}
				a.stores = stores()
				return call(a)
			},
		}
	}
	return []*tools.Func{
		mk("memory__list", "List the entries of the memory (both memories unless scope says one), with each one's status.",
			obj(scopeProp),
			func(a args) (string, error) {
				ss, err := a.pick(true)
				if err != nil {
					return "", err
				}
				var parts []string
				for _, s := range ss {
					t, err := List(s, now())
					if err != nil {
						return "", err
					}
					parts = append(parts, t)
				}
				return strings.Join(parts, "\n"), nil
			}),
		mk("memory__read", "Read an entry's file, or the index itself (file MEMORY.md).",
			obj(fileProp+","+scopeProp, "file"),
			func(a args) (string, error) {
				s, err := a.one()
				if err != nil {
					return "", err
				}
				return ReadFile(s, a.File)
			}),
		mk("memory__write", "Save an entry: create its file, or replace it, and put its line in the index.",
			obj(fileProp+`,
				"description":{"type":"string","description":"One line saying what the entry holds; it is the entry's line in the index."},
				"content":{"type":"string","description":"The entry itself, in markdown."},
				"name":{"type":"string","description":"A short title (default: the file name)."},
				"type":{"type":"string","description":"What kind of entry: user, project, feedback, reference, … (default: note)."},
				"expires":{"type":"string","description":"The day it stops being true, YYYY-MM-DD (optional)."},
				"superseded_by":{"type":"string","description":"The file of the entry that replaces this one (optional)."},`+scopeProp,
				"file", "description", "content"),
			func(a args) (string, error) {
				s, err := a.one()
				if err != nil {
					return "", err
				}
				file, created, err := Write(s, a.File, Draft{Name: a.Name, Description: a.Description, Type: a.Type, Body: deref(a.Content),
					Expires: a.Expires, SupersededBy: a.SupersededBy}, now())
				if err != nil {
					return "", err
				}
				if created {
					return fmt.Sprintf("Saved %s in the %s memory and added it to the index.", file, s.Scope), nil
				}
				return fmt.Sprintf("Replaced %s in the %s memory and updated its line in the index.", file, s.Scope), nil
			}),
		mk("memory__edit_index", "Change the index MEMORY.md: replace old_text (found exactly once) with new_text, or append lines, or replace the whole text with content.",
			obj(`"old_text":{"type":"string","description":"Exact text of the index to replace."},
				"new_text":{"type":"string","description":"What replaces old_text (empty removes it)."},
				"append":{"type":"string","description":"Lines to add at the end."},
				"content":{"type":"string","description":"A whole new index."},`+scopeProp),
			func(a args) (string, error) {
				s, err := a.one()
				if err != nil {
					return "", err
				}
				modes := 0
				for _, set := range []bool{a.OldText != nil, a.Append != nil, a.Content != nil} {
					if set {
						modes++
					}
				}
				if modes != 1 {
					return "", errors.New("give exactly one of old_text (with new_text), append or content")
				}
				switch {
				case a.OldText != nil:
					err = EditIndex(s, *a.OldText, deref(a.NewText))
				case a.Append != nil:
					err = AppendIndex(s, *a.Append)
				default:
					err = ReplaceIndex(s, *a.Content)
				}
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("Changed the %s memory's index.", s.Scope), nil
			}),
		mk("memory__delete", "Delete an entry: its file and its lines in the index.",
			obj(fileProp+","+scopeProp, "file"),
			func(a args) (string, error) {
				s, err := a.one()
				if err != nil {
					return "", err
				}
				if err := Delete(s, a.File); err != nil {
					return "", err
				}
				return fmt.Sprintf("Deleted %s from the %s memory.", strings.TrimSpace(a.File), s.Scope), nil
			}),
		mk("memory__rename", "Rename an entry's file; its index line and the entries superseded by it follow.",
			obj(fileProp+`,"new_file":{"type":"string","description":"The new file name."},`+scopeProp, "file", "new_file"),
			func(a args) (string, error) {
				s, err := a.one()
				if err != nil {
					return "", err
				}
				if err := Rename(s, a.File, a.NewFile); err != nil {
					return "", err
				}
				return fmt.Sprintf("Renamed %s to %s in the %s memory.", strings.TrimSpace(a.File), strings.TrimSpace(a.NewFile), s.Scope), nil
			}),
		mk("memory__lint", "Check the memory (both unless scope says one): expired, superseded and broken entries, bad links, files not in the index.",
			obj(scopeProp),
			func(a args) (string, error) {
				ss, err := a.pick(true)
				if err != nil {
					return "", err
				}
				var problems []string
				for _, s := range ss {
					p, err := LintStore(s, now())
					if err != nil {
						return "", err
					}
					problems = append(problems, p...)
				}
				if len(problems) == 0 {
					return "No problems found.", nil
				}
				return strings.Join(problems, "\n"), nil
			}),
	}
}

// args are the arguments of every memory function.
type args struct {
	Scope        string  `json:"scope"`
	File         string  `json:"file"`
	NewFile      string  `json:"new_file"`
	Name         string  `json:"name"`
	Description  string  `json:"description"`
	Type         string  `json:"type"`
	Content      *string `json:"content"`
	Expires      string  `json:"expires"`
	SupersededBy string  `json:"superseded_by"`
	OldText      *string `json:"old_text"`
	NewText      *string `json:"new_text"`
	Append       *string `json:"append"`

	stores []Store // the stores in force
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// pick returns the stores a call works on: the one its scope names, or
// with all and no scope every store in force.
func (a args) pick(all bool) ([]Store, error) {
	if len(a.stores) == 0 {
		return nil, errors.New("no memory is set up (coyote --init-memory global|workspace creates one)")
	}
	if strings.TrimSpace(a.Scope) == "" {
		if all {
			return a.stores, nil
		}
		for _, s := range a.stores {
			if s.Scope == Workspace {
				return []Store{s}, nil
			}
		}
		return a.stores[:1], nil
	}
	sc, err := ParseScope(a.Scope)
	if err != nil {
		return nil, err
	}
	for _, s := range a.stores {
		if s.Scope == sc {
			return []Store{s}, nil
		}
	}
	return nil, fmt.Errorf("the %s memory is not set up (coyote --init-memory %s creates it)", sc, sc)
}

// one is the store a call that changes or reads one store works on.
func (a args) one() (Store, error) {
	ss, err := a.pick(false)
	if err != nil {
		return Store{}, err
	}
	return ss[0], nil
}
