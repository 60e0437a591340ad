package input

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A loader's resource is sh's $1, never part of the script, so no file
// name runs code and any quoting the user wrote works.
func TestLoaderResourceIsAParameter(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, loader, file string
	}{
		{"double-quoted $1", `cat "$1"`, "a$(touch PWNED).pdf"},
		{"bare $1", `cat $1`, "a b $(touch PWNED) *.pdf"},
		{"single-quoted name", `cat -- "$1"`, "it's `touch PWNED`.pdf"},
		{"braces", `cat ${1}`, "x;touch PWNED.pdf"},
		{"output file", `cat "$1" > $2`, "o $(touch PWNED).pdf"},
		{"awk keeps its own $1", `awk '{print $1}' "$1"`, "w.pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			if err := os.WriteFile(path, []byte("hello loader\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			docs, err := Load(context.Background(), []string{path}, Options{Dir: dir, Loaders: map[string]string{"pdf": tt.loader}})
			if err != nil {
				t.Fatal(err)
			}
			want := "hello loader\n"
			if strings.Contains(tt.loader, "awk") {
				want = "hello\n"
			}
			if docs[0].Text != want {
				t.Fatalf("text = %q, want %q", docs[0].Text, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
				t.Fatal("the file name ran a command")
			}
		})
	}
}

// A secret in a loader command reaches the shell in the environment, is
// quoted for where it stands, and never appears in an error.
func TestLoaderSecretsTravelInTheEnvironment(t *testing.T) {
	const secret = `s3cr3t 'with' "quotes" $(touch PWNED)`
	dir := t.TempDir()
	lookup := func(name string) (string, error) {
		if name == "KEY" {
			return secret, nil
		}
		return "", errors.New("secret " + name + " is not in the vault")
	}
	tests := []struct{ name, loader string }{
		{"bare", `printf '%s' {{KEY}}`},
		{"double quotes", `printf '%s' "Bearer {{KEY}}"`},
		{"single quotes", `printf '%s' 'Bearer {{ KEY }}'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := Load(context.Background(), []string{"tk:x"}, Options{Dir: dir, Loaders: map[string]string{"tk": tt.loader}, Secret: lookup})
			if err != nil {
				t.Fatal(err)
			}
			want := secret
			if strings.Contains(tt.loader, "Bearer") {
				want = "Bearer " + secret
			}
			if docs[0].Text != want {
				t.Fatalf("text = %q, want %q", docs[0].Text, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
				t.Fatal("the secret ran as a command")
			}
		})
	}
	_, err := Load(context.Background(), []string{"tk:x"}, Options{Dir: dir, Loaders: map[string]string{"tk": `printf {{KEY}}; exit 3`}, Secret: lookup})
	if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "{{KEY}}") {
		t.Fatalf("a failing loader's error must quote the template, not the secret: %v", err)
	}
	_, err = Load(context.Background(), []string{"tk:x"}, Options{Dir: dir, Loaders: map[string]string{"tk": `echo {{NOPE}}`}, Secret: lookup})
	if err == nil || !strings.Contains(err.Error(), "NOPE") {
		t.Fatalf("a missing secret must be named: %v", err)
	}
}
