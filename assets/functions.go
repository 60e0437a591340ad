package assets

import (
	"embed"
	"io/fs"
)

//go:embed functions/tools/*.sh functions/utils/*.sh
var functions embed.FS

// Functions is the bundled tool scripts, laid out as in a user's functions
// directory: tools/<name>.sh (one tool each, argc comment tags and a main
// function) and utils/<name>.sh (helpers the tools source, such as the
// confirmation guards). kernel/tools/bundled copies them into the functions
// directory, where a user's copy of the same name wins.
func Functions() fs.FS {
	sub, err := fs.Sub(functions, "functions")
	if err != nil {
		panic(err) // the directory is embedded; this cannot happen
	}
	return sub
}
