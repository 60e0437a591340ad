package input

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func names(docs []Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.Name)
	}
	return out
}

func TestLoadSources(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"a.go": "package a\n", "b.txt": "bee", "src/x/y.go": "package y", "src/z.go": "package z",
		"src/.hidden/h.go": "secret", "src/.dot.go": "dot", "bin.dat": "\x00\x01\x02", "doc.up": "shout",
		"pic.png": "\x89PNG",
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("web text"))
		case "/img":
			w.Header().Set("Content-Type", "image/jpeg")
			w.Write([]byte{0xff, 0xd8})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	opts := Options{Dir: root, Loaders: map[string]string{"up": "tr a-z A-Z < $1", "web": "echo fetched $1"}}
	tests := []struct {
		src   string
		names []string
		texts []string
		err   string
	}{
		{src: "a.go", names: []string{"a.go"}, texts: []string{"package a\n"}},
		{src: "src", names: []string{"src/x/y.go", "src/z.go"}},
		{src: "src/**/*.go", names: []string{"src/x/y.go", "src/z.go"}},
		{src: "*.go", names: []string{"a.go"}},
		{src: "**/y.go", names: []string{"src/x/y.go"}},
		{src: "`echo from a command`", names: []string{"`echo from a command`"}, texts: []string{"from a command\n"}},
		{src: "doc.up", names: []string{"doc.up"}, texts: []string{"SHOUT"}},
		{src: "web:it's here", names: []string{"it's here"}, texts: []string{"fetched it's here\n"}},
		{src: srv.URL + "/page", names: []string{srv.URL + "/page"}, texts: []string{"web text"}},
		{src: "bin.dat", err: "bin.dat is a binary file; add a document_loaders entry"},
		{src: "nope/*.go", err: "no file matches"},
		{src: "missing.txt", err: "no such file"},
		{src: srv.URL + "/gone", err: "404"},
		{src: "`exit 3`", err: "exit status 3"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			docs, err := Load(context.Background(), []string{tt.src}, opts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "-f "+tt.src) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(names(docs), tt.names) {
				t.Fatalf("names = %q, want %q", names(docs), tt.names)
			}
			for i, want := range tt.texts {
				if docs[i].Text != want {
					t.Fatalf("text %d = %q, want %q", i, docs[i].Text, want)
				}
			}
		})
	}
}

func TestImagesBecomeDataURLs(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"pic.png": "\x89PNG"})
	docs, err := Load(context.Background(), []string{"pic.png"}, Options{Dir: root})
	if err != nil || len(docs) != 1 || docs[0].ImageURL != "data:image/png;base64,iVBORw==" {
		t.Fatalf("docs = %+v, %v", docs, err)
	}
	parts := Parts(append(docs, Document{Name: "n.txt", Text: "note"}), "what is this?")
	if len(parts) != 2 || parts[0].Text != "==> n.txt <==\nnote\n\nwhat is this?" || parts[1].ImageURL == "" {
		t.Fatalf("parts = %+v", parts)
	}
}

func TestPartsWithoutText(t *testing.T) {
	if p := Parts(nil, "just text"); len(p) != 1 || p[0].Text != "just text" {
		t.Fatalf("parts = %+v", p)
	}
	if p := Parts([]Document{{Name: "f", Text: "x\n"}}, ""); len(p) != 1 || p[0].Text != "==> f <==\nx" {
		t.Fatalf("parts = %+v", p)
	}
}
