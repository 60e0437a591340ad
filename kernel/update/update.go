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
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// ReleaseKey is the base64 ed25519 public key that signs the project's
// releases, set at build time (-ldflags -X
// github.com/coyote-cli/coyote/kernel/update.ReleaseKey=...). When it is
// set, every archive must carry a valid signature; a build without it
// checks the SHA-256 alone.
var ReleaseKey = ""

// DefaultFeed is the release feed when update_feed is not set.
const DefaultFeed = "https://github.com/coyote-cli/coyote/releases/latest/download/releases.json"

// maxArchive bounds a download, so a wrong URL cannot fill the disk.
const maxArchive = 1 << 30

// Options are one --update.
type Options struct {
	FeedURL string
	// Version is the release to install; empty means the newest.
	Version string
	// Force updates a package-manager install, and reinstalls the
	// running version.
	Force bool
	// Current is the running version; Exe the binary to replace.
	Current string
	Exe     string
	// GOOS and GOARCH pick the archive (runtime's when empty).
	GOOS, GOARCH string
	Client       *http.Client
	UserAgent    string
	// Log receives one line per step (the terminal's stderr).
	Log io.Writer
}

// Result says what an update did.
type Result struct {
	From, To  string
	Exe       string
	PluginDir string
	Plugins   int
	// Unsigned: the archive was checked by its SHA-256 alone (no release
	// key in this build).
	Unsigned bool
	// UpToDate: nothing was installed, the running version is the one
	// asked for (or newer).
	UpToDate bool
}

// ManagedBy names the package manager that owns the binary at exe, or ""
// for an installation of the user's own (make install, a copied archive).
func ManagedBy(exe string) string {
	p := filepath.ToSlash(filepath.Clean(exe))
	switch {
	case strings.Contains(p, "/Cellar/") || strings.HasPrefix(p, "/opt/homebrew/") || strings.HasPrefix(p, "/home/linuxbrew/.linuxbrew/"):
		return "Homebrew"
	case strings.HasPrefix(p, "/nix/store/") || strings.Contains(p, "/.nix-profile/") || strings.HasPrefix(p, "/run/current-system/"):
		return "Nix"
	case strings.HasPrefix(p, "/snap/"):
		return "snap"
	case strings.HasPrefix(p, "/usr/bin/") || strings.HasPrefix(p, "/usr/sbin/") || strings.HasPrefix(p, "/bin/") ||
		strings.HasPrefix(p, "/usr/share/") || strings.HasPrefix(p, "/usr/lib/") || strings.HasPrefix(p, "/usr/libexec/"):
		return "the system's package manager"
	case strings.Contains(p, "/go/bin/") || strings.Contains(p, "/go/pkg/mod/"):
		return "go install"
	case strings.Contains(p, "/scoop/apps/") || strings.Contains(p, "/chocolatey/"):
		return "a Windows package manager"
	}
	return ""
}

// Run carries out an update: feed, archive, checks, then the swap of the
// binary and its plugins.
func Run(ctx context.Context, o Options) (*Result, error) {
	if runtime.GOOS == "windows" {
		// A running .exe cannot be renamed over there.
		return nil, errors.New("--update does not work on Windows yet: download the release and replace coyote.exe and its plugins by hand")
	}
	if o.GOOS == "" {
		o.GOOS, o.GOARCH = runtime.GOOS, runtime.GOARCH
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Minute}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	exe, err := filepath.EvalSymlinks(o.Exe)
	if err != nil {
		return nil, fmt.Errorf("find the coyote binary: %w", err)
	}
	if pm := ManagedBy(exe); pm != "" && !o.Force {
		return nil, fmt.Errorf("%s was installed by %s: update it there, or pass --force to replace it anyway", exe, pm)
	}
	feedURL, err := url.Parse(o.FeedURL)
	if err != nil || (feedURL.Scheme != "https" && feedURL.Scheme != "http") {
		return nil, fmt.Errorf("update_feed %q: not an http(s) URL", o.FeedURL)
	}
	body, err := o.get(ctx, feedURL.String(), 16<<20)
	if err != nil {
		return nil, fmt.Errorf("download the release feed: %w", err)
	}
	feed, err := ParseFeed(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", feedURL, err)
	}
	rel, err := feed.Pick(o.Version)
	if err != nil {
		return nil, err
	}
	res := &Result{From: o.Current, To: strings.TrimPrefix(rel.Version, "v"), Exe: exe}
	if !o.Force {
		c := Compare(res.To, o.Current)
		if c == 0 || (c < 0 && o.Version == "") {
			res.UpToDate = true
			return res, nil
		}
	}
	asset, err := rel.Asset(o.GOOS, o.GOARCH)
	if err != nil {
		return nil, err
	}
	assetURL, err := feedURL.Parse(asset.URL)
	if err != nil {
		return nil, fmt.Errorf("release %s: archive URL %q: %w", rel.Version, asset.URL, err)
	}
	fmt.Fprintf(o.Log, "Downloading coyote %s for %s/%s from %s\n", res.To, o.GOOS, o.GOARCH, assetURL.Redacted())
	archive, err := o.get(ctx, assetURL.String(), maxArchive)
	if err != nil {
		return nil, fmt.Errorf("download release %s: %w", res.To, err)
	}
	if res.Unsigned, err = verify(asset, archive, ReleaseKey); err != nil {
		return nil, fmt.Errorf("release %s: %w; nothing was changed", res.To, err)
	}
	inst := layout(exe, o.GOOS)
	res.PluginDir = inst.pluginDir
	st, err := stage(archive, inst)
	if err != nil {
		return nil, fmt.Errorf("unpack release %s: %w; nothing was changed", res.To, err)
	}
	defer st.cleanup()
	res.Plugins = st.plugins
	if err := checkVersion(ctx, st.exe, res.To); err != nil {
		return nil, fmt.Errorf("the new binary does not run: %w; nothing was changed", err)
	}
	if err := st.swap(ctx, inst, res.To); err != nil {
		return nil, err
	}
	return res, nil
}

// get downloads a URL, refusing more than limit bytes.
func (o Options) get(ctx context.Context, u string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if o.UserAgent != "" {
		req.Header.Set("User-Agent", o.UserAgent)
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", req.URL.Redacted(), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", req.URL.Redacted(), err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("GET %s: larger than %d bytes", req.URL.Redacted(), limit)
	}
	return data, nil
}

// verify checks an archive against its asset's SHA-256 and, when key is
// set, its signature. unsigned reports that no signature was checked.
func verify(a *Asset, archive []byte, key string) (unsigned bool, err error) {
	want, err := hex.DecodeString(strings.TrimSpace(a.SHA256))
	if err != nil || len(want) != sha256.Size {
		return false, fmt.Errorf("the feed's sha256 %q is not a SHA-256", a.SHA256)
	}
	got := sha256.Sum256(archive)
	if !bytes.Equal(got[:], want) {
		return false, fmt.Errorf("the archive's SHA-256 is %x, the feed says %x (a damaged or altered download)", got, want)
	}
	if key == "" {
		return true, nil
	}
	pub, err := base64.StdEncoding.DecodeString(key)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return false, errors.New("this binary's release key is not an ed25519 public key (a broken build)")
	}
	if a.Signature == "" {
		return false, errors.New("the archive is not signed, and this build accepts only signed releases")
	}
	sig, err := base64.StdEncoding.DecodeString(a.Signature)
	if err != nil || !ed25519.Verify(pub, archive, sig) {
		return false, errors.New("the archive's signature does not match the project's release key")
	}
	return false, nil
}

// install is where the running coyote lives.
type install struct {
	exe       string // the binary, symlinks resolved
	pluginDir string // its plugins (created by the update when missing)
	exeName   string // coyote or coyote.exe, in the archive
}

// layout finds the plugin directory of the binary at exe: <dir>/plugins,
// else <dir>/../lib/coyote/plugins (make install's), else <dir>/plugins
// anew. These are the kernel's own places to look.
func layout(exe, goos string) install {
	dir := filepath.Dir(exe)
	in := install{exe: exe, pluginDir: filepath.Join(dir, "plugins"), exeName: "coyote"}
	if goos == "windows" {
		in.exeName = "coyote.exe"
	}
	if _, err := os.Stat(in.pluginDir); err != nil {
		lib := filepath.Join(dir, "..", "lib", "coyote", "plugins")
		if _, err := os.Stat(lib); err == nil {
			in.pluginDir = filepath.Clean(lib)
		}
	}
	return in
}

// staged is an unpacked release next to what it replaces (same file
// system, so each move is a rename).
type staged struct {
	dir        string // next to the binary: the new binary
	exe        string
	pluginsTmp string // next to the plugin directory: plugins/
	plugins    int
}

func (s *staged) cleanup() {
	_ = os.RemoveAll(s.dir)
	if s.pluginsTmp != "" {
		_ = os.RemoveAll(s.pluginsTmp)
	}
}

// stage unpacks the archive: the binary into a temporary directory beside
// the current one, the plugins into one beside the plugin directory.
func stage(archive []byte, in install) (*staged, error) {
	dir, err := os.MkdirTemp(filepath.Dir(in.exe), ".coyote-update-")
	if err != nil {
		return nil, fmt.Errorf("cannot write beside %s (%w): run --update as the user who owns it", in.exe, err)
	}
	s := &staged{dir: dir}
	if err := os.MkdirAll(filepath.Dir(in.pluginDir), 0o755); err != nil {
		s.cleanup()
		return nil, err
	}
	s.pluginsTmp, err = os.MkdirTemp(filepath.Dir(in.pluginDir), ".plugins-update-")
	if err != nil {
		s.cleanup()
		return nil, fmt.Errorf("cannot write beside %s (%w): run --update as the user who owns it", in.pluginDir, err)
	}
	newPlugins := filepath.Join(s.pluginsTmp, "plugins")
	if err := os.Mkdir(newPlugins, 0o755); err != nil {
		s.cleanup()
		return nil, err
	}
	if err := s.unpack(archive, in.exeName, newPlugins); err != nil {
		s.cleanup()
		return nil, err
	}
	if s.exe == "" {
		s.cleanup()
		return nil, fmt.Errorf("the archive has no %s binary at its top", in.exeName)
	}
	return s, nil
}

func (s *staged) unpack(archive []byte, exeName, pluginDir string) error {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return fmt.Errorf("not a gzipped tar: %w", err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the archive: %w", err)
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		switch {
		case h.Typeflag == tar.TypeDir:
			continue
		case name == exeName && h.Typeflag == tar.TypeReg:
			s.exe = filepath.Join(s.dir, exeName)
			if err := writeFile(s.exe, tr); err != nil {
				return err
			}
		case path.Dir(name) == "plugins" && strings.HasPrefix(path.Base(name), "coyote-"):
			dst := filepath.Join(pluginDir, path.Base(name))
			switch h.Typeflag {
			case tar.TypeReg:
				if err := writeFile(dst, tr); err != nil {
					return err
				}
			case tar.TypeSymlink:
				// One binary under several names: a link to a sibling only.
				if strings.ContainsAny(h.Linkname, `/\`) || !strings.HasPrefix(h.Linkname, "coyote-") {
					return fmt.Errorf("%s links outside plugins/ (%q)", h.Name, h.Linkname)
				}
				if err := os.Symlink(h.Linkname, dst); err != nil {
					return err
				}
			default:
				return fmt.Errorf("%s: not a file or a symlink", h.Name)
			}
			s.plugins++
		default:
			return fmt.Errorf("unexpected entry %q in the archive (only %s and plugins/coyote-*)", h.Name, exeName)
		}
	}
}

func writeFile(dst string, r io.Reader) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, io.LimitReader(r, maxArchive)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkVersion runs exe --version and wants it to name version.
func checkVersion(ctx context.Context, exe, version string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "--version")
	cmd.Env = append(os.Environ(), "COYOTE_LOG_LEVEL=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s --version: %w: %s", exe, err, bytes.TrimSpace(out))
	}
	fields := strings.Fields(string(out))
	if len(fields) < 2 || fields[0] != "coyote" || strings.TrimPrefix(fields[1], "v") != version {
		return fmt.Errorf("%s --version says %q, not coyote %s", exe, strings.TrimSpace(string(out)), version)
	}
	return nil
}

// swap puts the staged set in place: the old plugin directory and binary
// move aside, the new ones move in, the installed binary must answer
// --version, and only then are the old ones removed. Any failure moves
// the old set back.
func (s *staged) swap(ctx context.Context, in install, version string) error {
	suffix := fmt.Sprintf(".old-%d", os.Getpid())
	oldPlugins := in.pluginDir + suffix
	oldExe := filepath.Join(filepath.Dir(in.exe), "."+filepath.Base(in.exe)+suffix)
	var undo []func() error
	rollback := func(cause error) error {
		var errs []error
		for i := len(undo) - 1; i >= 0; i-- {
			if err := undo[i](); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("update to %s failed (%w), and putting the old files back failed too: %v; the old binary is %s, its plugins %s", version, cause, errors.Join(errs...), oldExe, oldPlugins)
		}
		return fmt.Errorf("update to %s failed, the old version is still installed: %w", version, cause)
	}
	hadPlugins := true
	if err := os.Rename(in.pluginDir, oldPlugins); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return rollback(fmt.Errorf("move the old plugins aside: %w", err))
		}
		hadPlugins = false
	} else {
		undo = append(undo, func() error { return os.Rename(oldPlugins, in.pluginDir) })
	}
	if err := os.Rename(filepath.Join(s.pluginsTmp, "plugins"), in.pluginDir); err != nil {
		return rollback(fmt.Errorf("move the new plugins in: %w", err))
	}
	undo = append(undo, func() error {
		return os.Rename(in.pluginDir, filepath.Join(s.pluginsTmp, "plugins"))
	})
	// A hard link keeps the old binary reachable while the new one is
	// renamed over it, so the binary's path never stops existing.
	if err := os.Link(in.exe, oldExe); err != nil {
		if err := copyFile(in.exe, oldExe); err != nil {
			return rollback(fmt.Errorf("keep a copy of the old binary: %w", err))
		}
	}
	if err := os.Rename(s.exe, in.exe); err != nil {
		_ = os.Remove(oldExe)
		return rollback(fmt.Errorf("move the new binary in: %w", err))
	}
	undo = append(undo, func() error { return os.Rename(oldExe, in.exe) })
	if err := checkVersion(ctx, in.exe, version); err != nil {
		return rollback(err)
	}
	_ = os.Remove(oldExe)
	if hadPlugins {
		_ = os.RemoveAll(oldPlugins)
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return writeFile(dst, in)
}
