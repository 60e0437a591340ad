package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// TempName is the temporary session: `-s` without a name. It has no file
// until it is saved under a name, or, with save_session: true, under
// sessions/_/<stamp>[-<slug>].yaml.
const TempName = "temp"

// autoDir is the subdirectory of automatically named sessions.
const autoDir = "_"

// Dir is the default sessions directory in a config directory. The kernel's
// config package applies COYOTE_SESSIONS_DIR.
func Dir(configDir string) string {
	return filepath.Join(configDir, "sessions")
}

// AgentDir is where an agent's sessions live: agents/<agent>/sessions in
// the config directory.
func AgentDir(configDir, agent string) string {
	return filepath.Join(configDir, "agents", agent, "sessions")
}

// ValidateName checks a session name: one or more '/'-separated segments,
// none empty, "." or "..", none starting with a dot (hidden files are not
// sessions), and no backslash, colon or control character, so that every
// name stays inside the sessions directory on every system.
func ValidateName(name string) error {
	if name == "" {
		return errors.New("a session name cannot be empty")
	}
	if strings.HasPrefix(name, "/") || filepath.IsAbs(name) {
		return fmt.Errorf("session name %q: give a name inside the sessions directory, not an absolute path", name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || r == '\\' || r == ':' {
			return fmt.Errorf("session name %q: use letters, digits, dashes and '/' for subdirectories (no %q)", name, r)
		}
	}
	for seg := range strings.SplitSeq(name, "/") {
		switch {
		case seg == "":
			return fmt.Errorf("session name %q: a '/' must separate two names", name)
		case seg == "." || seg == "..":
			return fmt.Errorf("session name %q: %q is not allowed; a session stays inside the sessions directory", name, seg)
		case strings.HasPrefix(seg, "."):
			return fmt.Errorf("session name %q: a name cannot start with a dot", name)
		}
	}
	return nil
}

// Store is one sessions directory: sessions/ in the config directory, or
// an agent's agents/<name>/sessions/.
type Store struct {
	Dir string
	// Now gives the time of automatic names; nil means time.Now.
	Now func() time.Time
}

func (st *Store) now() time.Time {
	if st.Now != nil {
		return st.Now()
	}
	return time.Now()
}

// Path is the file of the named session.
func (st *Store) Path(name string) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	return filepath.Join(st.Dir, filepath.FromSlash(name)+".yaml"), nil
}

// Exists reports whether the named session has a file.
func (st *Store) Exists(name string) bool {
	p, err := st.Path(name)
	if err != nil {
		return false
	}
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// List lists the store's sessions.
func (st *Store) List() ([]string, error) { return List(st.Dir) }

// List lists the session names in a sessions directory: every .yaml file,
// named by its path without the extension ("work", "projects/api",
// "_/20250101T120000-title"). Names at the top come first, then those in
// subdirectories, then the automatically named ones, each group sorted. A
// missing directory has no sessions.
func List(dir string) ([]string, error) {
	var top, nested, auto []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if p == dir {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil // hidden files, and the atomic writer's temporary files
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".yaml") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.ToSlash(rel), ".yaml")
		if ValidateName(name) != nil {
			return nil // a file no session name can reach
		}
		switch {
		case strings.HasPrefix(name, autoDir+"/"):
			auto = append(auto, name)
		case strings.Contains(name, "/"):
			nested = append(nested, name)
		default:
			top = append(top, name)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	slices.Sort(top)
	slices.Sort(nested)
	slices.Sort(auto)
	return slices.Concat(top, nested, auto), nil
}

// Slug turns a title into the tail of an automatic session name: lower
// case ASCII letters and digits, any run of other characters made one
// dash, no dash at either end, at most 40 characters (cut at a dash when
// one is near). Letters with accents lose them where that is simple
// (é → e); other characters become dashes.
func Slug(title string) string {
	const maxLen = 40
	b := make([]byte, 0, len(title))
	dash := false
	for _, r := range strings.ToLower(title) {
		r = unaccent(r)
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && len(b) > 0 {
				b = append(b, '-')
			}
			dash = false
			b = append(b, byte(r))
		default:
			dash = true
		}
		if len(b) > maxLen {
			break
		}
	}
	if len(b) > maxLen {
		cut := b[:maxLen]
		if i := strings.LastIndexByte(string(cut), '-'); i >= maxLen/2 {
			cut = cut[:i]
		}
		b = cut
	}
	return strings.Trim(string(b), "-")
}

// unaccent maps the common accented Latin letters to their base letter.
func unaccent(r rune) rune {
	const accented = "àáâãäåçèéêëìíîïñòóôõöøùúûüýÿ" // two bytes each
	const base = "aaaaaaceeeeiiiinoooooouuuuyy"
	if r < 0xC0 || r > 0xFF {
		return r
	}
	if i := strings.IndexRune(accented, r); i >= 0 {
		return rune(base[i/2])
	}
	return r
}

// autoName is the name a temp session is saved under: _/<stamp>[-<slug>],
// with -2, -3, ... added when another session took it in the same second.
func (st *Store) autoName(slug string) string {
	base := autoDir + "/" + st.now().Format("20060102T150405")
	if slug != "" {
		base += "-" + slug
	}
	name := base
	for n := 2; st.Exists(name); n++ {
		name = fmt.Sprintf("%s-%d", base, n)
	}
	return name
}

// forkBase strips a "-fork-N" suffix, so that forking a fork numbers from
// the original name.
func forkBase(name string) string {
	i := strings.LastIndex(name, "-fork-")
	if i < 0 {
		return name
	}
	suffix := name[i+len("-fork-"):]
	if suffix == "" || strings.Trim(suffix, "0123456789") != "" {
		return name
	}
	return name[:i]
}
