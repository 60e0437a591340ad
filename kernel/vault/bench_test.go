package vault

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coyote-cli/coyote/internal/compat"
)

// The cost of unlocking a vault: one Argon2id run with the original's
// costs, which every entry coyote writes has (reported in the package
// comment).
func BenchmarkDeriveKeyWithDefaultCosts(b *testing.B) {
	salt := make([]byte, saltLen)
	for b.Loop() {
		deriveKey([]byte("correct horse battery"), salt, originalParams)
	}
}

// The first Get of a process: read both files, derive, check, open.
func BenchmarkFirstGet(b *testing.B) {
	dir := b.TempDir()
	pw := filepath.Join(b.TempDir(), "pw")
	os.WriteFile(pw, []byte("correct horse battery"), 0o600)
	if err := Open(dir, pw).Set("OPENAI_API_KEY", "sk-x"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Open(dir, pw).Get("OPENAI_API_KEY"); err != nil {
			b.Fatal(err)
		}
	}
}

// A later Get: the key is known.
func BenchmarkLaterGet(b *testing.B) {
	dir := b.TempDir()
	pw := filepath.Join(b.TempDir(), "pw")
	os.WriteFile(pw, []byte("correct horse battery"), 0o600)
	v := Open(dir, pw)
	if err := v.Set("OPENAI_API_KEY", "sk-x"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := v.Get("OPENAI_API_KEY"); err != nil {
			b.Fatal(err)
		}
	}
}

// Scanning the original's 540-line example config for placeholders.
func BenchmarkPlaceholdersOfTheExampleConfig(b *testing.B) {
	data := compat.ReadFile(b, "config.example.yaml")
	text := string(data)
	for b.Loop() {
		Placeholders(text)
	}
}
