package assets

import (
	"embed"
	"io/fs"
)

//go:embed skills/*/SKILL.md
var skills embed.FS

// Skills is the bundled skills, as <name>/SKILL.md at the root.
// kernel/skill copies them into the config directory's skills/, where a
// user's file of the same name wins.
func Skills() fs.FS {
	sub, err := fs.Sub(skills, "skills")
	if err != nil {
		panic(err) // the directory is embedded; this cannot happen
	}
	return sub
}
