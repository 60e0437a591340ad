package assets

import (
	"embed"
	"io/fs"
)

//go:embed macros/*.yaml
var macros embed.FS

// Macros is the built-in macros, as <name>.yaml files at the root.
// kernel/macro copies them into the global macros directory, where a
// user's file of the same name wins.
func Macros() fs.FS {
	sub, err := fs.Sub(macros, "macros")
	if err != nil {
		panic(err) // the directory is embedded; this cannot happen
	}
	return sub
}
