// Package role owns roles: the files roles/<name>.md (optional YAML front
// matter with per-role settings, then the prompt), the built-in roles the
// binary ships, the temporary role of --prompt, turning a role and an
// input into the messages of a request (an embedded __INPUT__, few-shot
// "### INPUT:"/"### OUTPUT:" pairs, the system variables such as
// {{__os__}}), and writing a role back to a file.
//
// It does not resolve settings against the session, agent or global
// configuration (the caller layers Settings; an unset value means "inherit"),
// choose or call models, or know where the config directory is: callers
// pass the roles directory and the built-in roles as an fs.FS.
package role
