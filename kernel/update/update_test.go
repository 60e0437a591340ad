package update

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"0.9.0", "0.9.0", 0},
		{"0.9.1", "0.9.0", 1},
		{"0.10.0", "0.9.9", 1},
		{"v1.0.0", "0.99.0", 1},
		{"1.0.0-rc.1", "1.0.0", -1},
		{"1.0.0-rc.2", "1.0.0-rc.1", 1},
		{"1.2", "1.2.0", 0},
		{"junk", "0.0.1", -1},
	}
	for _, tt := range tests {
		if got := Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestPick(t *testing.T) {
	feed, err := ParseFeed([]byte(`{"versions":[{"version":"0.9.1"},{"version":"0.10.0"},{"version":"0.9.5"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ want, got, err string }{
		{"", "0.10.0", ""},
		{"0.9.5", "0.9.5", ""},
		{"v0.9.1", "0.9.1", ""},
		{"2.0.0", "", "no release 2.0.0 in the feed (it has 0.9.1, 0.10.0, 0.9.5)"},
	}
	for _, tt := range tests {
		r, err := feed.Pick(tt.want)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("Pick(%q) error = %v, want %q", tt.want, err, tt.err)
			}
			continue
		}
		if err != nil || r.Version != tt.got {
			t.Errorf("Pick(%q) = %v, %v; want %s", tt.want, r, err, tt.got)
		}
	}
	for _, bad := range []string{`{}`, `{"versions":[{"version":"latest"}]}`, `not json`} {
		if _, err := ParseFeed([]byte(bad)); err == nil {
			t.Errorf("ParseFeed(%s) accepted it", bad)
		}
	}
}

func TestManagedBy(t *testing.T) {
	tests := map[string]string{
		"/usr/bin/coyote":                              "the system's package manager",
		"/usr/share/coyote/bin/coyote":                 "the system's package manager",
		"/opt/homebrew/Cellar/coyote/0.9.0/bin/coyote": "Homebrew",
		"/usr/local/Cellar/coyote/0.9.0/bin/coyote":    "Homebrew",
		"/nix/store/abc-coyote-0.9.0/bin/coyote":       "Nix",
		"/home/u/go/bin/coyote":                        "go install",
		"/usr/local/bin/coyote":                        "",
		"/home/u/.local/bin/coyote":                    "",
		"/opt/coyote/bin/coyote":                       "",
	}
	for exe, want := range tests {
		if got := ManagedBy(exe); got != want {
			t.Errorf("ManagedBy(%s) = %q, want %q", exe, got, want)
		}
	}
}

// fakeBinary is a script that answers --version as a coyote of version
// would (or fails, when version is "").
func fakeBinary(version string) []byte {
	if version == "" {
		return []byte("#!/bin/sh\necho broken >&2\nexit 3\n")
	}
	return []byte("#!/bin/sh\necho 'coyote " + version + " (abc1234)'\n")
}

type entry struct {
	name, body, link string
}

func tarGz(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o755, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		if e.link != "" {
			h = &tar.Header{Name: e.name, Linkname: e.link, Typeflag: tar.TypeSymlink}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// installed makes an installation: bin/coyote of version 0.9.0 and two
// plugins, as make install's layout (lib/coyote/plugins) or the archive's
// (bin/plugins).
func installed(t *testing.T, libLayout bool) (exe, pluginDir string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake binaries are shell scripts")
	}
	root := t.TempDir()
	exe = filepath.Join(root, "bin", "coyote")
	pluginDir = filepath.Join(root, "bin", "plugins")
	if libLayout {
		pluginDir = filepath.Join(root, "lib", "coyote", "plugins")
	}
	for _, d := range []string{filepath.Dir(exe), pluginDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, exe, fakeBinary("0.9.0"))
	write(t, filepath.Join(pluginDir, "coyote-provider-openai"), []byte("old openai"))
	write(t, filepath.Join(pluginDir, "coyote-mcp"), []byte("old mcp"))
	return exe, pluginDir
}

func write(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// serve publishes one archive as version in a feed; mutate changes the
// asset before the feed is written.
func serve(t *testing.T, version string, archive []byte, mutate func(*Asset)) string {
	t.Helper()
	sum := sha256.Sum256(archive)
	a := Asset{OS: runtime.GOOS, Arch: runtime.GOARCH, URL: "dl/coyote.tar.gz", SHA256: hex.EncodeToString(sum[:])}
	if mutate != nil {
		mutate(&a)
	}
	feed, _ := json.Marshal(Feed{Versions: []Release{{Version: "0.8.0"}, {Version: version, Assets: []Asset{a}}}})
	mux := http.NewServeMux()
	mux.HandleFunc("/feed.json", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(feed) })
	mux.HandleFunc("/dl/coyote.tar.gz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(archive) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/feed.json"
}

func goodArchive(t *testing.T, version string) []byte {
	return tarGz(t,
		entry{name: "coyote", body: string(fakeBinary(version))},
		entry{name: "plugins/coyote-provider-openai", body: "new openai"},
		entry{name: "plugins/coyote-provider-openai-compatible", link: "coyote-provider-openai"},
		entry{name: "plugins/coyote-rag-yaml", body: "new rag"},
	)
}

func TestRunReplacesBinaryAndPlugins(t *testing.T) {
	for _, lib := range []bool{false, true} {
		exe, pluginDir := installed(t, lib)
		feed := serve(t, "0.9.1", goodArchive(t, "0.9.1"), nil)
		res, err := Run(context.Background(), Options{FeedURL: feed, Current: "0.9.0", Exe: exe})
		if err != nil {
			t.Fatalf("lib=%v: %v", lib, err)
		}
		if res.To != "0.9.1" || res.Plugins != 3 || res.PluginDir != pluginDir || !res.Unsigned {
			t.Errorf("lib=%v: result %+v", lib, res)
		}
		if got := read(t, exe); !strings.Contains(got, "coyote 0.9.1") {
			t.Errorf("binary not replaced: %q", got)
		}
		if got := read(t, filepath.Join(pluginDir, "coyote-provider-openai-compatible")); got != "new openai" {
			t.Errorf("alias plugin: %q", got)
		}
		if _, err := os.Stat(filepath.Join(pluginDir, "coyote-mcp")); !os.IsNotExist(err) {
			t.Errorf("a plugin the release lacks is still there: %v", err)
		}
		// Nothing left over: no staging or backup next to the binary or
		// the plugins.
		for _, d := range []string{filepath.Dir(exe), filepath.Dir(pluginDir)} {
			ents, _ := os.ReadDir(d)
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), ".") || strings.Contains(e.Name(), ".old-") {
					t.Errorf("lib=%v: left over %s in %s", lib, e.Name(), d)
				}
			}
		}
	}
}

// unchanged checks the 0.9.0 installation is as installed() made it.
func unchanged(t *testing.T, exe, pluginDir string) {
	t.Helper()
	if got := read(t, exe); !strings.Contains(got, "coyote 0.9.0") {
		t.Errorf("binary changed: %q", got)
	}
	if got := read(t, filepath.Join(pluginDir, "coyote-mcp")); got != "old mcp" {
		t.Errorf("plugins changed: coyote-mcp is %q", got)
	}
	ents, _ := os.ReadDir(filepath.Dir(exe))
	for _, e := range ents {
		if e.Name() != "coyote" && e.Name() != "plugins" {
			t.Errorf("left over %s", e.Name())
		}
	}
}

func TestRunRefuses(t *testing.T) {
	seed := bytes.Repeat([]byte{7}, ed25519.SeedSize)
	priv := ed25519.NewKeyFromSeed(seed)
	pub := base64.StdEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{8}, ed25519.SeedSize))
	good := goodArchive(t, "0.9.1")
	tests := []struct {
		name    string
		archive []byte
		mutate  func(*Asset)
		key     string
		want    string
	}{
		{"bad sha256", good, func(a *Asset) { a.SHA256 = strings.Repeat("0", 64) }, "", "SHA-256 is"},
		{"unsigned with a key", good, nil, pub, "not signed"},
		{"wrong signer", good, func(a *Asset) {
			a.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(other, good))
		}, pub, "signature does not match"},
		{"no binary", tarGz(t, entry{name: "plugins/coyote-mcp", body: "x"}), nil, "", "no coyote binary"},
		{"path traversal", tarGz(t, entry{name: "coyote", body: string(fakeBinary("0.9.1"))}, entry{name: "../evil", body: "x"}), nil, "", "unexpected entry"},
		{"symlink out", tarGz(t, entry{name: "coyote", body: string(fakeBinary("0.9.1"))}, entry{name: "plugins/coyote-x", link: "/etc/passwd"}), nil, "", "links outside"},
		{"binary does not run", tarGz(t, entry{name: "coyote", body: string(fakeBinary(""))}), nil, "", "does not run"},
		{"binary of another version", goodArchive(t, "0.9.2"), nil, "", "not coyote 0.9.1"},
		{"no archive for this platform", good, func(a *Asset) { a.OS = "plan9" }, "", "no archive for"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ReleaseKey = tt.key
			t.Cleanup(func() { ReleaseKey = "" })
			exe, pluginDir := installed(t, false)
			feed := serve(t, "0.9.1", tt.archive, tt.mutate)
			_, err := Run(context.Background(), Options{FeedURL: feed, Current: "0.9.0", Exe: exe})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one saying %q", err, tt.want)
			}
			unchanged(t, exe, pluginDir)
		})
	}
}

func TestRunSigned(t *testing.T) {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	ReleaseKey = base64.StdEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))
	t.Cleanup(func() { ReleaseKey = "" })
	exe, _ := installed(t, false)
	archive := goodArchive(t, "0.9.1")
	feed := serve(t, "0.9.1", archive, func(a *Asset) {
		a.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(priv, archive))
	})
	res, err := Run(context.Background(), Options{FeedURL: feed, Current: "0.9.0", Exe: exe})
	if err != nil {
		t.Fatal(err)
	}
	if res.Unsigned {
		t.Error("a signed archive reported as unsigned")
	}
}

// A swap whose installed binary then fails its --version check puts the
// old binary and plugins back.
func TestSwapRollsBack(t *testing.T) {
	exe, pluginDir := installed(t, false)
	in := layout(exe, runtime.GOOS)
	st, err := stage(tarGz(t, entry{name: "coyote", body: string(fakeBinary("0.9.1"))}, entry{name: "plugins/coyote-mcp", body: "new mcp"}), in)
	if err != nil {
		t.Fatal(err)
	}
	// The installed binary is asked for 0.9.2, which it is not: the
	// check after the swap fails and everything goes back.
	err = st.swap(context.Background(), in, "0.9.2")
	if err == nil || !strings.Contains(err.Error(), "the old version is still installed") {
		t.Fatalf("swap error = %v", err)
	}
	st.cleanup()
	unchanged(t, exe, pluginDir)
}

func TestRunPackageManager(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix paths")
	}
	if _, err := os.Stat("/usr/bin/env"); err != nil {
		t.Skip("no /usr/bin/env")
	}
	_, err := Run(context.Background(), Options{FeedURL: "http://127.0.0.1:1/feed.json", Current: "0.9.0", Exe: "/usr/bin/env"})
	if err == nil || !strings.Contains(err.Error(), "installed by the system's package manager") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("error = %v", err)
	}
}

func TestRunUpToDate(t *testing.T) {
	exe, pluginDir := installed(t, false)
	feed := serve(t, "0.9.0", goodArchive(t, "0.9.0"), nil)
	res, err := Run(context.Background(), Options{FeedURL: feed, Current: "0.9.0", Exe: exe})
	if err != nil || !res.UpToDate {
		t.Fatalf("Run = %+v, %v; want up to date", res, err)
	}
	unchanged(t, exe, pluginDir)
	// --force reinstalls it.
	res, err = Run(context.Background(), Options{FeedURL: feed, Current: "0.9.0", Exe: exe, Force: true})
	if err != nil || res.UpToDate {
		t.Fatalf("forced Run = %+v, %v", res, err)
	}
	if got := read(t, filepath.Join(pluginDir, "coyote-rag-yaml")); got != "new rag" {
		t.Errorf("forced reinstall did not replace the plugins: %q", got)
	}
}
