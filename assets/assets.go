// Package assets holds the files that ship inside the coyote binary: the
// model catalog (models.yaml, embedded as one JSON file per provider so
// that a command decodes only the provider it needs) and the built-in
// roles (roles/*.md; a user's role of the same name wins), and the bundled
// tool scripts (functions/, see Functions).
package assets

import (
	"embed"
	"io/fs"
	"strings"
)

//go:generate go run ../internal/catalogen -in models.yaml -out catalog

//go:embed catalog/*.json
var catalog embed.FS

//go:embed roles/*.md
var roles embed.FS

// Roles is the built-in roles, as <name>.md files at the root.
func Roles() fs.FS {
	sub, err := fs.Sub(roles, "roles")
	if err != nil {
		panic(err) // the directory is embedded; this cannot happen
	}
	return sub
}

// CatalogProvider returns the catalog's models of one provider as JSON.
func CatalogProvider(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return nil, false
	}
	data, err := catalog.ReadFile("catalog/" + name + ".json")
	return data, err == nil
}

// CatalogProviderNames lists the providers of the catalog.
func CatalogProviderNames() []string {
	entries, _ := catalog.ReadDir("catalog")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	return names
}
