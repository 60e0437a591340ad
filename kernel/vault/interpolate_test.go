package vault

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/compat"
)

// mapLookup looks names up in m and counts the calls per name.
func mapLookup(m map[string]string, calls map[string]int) func(string) (string, error) {
	return func(name string) (string, error) {
		calls[name]++
		v, ok := m[name]
		if !ok {
			return "", notFound(name)
		}
		return v, nil
	}
}

func TestInterpolateReplacesOnlyPlaceholdersAndKeepsTheTextAroundThem(t *testing.T) {
	secrets := map[string]string{"A": "1", "B": "2", "KEY": "sk-x", "TOKEN": "tok", "_x1": "u", "REF": "{{B}}", "EMPTY": ""}
	tests := []struct {
		name, in, want string
	}{
		{"empty text", "", ""},
		{"no placeholder", "plain text", "plain text"},
		{"adjacent placeholders", "{{A}}{{B}}", "12"},
		{"triple braces keep the outer pair", "{{{A}}}", "{1}"},
		{"extra closing brace", "{{A}}}", "1}"},
		{"extra opening braces", "{{{{A}}", "{{1"},
		{"blanks inside the braces", "{{ A }}", "1"},
		{"tabs inside the braces", "{{\tA\t}}", "1"},
		{"blank on one side", "{{A }}-{{ B}}", "1-2"},
		{"empty braces", "{{}}", "{{}}"},
		{"only blanks", "{{  }}", "{{  }}"},
		{"lone braces", "a { b } c }} d {{ e", "a { b } c }} d {{ e"},
		{"unclosed placeholder", "x {{A", "x {{A"},
		{"half closed placeholder", "x {{A}", "x {{A}"},
		{"hyphen is not a name", "{{A-B}}", "{{A-B}}"},
		{"space inside a name", "{{A B}}", "{{A B}}"},
		{"digit first is not a name", "{{1A}}", "{{1A}}"},
		{"template field is not a name", "{{ .Field }}", "{{ .Field }}"},
		{"underscore and digits", "{{_x1}}", "u"},
		{"line break inside the braces", "{{A\n}}", "{{A\n}}"},
		{"JSON with braces", `{"headers":{"Authorization":"Bearer {{TOKEN}}"},"x":{"y":{}}}`, `{"headers":{"Authorization":"Bearer tok"},"x":{"y":{}}}`},
		{"JSON object ending in two braces", `{"a":{"b":"{{A}}"}}`, `{"a":{"b":"1"}}`},
		{"YAML quoted value", "clients:\n  - type: openai\n    api_key: '{{KEY}}'\n", "clients:\n  - type: openai\n    api_key: 'sk-x'\n"},
		{"unicode around placeholders", "ü{{A}}ß🔑{{B}}é", "ü1ß🔑2é"},
		{"non-ASCII name is text", "{{Ä}} {{ÄB}}", "{{Ä}} {{ÄB}}"},
		{"comment line is left alone", "# see {{SECRET_NAME}}\nkey: {{A}}", "# see {{SECRET_NAME}}\nkey: 1"},
		{"indented comment line", "x:\n  #   client_id: '{{MISSING}}'\n  y: {{B}}\n", "x:\n  #   client_id: '{{MISSING}}'\n  y: 2\n"},
		{"trailing comment is not a comment line", "x: 1 # {{A}}", "x: 1 # 1"},
		{"hash inside a line", "url: http://h/#{{A}}", "url: http://h/#1"},
		{"CRLF line ends kept", "a: {{A}}\r\nb: {{B}}\r\n", "a: 1\r\nb: 2\r\n"},
		{"values are not expanded again", "{{REF}}", "{{B}}"},
		{"empty value", "[{{EMPTY}}]", "[]"},
		{"same name twice", "{{A}} and {{A}}", "1 and 1"},
		{"placeholder on the last line without newline", "a\n{{B}}", "a\n2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := map[string]int{}
			got, err := Interpolate(tt.in, mapLookup(secrets, calls))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("Interpolate(%q) = %q, want %q", tt.in, got, tt.want)
			}
			for name, n := range calls {
				if n != 1 {
					t.Errorf("lookup(%q) called %d times, want once", name, n)
				}
			}
		})
	}
}

func TestInterpolateWithoutPlaceholdersNeverCallsLookup(t *testing.T) {
	for _, text := range []string{"", "plain", "{ } {} }} {", "# {{A}}", "{{a-b}} {{}}"} {
		got, err := Interpolate(text, func(name string) (string, error) {
			t.Fatalf("lookup(%q) called for %q", name, text)
			return "", nil
		})
		if err != nil || got != text {
			t.Fatalf("Interpolate(%q) = %q, %v", text, got, err)
		}
	}
}

func TestInterpolateNamesTheMissingSecretAndHowToAddIt(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"api_key: '{{OPENAI_API_KEY}}'", `secret "OPENAI_API_KEY" is not in the vault: add it with coyote --add-secret OPENAI_API_KEY`},
		{"{{A}} {{X}} {{Y}} {{X}}", `secrets "X" and "Y" are not in the vault: add each with coyote --add-secret NAME`},
		{"{{X}} {{Y}} {{Z}}", `secrets "X", "Y" and "Z" are not in the vault: add each with coyote --add-secret NAME`},
	}
	for _, tt := range tests {
		_, err := Interpolate(tt.in, mapLookup(map[string]string{"A": "secret-a"}, map[string]int{}))
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("%q: error %v does not match ErrNotFound", tt.in, err)
		}
		if err.Error() != tt.want {
			t.Fatalf("%q: error\n%s\nwant\n%s", tt.in, err, tt.want)
		}
	}
}

func TestInterpolateStopsAtTheFirstVaultError(t *testing.T) {
	boom := errorf(ErrBadPassword, "wrong password")
	calls := 0
	_, err := Interpolate("{{A}} {{B}}", func(string) (string, error) {
		calls++
		return "", boom
	})
	if !errors.Is(err, ErrBadPassword) || calls != 1 {
		t.Fatalf("err %v after %d calls, want the lookup's error after one", err, calls)
	}
}

func TestPlaceholdersListsEachNameOnceInOrder(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"no braces", nil},
		{"{{B}} {{A}} {{ B }} {{{C}}}", []string{"B", "A", "C"}},
		{"# {{HIDDEN}}\n{{SHOWN}}", []string{"SHOWN"}},
		{"{{}} {{a-b}} {{1}}", nil},
	}
	for _, tt := range tests {
		if got := Placeholders(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Placeholders(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// The original's example config mentions {{SECRET_NAME}} and {{SECRET}} in
// comments and has commented-out client entries: only the live values are
// placeholders, so the file loads with just the secrets it really uses.
func TestPlaceholdersOfTheOriginalExampleConfigSkipComments(t *testing.T) {
	data := compat.ReadFile(t, "config.example.yaml")
	got := Placeholders(string(data))
	for _, commented := range []string{"SECRET_NAME", "SECRET", "ACME_CLIENT_ID", "ACME_CLIENT_SECRET", "MOONSHOT_CLIENT_ID"} {
		if slices.Contains(got, commented) {
			t.Errorf("%s is only in a comment but was found: %q", commented, got)
		}
	}
	for _, live := range []string{"JINA_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "VOYAGEAI_API_KEY"} {
		if !slices.Contains(got, live) {
			t.Errorf("%s is missing from %q", live, got)
		}
	}
	values := map[string]string{}
	for _, name := range got {
		values[name] = "value-of-" + name
	}
	out, err := Interpolate(string(data), mapLookup(values, map[string]int{}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "api_key: 'value-of-OPENAI_API_KEY'") || !strings.Contains(out, "secrets referenced via {{SECRET_NAME}} syntax") {
		t.Fatal("the live placeholder was not replaced, or the comment was changed")
	}
	if strings.Count(out, "\n") != strings.Count(string(data), "\n") {
		t.Fatal("lines were added or lost")
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "_": true, "a1": true, "null": true,
		"": false, "1A": false, "A-B": false, "A B": false, "Ä": false, "A.B": false, "{{A}}": false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPlaceholderAtMatchesOnePlaceholderAtTheOffset(t *testing.T) {
	tests := []struct {
		text    string
		start   int
		end     int
		name    string
		comment string
	}{
		{"{{A}}", 0, 5, "A", "bare"},
		{"x {{ KEY }} y", 2, 11, "KEY", "blanks inside"},
		{"{{{A}}}", 0, -1, "", "a brace is not a name"},
		{"{{{A}}}", 1, 6, "A", "the inner pair"},
		{"xxA}}", 0, -1, "", "no braces at the offset"},
		{"{{A\n}}", 0, -1, "", "a newline ends the search"},
		{"{{A B}}", 0, -1, "", "two words"},
		{"{{A", 0, -1, "", "unclosed"},
		{"{", 0, -1, "", "one brace at the end"},
	}
	for _, tt := range tests {
		end, name := PlaceholderAt(tt.text, tt.start)
		if end != tt.end || name != tt.name {
			t.Errorf("%s: PlaceholderAt(%q, %d) = %d, %q, want %d, %q", tt.comment, tt.text, tt.start, end, name, tt.end, tt.name)
		}
	}
}

// A lookup's NotFoundIn names where the secrets were looked for.
func TestInterpolateNamesWhereSecretsAreMissing(t *testing.T) {
	_, err := Interpolate("{{A}} {{B}} {{C}}", func(name string) (string, error) {
		if name == "B" {
			return "b", nil
		}
		return "", &NotFoundIn{Name: name, Where: "the secrets provider gopass"}
	})
	want := `secrets "A" and "C" are not in the secrets provider gopass: add each with coyote --add-secret NAME`
	if err == nil || err.Error() != want || !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want %q", err, want)
	}
}
