package yamlstore

import (
	"reflect"
	"strings"
	"testing"
)

// TestReadRAGFileLayouts: the store reads the vectors of every layout a
// RAG file may have, through the line scan where it can and the YAML
// parser where it cannot, and names a bad vector's place.
func TestReadRAGFileLayouts(t *testing.T) {
	one := map[string][]float32{"0-0": {1}}
	tests := []struct {
		name, data string
		want       map[string][]float32
		err        string
	}{
		{"plain", "top_k: 1\nvectors:\n  0-0: AACAPw==\n", one, ""},
		{"flow style", `{driver: yaml, top_k: 3, vectors: {"0-0": "AACAPw=="}}`, one, ""},
		{"document start", "---\ntop_k: 2\nvectors:\n  0-0: AACAPw==\n", one, ""},
		{"a quoted scalar running over a line that looks like vectors", "embedding_model: \"a\nvectors: b\"\ntop_k: 1\n", map[string][]float32{}, ""},
		{"quoted vector ids", "top_k: 1\nvectors:\n  \"0-0\": \"AACAPw==\"\n  '0-1': AAAAQA==\n", map[string][]float32{"0-0": {1}, "0-1": {2}}, ""},
		{"vectors null", "top_k: 1\nvectors: null\n", map[string][]float32{}, ""},
		{"no vectors", "top_k: 1\n", map[string][]float32{}, ""},
		{"CRLF line ends", "top_k: 1\r\nvectors:\r\n  0-0: AACAPw==\r\nchunk_size: 4\r\n", one, ""},
		{"a short vector", "top_k: 1\nvectors:\n  0-0: AACAPw==\n  0-1: AACA\n", nil, "r.yaml:4: vectors.0-1: 3 bytes are not a whole number of float32 values"},
		{"a short vector among other keys", "top_k: 1\nfiles: {}\nvectors:\n  0-0: AACAPw==\n\n  # a comment\n  0-1: AACA\nchunk_size: 4\n", nil, "r.yaml:7: vectors.0-1: 3 bytes are not a whole number of float32 values"},
		{"not a mapping", "top_k: 1\nvectors:\n  0-0: [1, 2]\n", nil, "r.yaml:3: vectors: must be a mapping of chunk ids to base64 vectors"},
		{"bad base64", "top_k: 1\nvectors:\n  0-0: not base64!\n", nil, "r.yaml:3: vectors: 0-0: illegal base64"},
		{"bad file id", "files:\n  x: {path: /a}\n", nil, `r.yaml: files: "x" is not a file id`},
		{"not YAML", "files: [\n", nil, "r.yaml: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := readRAGFile("r.yaml", []byte(tt.data))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(f.vectors, tt.want) {
				t.Errorf("vectors %v, want %v", f.vectors, tt.want)
			}
			// Written back, they read the same.
			out, err := replaceVectors([]byte(tt.data), f.vectors)
			if err != nil {
				t.Fatal(err)
			}
			g, err := readRAGFile("r.yaml", out)
			if err != nil || !reflect.DeepEqual(g.vectors, tt.want) {
				t.Errorf("after a rewrite: %v, %v\n%s", g, err, out)
			}
		})
	}
}

func TestChunksTakeTheirSourceFromTheFilePath(t *testing.T) {
	f, err := readRAGFile("r.yaml", []byte("files:\n  3:\n    path: /a.md\n    documents:\n    - page_content: one\n      metadata: {lang: en, n: 2, gone: null}\n    - page_content: two\n      metadata: {source: /b}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	f.chunks(func(id, fileID, text string, meta map[string]string) {
		got[id] = fileID + "|" + text + "|" + meta["source"] + "|" + meta["lang"] + meta["n"]
		if _, ok := meta["gone"]; ok {
			t.Errorf("a null metadata value was kept")
		}
	})
	want := map[string]string{"3-0": "3|one|/a.md|en2", "3-1": "3|two|/b|"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
