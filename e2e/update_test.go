package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// updateTestKey signs the test release feed; its public half is compiled
// into the test's coyote (-X .../update.ReleaseKey), where a release
// build has the project's key.
var updateTestKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x5e}, ed25519.SeedSize))

func updateKeyLDFlag() string {
	pub := updateTestKey.Public().(ed25519.PublicKey)
	return "-X github.com/coyote-cli/coyote/kernel/update.ReleaseKey=" + base64.StdEncoding.EncodeToString(pub)
}

// copyInstall copies the built coyote and some of its plugins (symlinks
// kept) to prefix/bin, as a user's own installation.
func copyInstall(t *testing.T, prefix string, plugins ...string) string {
	t.Helper()
	exe := filepath.Join(prefix, "bin", "coyote")
	if err := os.MkdirAll(filepath.Join(prefix, "bin", "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	cp := func(src, dst string) {
		if target, err := os.Readlink(src); err == nil {
			if err := os.Symlink(target, dst); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := os.WriteFile(dst, mustRead(t, src), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cp(filepath.Join(binDir, "coyote"), exe)
	for _, p := range plugins {
		cp(filepath.Join(binDir, "plugins", p), filepath.Join(prefix, "bin", "plugins", p))
	}
	return exe
}

// releaseArchive is the tar.gz of a release: the binary at exe and the
// plugins of binDir named (symlinks kept).
func releaseArchive(t *testing.T, exe string, plugins ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	add := func(name, src string) {
		if target, err := os.Readlink(src); err == nil {
			if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeSymlink, Linkname: target}); err != nil {
				t.Fatal(err)
			}
			return
		}
		b := mustRead(t, src)
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	add("coyote", exe)
	for _, p := range plugins {
		add("plugins/"+p, filepath.Join(binDir, "plugins", p))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// releaseServer is a fake release feed: a feed.json naming one archive,
// which the test swaps.
type releaseServer struct {
	mu      sync.Mutex
	feed    []byte
	archive []byte
	url     string
}

func newReleaseServer(t *testing.T) *releaseServer {
	s := &releaseServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch r.URL.Path {
		case "/releases/feed.json":
			_, _ = w.Write(s.feed)
		case "/releases/download/coyote.tar.gz":
			_, _ = io.Copy(w, bytes.NewReader(s.archive))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/releases/feed.json"
	return s
}

// publish serves archive as version, signed by key (nil: unsigned).
func (s *releaseServer) publish(t *testing.T, version string, archive []byte, key ed25519.PrivateKey) {
	sum := sha256.Sum256(archive)
	asset := map[string]string{"os": runtime.GOOS, "arch": runtime.GOARCH, "url": "download/coyote.tar.gz", "sha256": hex.EncodeToString(sum[:])}
	if key != nil {
		asset["signature"] = base64.StdEncoding.EncodeToString(ed25519.Sign(key, archive))
	}
	feed, err := json.Marshal(map[string]any{"versions": []any{
		map[string]any{"version": "0.1.0", "assets": []any{}},
		map[string]any{"version": version, "assets": []any{asset}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.feed, s.archive = feed, archive
	s.mu.Unlock()
}

func TestUpdate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the release archive is a tar.gz of unix binaries")
	}
	// The "new release": this tree's coyote stamped 9.9.9.
	newExe := filepath.Join(t.TempDir(), "coyote")
	build := exec.Command("go", "build", "-trimpath", "-ldflags",
		"-X github.com/coyote-cli/coyote/kernel/buildinfo.Version=9.9.9 "+updateKeyLDFlag(), "-o", newExe, "./cmd/coyote")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the new release: %v\n%s", err, out)
	}
	newPlugins := []string{"coyote-provider-openai", "coyote-provider-openai-compatible"}
	archive := releaseArchive(t, newExe, newPlugins...)

	prefix := t.TempDir()
	exe := copyInstall(t, prefix, "coyote-provider-openai", "coyote-provider-openai-compatible", "coyote-mcp")
	rel := newReleaseServer(t)
	llm := fakellm.StartOpenAI(t, answering("hello from the updated set"))
	e := newEnv(t, fakeConfig(llm, "update_feed: "+rel.url+"\n"))
	e.exe = exe
	version := func() string {
		t.Helper()
		r := e.run("", "--version")
		e.mustSucceed(r)
		return strings.TrimSpace(r.stdout)
	}
	installed := func() []string {
		t.Helper()
		ents, err := os.ReadDir(filepath.Join(prefix, "bin", "plugins"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	oldPlugins := strings.Join(installed(), " ")

	refusals := []struct {
		name, want string
		publish    func()
	}{
		{"signed by another key", "signature does not match", func() {
			rel.publish(t, "9.9.9", archive, ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize)))
		}},
		{"unsigned", "not signed", func() { rel.publish(t, "9.9.9", archive, nil) }},
		{"damaged download", "SHA-256", func() {
			rel.publish(t, "9.9.9", archive, updateTestKey)
			rel.mu.Lock()
			rel.archive = append([]byte(nil), archive...)
			rel.archive[len(rel.archive)/2] ^= 0xff
			rel.mu.Unlock()
		}},
		// The archive is a good one, but its binary says 9.9.9 where the
		// feed says 9.9.8: it never replaces the old one.
		{"binary of another version", "not coyote 9.9.8", func() { rel.publish(t, "9.9.8", archive, updateTestKey) }},
	}
	for _, tt := range refusals {
		tt.publish()
		r := e.run("", "--update")
		if r.code != 1 || !strings.Contains(r.stderr, tt.want) {
			t.Fatalf("%s: exit %d, stderr %q; want a refusal saying %q", tt.name, r.code, r.stderr, tt.want)
		}
		if v := version(); !strings.HasPrefix(v, "coyote 0.9.0") {
			t.Fatalf("%s: the refused update changed the binary: %q", tt.name, v)
		}
		if got := strings.Join(installed(), " "); got != oldPlugins {
			t.Fatalf("%s: the refused update changed the plugins: %s", tt.name, got)
		}
	}

	rel.publish(t, "9.9.9", archive, updateTestKey)
	r := e.run("", "--update")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "Updated coyote 0.9.0 -> 9.9.9") {
		t.Errorf("update said %q", r.stdout)
	}
	if v := version(); !strings.HasPrefix(v, "coyote 9.9.9") {
		t.Fatalf("after the update --version says %q", v)
	}
	if got := strings.Join(installed(), " "); got != strings.Join(newPlugins, " ") {
		t.Errorf("plugins after the update: %s, want the release's %s", got, strings.Join(newPlugins, " "))
	}
	// The new set works together: the new kernel runs the new plugin.
	r = e.run("", "hi")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "hello from the updated set") {
		t.Errorf("prompt after the update: %q", r.stdout)
	}
	// Nothing left beside the binary.
	ents, _ := os.ReadDir(filepath.Join(prefix, "bin"))
	for _, ent := range ents {
		if ent.Name() != "coyote" && ent.Name() != "plugins" {
			t.Errorf("left over after the update: %s", ent.Name())
		}
	}
	// Again: nothing newer.
	r = e.run("", "--update")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "coyote 9.9.9 is installed") {
		t.Errorf("second update said %q", r.stdout)
	}
	// An older version asked for by name is a downgrade the user wants,
	// but not one the feed has an archive for here.
	r = e.run("", "--update", "0.1.0")
	if r.code != 1 || !strings.Contains(r.stderr, "release 0.1.0 has no archive for") {
		t.Errorf("--update 0.1.0: exit %d, %q", r.code, r.stderr)
	}
	r = e.run("", "--force")
	if r.code != 2 || !strings.Contains(r.stderr, "--force goes with --update") {
		t.Errorf("--force alone: exit %d, %q", r.code, r.stderr)
	}
}
