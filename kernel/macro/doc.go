// Package macro owns macros, Coyote's custom commands: the files
// macros/<name>.yaml (a description, whether the steps run isolated,
// positional variables, and the steps, which are REPL lines), finding them
// in the global and the workspace macros directories (a workspace macro
// shadows a global one of the same name), filling a macro's variables from
// the arguments it was invoked with, and deciding which macros may run in
// the active context from the enabled_macros allowlists of the session,
// agent, role and global configuration; and what a macro's steps would
// run (Subject), which a workspace macro needs approved (kernel/trust).
//
// Everything here is pure or reads files only: the package does not run
// steps, fork conversations, print, or change configuration. The REPL
// (kernel/repl) runs steps and stores the list Toggle returns; the built-in
// REPL command names come from the caller, so this package never holds a
// copy of them. Expansion and resolution are plain functions over values
// so that they can be table-tested without a REPL.
package macro
