// Package skill owns skills: a directory skills/<name>/ holding SKILL.md,
// markdown whose front matter says what the skill is for (description),
// what it grants while loaded (enabled_tools, enabled_mcp_servers) and
// whether it drops itself after one turn (auto_unload). Skills live in the
// config directory's skills/ and in the workspace's .coyote/skills/ (a
// workspace skill shadows a user's one of the same name).
//
// The package finds skills cheaply (two directory reads and a stat per
// skill; a front matter is read only when asked for, and cached by size
// and mtime; a body only when the skill is loaded), decides which skills
// a context may use from skills_enabled, enabled_skills and
// visible_skills (Available, a pure function), keeps the set a
// conversation has loaded (Loaded), declares the skill__ functions the
// model calls, and installs the bundled skills (assets.Skills).
//
// It must not touch anything else: it resolves no setting itself (the
// caller passes the resolved values in a Policy), edits no prompt and
// offers no function to a model (kernel/convo does both), and never
// writes over a skill file.
package skill
