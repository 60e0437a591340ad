// Package trust owns the one rule for files a workspace ships: a file in
// the directory Coyote runs in (a cloned repository, say) that could run a
// command on this machine or name a vault secret is used only once the
// user has said yes to that file, as it is now.
//
// A caller that finds such a file describes it as a Subject (its kind,
// path, the SHA-256 of the exact bytes it will use, what it would run or
// reach, the secrets it names) and asks the Gate. A Subject that can run
// nothing and names no secret is allowed without a question, so that the
// question stays rare enough to be read. Otherwise the Gate answers from
// what the user decided before (the Store: the path and hash of each file
// approved or declined, in <cache dir>/trust.json, written atomically and
// privately under its lock), or asks on the terminal, showing everything
// the file would run, escaped so that no control character can hide part
// of it. Without a terminal an undecided file is refused, and the error
// says how to approve it. Any change to a file changes its hash, so it is
// asked about again.
//
// Who joins: the workspace's mcp.json (kernel/mcpconf builds its Subject,
// kernel/mcp asks when an enabled server comes from it), workspace macros
// whose steps run shell commands, command sources or the vault
// (kernel/macro builds the Subject, kernel/repl asks before running one).
// Workspace agents' tool scripts, workspace skills and the workspace's
// sbx-mixin.yaml will join the same way when they are built: describe the
// file as a Subject, call Gate.Check before using it, use nothing from it
// when Check refuses.
//
// It must not touch anything else: it reads no workspace file itself (the
// caller passes the bytes' hash and the description), never opens the
// vault, starts nothing, and prints only through the functions it is
// given.
package trust
