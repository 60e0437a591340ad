// Command catalogen turns the model catalog (assets/models.yaml, in the
// original's format) into one JSON file per provider, which the coyote
// binary embeds: decoding one provider's JSON takes microseconds, parsing
// the whole YAML catalog takes milliseconds. Run it with
// `go generate ./assets`.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/coyote-cli/coyote/kernel/models"
)

func main() {
	in := flag.String("in", "models.yaml", "the catalog")
	out := flag.String("out", "catalog", "directory for the JSON files")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "catalogen:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	files, err := models.CatalogJSON(data)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	old, _ := filepath.Glob(filepath.Join(out, "*.json"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(out, name), body, 0o644); err != nil {
			return err
		}
	}
	return nil
}
