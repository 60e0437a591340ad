package session

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadSaveLoad: whatever a file holds, loading never panics; a file
// that loads is written so that it loads again to the same session, and
// writing that gives the same bytes.
func FuzzLoadSaveLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("model: x\nmessages:\n- role: user\n  content: [{type: text, text: 'a: b'}]\n"))
	f.Add([]byte("model: x\nunknown: {a: [1, {b: ~}], c: !!binary aGk=}\nmessages: []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fd, err := decode("fuzz.yaml", data)
		if err != nil {
			return
		}
		out := encode(fd)
		again, err := decode("again.yaml", out)
		if err != nil {
			t.Fatalf("written file does not load: %v\n--- in:\n%s\n--- out:\n%s", err, data, out)
		}
		if a, b := dump(toMessages(fd.messages, nil)), dump(toMessages(again.messages, nil)); a != b {
			t.Fatalf("messages changed:\n%s\n--- in:\n%s\n--- out:\n%s", lineDiff(a, b), data, out)
		}
		if out2 := encode(again); string(out2) != string(out) {
			t.Fatalf("second write differs:\n%s", lineDiff(string(out), string(out2)))
		}
	})
}
