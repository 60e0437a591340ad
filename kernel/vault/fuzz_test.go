package vault

import (
	"slices"
	"testing"
)

// Placeholders and Interpolate agree on any text: Interpolate asks for
// exactly the names Placeholders finds (each once), and with every name
// resolved the result has none of them left where they were.
func FuzzPlaceholders(f *testing.F) {
	for _, seed := range []string{
		"api_key: '{{KEY}}'\nbase: https://{{ HOST }}/v1\n# {{COMMENT}}\n",
		"{{{{A}}}} {{}} {{ 1x }} {{_ok}} {{a-b}}",
		"{{A}}{{A}}{{B}}",
		"  # {{X}}\n{{Y",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want := Placeholders(text)
		var asked []string
		out, err := Interpolate(text, func(name string) (string, error) {
			asked = append(asked, name)
			if !ValidName(name) {
				t.Fatalf("asked for %q, which is no valid secret name", name)
			}
			return "", nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(asked, want) {
			t.Fatalf("Interpolate asked %q, Placeholders found %q", asked, want)
		}
		if len(want) == 0 && out != text {
			t.Fatalf("text without placeholders changed: %q → %q", text, out)
		}
		if len(out) > len(text) {
			t.Fatalf("replacing with empty values made the text longer: %q → %q", text, out)
		}
	})
}
