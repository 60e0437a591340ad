// Package session owns conversations that outlive a turn: the session
// files under sessions/ (and an agent's agents/<name>/sessions/), their
// names, and what the REPL does to them (.session, .empty session,
// .compress session, .undo, .fork, .save session, .exit session,
// .recover).
//
// A session file is the original program's YAML: the settings the session
// sets, the conversation's todo list (todo_list, todos.go), then
// compressed_messages, messages and data_urls. A Session keeps
// the messages in the file's form, so that loading and saving a file
// written by the original (or by a later version) loses nothing, and
// converts them to the kernel's messages (sdk/provider) when asked.
//
// Files are written atomically and privately (0600, folders 0700), under
// the file's lock. Several coyote processes may hold the same session (a
// REPL and a one-shot, two one-shots): a save merges what another process
// wrote since this one loaded the file, appending the other's new turns
// and this one's in the order they were saved, and never drops either
// (merge.go).
//
// The package reads and writes files and converts messages. It makes no
// model call: the kernel asks the model for summaries and titles and hands
// the text over (Compress, SetTitle). It does not resolve settings across
// session, agent, role and global (the config package does, through
// Settings.Lookup), and it does not know where the config directory is.
package session
