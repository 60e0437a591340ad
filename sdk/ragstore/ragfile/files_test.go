package ragfile

import (
	"reflect"
	"testing"
)

func TestFileChunks(t *testing.T) {
	for _, tc := range []struct {
		name, section string
		want          map[string]int // nil: not read (ok false)
	}{
		{"empty mapping", "files: {}\n", map[string]int{}},
		{"null", "files: null\n", map[string]int{}},
		{"no files", "files:\n", map[string]int{}},
		{"the kernel's layout", `files:
  0:
    hash: 9f86d081884c7d65
    path: /docs/a.md
    documents:
    - page_content: alpha text
      metadata: {}
    - page_content: |-
        a line
            - not a chunk
        - nor this

        another line
      metadata:
        source: /docs/a.md
  3:
    hash: aaa
    path: 'it''s: b.md'
    documents: []
  12:
    hash: bbb
    path: "a \"quoted\" path"
    documents:
    - page_content: "- x"
      metadata: {}
`, map[string]int{"0": 2, "3": 0, "12": 1}},
		{"the original's layout", `files:
  0:
    hash: aaa
    path: /docs/a.md
    documents:
    - page_content: alpha text
      metadata:
        path: /docs/a.md
  1:
    hash: bbb
    path: /docs/b.md
    documents:
    - page_content: beta text
      metadata: {}
    - page_content: gamma text
      metadata: {}

`, map[string]int{"0": 1, "1": 2}},
		{"a leading zero is the same file", "files:\n  007:\n    documents: []\n", map[string]int{"7": 0}},
		{"flow style", "files: {0: {documents: []}}\n", nil},
		{"a quoted id", "files:\n  '0':\n    documents: []\n", nil},
		{"another key", "files:\n  0:\n    hash: a\n    size: 3\n    documents: []\n", nil},
		{"items indented under documents", "files:\n  0:\n    documents:\n      - page_content: a\n", nil},
		{"documents in flow style", "files:\n  0:\n    documents: [{page_content: a}]\n", nil},
		{"a double-quoted path over two lines", "files:\n  0:\n    path: \"/a b\n    - c\"\n    documents: []\n", nil},
		{"a single-quoted path over two lines", "files:\n  0:\n    path: '/a b\n    - c'\n    documents: []\n", nil},
		{"an item before documents", "files:\n  0:\n    - page_content: a\n", nil},
		{"a file id twice", "files:\n  0:\n    documents: []\n  0:\n    documents: []\n", nil},
		{"a comment", "files:\n  # generated\n  0:\n    documents: []\n", nil},
		{"a tab", "files:\n  0:\n    documents:\n    -\tpage_content: a\n", nil},
		{"odd indentation", "files:\n   0:\n     documents: []\n", nil},
		{"text before any file", "files:\n      stray\n", nil},
		{"not the files section", "vectors:\n  0-0: AAAA\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := FileChunks([]byte(tc.section))
			if tc.want == nil {
				if ok {
					t.Fatalf("read %v, want it left to a YAML parser", got)
				}
				return
			}
			if !ok || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("FileChunks = %v, %v; want %v", got, ok, tc.want)
			}
		})
	}
}
