package script

import (
	"encoding/json"
	"testing"
)

// Any tool script either yields declarations or is refused with an error
// naming its file, never a panic; every declaration has a valid name and
// parameters that are a JSON schema object.
func FuzzParseSource(f *testing.F) {
	for _, seed := range []struct{ ext, src string }{
		{".sh", "#!/usr/bin/env bash\n# @describe Count words.\n# @option --text! The text.\n# @flag --lines Count lines.\n# @env LLM_X The x.\nmain() { :; }\n"},
		{".sh", "# @cmd First\n# @arg name![a|b] The name.\nfirst() { :; }\n# @cmd\nsecond() { :; }\n"},
		{".py", "def run(path: str, count: int = 1, tags: list[str] = None):\n    \"\"\"Read a file.\n\n    Args:\n        path: The path.\n    \"\"\"\n"},
		{".js", "/**\n * Fetch a page.\n * @param {Object} args\n * @param {string} args.url - The URL.\n * @param {number} [args.limit] - At most.\n */\nexports.run = function (args) {}\n"},
		{".sh", "# @option --x[=\n"},
		{".py", "def run(\n"},
	} {
		f.Add(seed.ext, []byte(seed.src))
	}
	f.Fuzz(func(t *testing.T, ext string, src []byte) {
		if ext != ".sh" && ext != ".py" && ext != ".js" && ext != ".ts" {
			return
		}
		decls, err := ParseSource("/tools/t"+ext, src)
		if err != nil {
			return
		}
		for _, d := range decls {
			if !nameRe().MatchString(d.Name) {
				t.Fatalf("declared an invalid name %q", d.Name)
			}
			var schema map[string]any
			if err := json.Unmarshal(d.Parameters, &schema); err != nil || schema["type"] != "object" {
				t.Fatalf("%s: parameters are not a JSON schema object: %s (%v)", d.Name, d.Parameters, err)
			}
		}
	})
}
