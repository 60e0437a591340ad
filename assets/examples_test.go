package assets_test

import (
	"os"
	"testing"

	"github.com/coyote-cli/coyote/kernel/macro"
	"github.com/coyote-cli/coyote/kernel/role"
)

// The example files are documentation users copy: they must load.
func TestExamplesLoad(t *testing.T) {
	data, err := os.ReadFile("macro.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := macro.Parse("review-work", data)
	if err != nil || m.Isolated || len(m.Variables) != 2 || m.Description == "" {
		t.Fatalf("macro example: %+v, %v", m, err)
	}
	data, err = os.ReadFile("role.example.md")
	if err != nil {
		t.Fatal(err)
	}
	r, warnings, err := role.Parse("reviewer", data, "")
	if err != nil || len(warnings) != 0 || !r.Settings.EnabledMacros.Set || r.Settings.EnabledMacros.Items[0] != "review-work" {
		t.Fatalf("role example: %+v, %v, %v", r, warnings, err)
	}
}
