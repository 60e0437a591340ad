package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// The plugin lock pins the plugin binaries a user trusts: `coyote plugins
// lock` writes the SHA-256 of every plugin found into LockFileName in the
// config directory, and from then on the host launches only binaries whose
// digest the lock lists under their name. Without the file nothing is
// checked.
//
// go-plugin has its own check, ClientConfig.SecureConfig, but it does not
// fit here: with a RunnerFunc (which the host needs for the lifeline,
// process group and environment) go-plugin checks the path of an empty
// exec.Cmd, and it hashes the whole file at every launch (the DuckDB store
// is about 70 MB). The host checks in Acquire instead, and keeps each
// binary's digest in the cache directory by file identity (device, inode,
// size, modification and change time; the change time cannot be set back
// by a user), so a launch costs a stat and a lookup, and a binary is hashed
// again only when it changed.
const (
	// LockFileName is the plugin lock's name in the config directory.
	LockFileName = "plugins.lock"
	// digestCacheName is the digest cache's name in the cache directory.
	digestCacheName = "plugin-digests.json"
	lockVersion     = 1
)

// Lock is the content of the plugin lock.
type Lock struct {
	Version int `json:"version"`
	// Plugins are the locked binaries by name (coyote-provider-openai).
	Plugins map[string]LockEntry `json:"plugins"`
}

// LockEntry is one locked binary.
type LockEntry struct {
	// SHA256 is the hex digest of the file that is executed.
	SHA256 string `json:"sha256"`
	// Path is where the binary was when it was locked; it is only
	// information, the digest alone decides.
	Path string `json:"path"`
}

// ReadLock reads a plugin lock. A missing file is an error matching
// os.ErrNotExist.
func ReadLock(path string) (*Lock, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plugin lock: %w", err)
	}
	var l Lock
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("read plugin lock %s: %w", path, err)
	}
	if l.Version != lockVersion {
		return nil, fmt.Errorf("read plugin lock %s: version %d, this coyote reads version %d", path, l.Version, lockVersion)
	}
	for name, e := range l.Plugins {
		if len(e.SHA256) != sha256.Size*2 {
			return nil, fmt.Errorf("read plugin lock %s: %s has no valid sha256", path, name)
		}
	}
	return &l, nil
}

// writeLock writes a plugin lock atomically, readable by the user alone.
func writeLock(path string, l *Lock) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return fsx.WritePrivate(path, append(b, '\n'))
}

// LockState is how a found plugin stands against the lock.
type LockState int

const (
	// NoLock: there is no lock file; every plugin may run.
	NoLock LockState = iota
	// Locked: the binary's digest is the one the lock lists.
	Locked
	// Mismatch: the lock lists another digest for this name.
	Mismatch
	// Unlocked: the lock does not list this name.
	Unlocked
	// Unreadable: the binary could not be read to hash it.
	Unreadable
)

func (s LockState) String() string {
	return [...]string{"-", "ok", "MISMATCH", "unlocked", "unreadable"}[s]
}

// LockError is a plugin the host refuses to launch because of the lock.
type LockError struct {
	Binary   string
	Path     string
	LockFile string
	State    LockState
	// Want and Got are the locked and the actual digest (Mismatch).
	Want, Got string
	Err       error
}

func (e *LockError) Error() string {
	switch e.State {
	case Mismatch:
		return fmt.Sprintf("plugin %s does not match the plugin lock: expected sha256 %s, found %s in %s; if you trust this binary, run `coyote plugins lock` again",
			e.Binary, e.Want, e.Got, e.Path)
	case Unlocked:
		return fmt.Sprintf("plugin %s (%s) is not in the plugin lock %s; if you trust it, run `coyote plugins lock` again",
			e.Binary, e.Path, e.LockFile)
	}
	return fmt.Sprintf("plugin %s cannot be checked against the plugin lock: %v", e.Binary, e.Err)
}

func (e *LockError) Unwrap() error { return e.Err }

// LockCheck is one found plugin checked against the lock.
type LockCheck struct {
	Found
	State LockState
	// Want is the locked digest, Got the binary's.
	Want, Got string
	Err       error
}

// LockFile is the path of the host's plugin lock ("" when it has none).
func (h *Host) LockFile() string { return h.opts.LockFile }

// readLock reads the host's lock: nil, nil when there is none. A lock
// that is there but cannot be used refuses every plugin, so its error
// says how to get out of that.
func (h *Host) readLock() (*Lock, error) {
	if h.opts.LockFile == "" {
		return nil, nil
	}
	l, err := ReadLock(h.opts.LockFile)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%w; fix or remove %s, or run `coyote plugins lock` to rewrite it", err, h.opts.LockFile)
	}
	return l, nil
}

// CheckLaunch is the check Acquire makes before it launches a plugin: nil
// without a lock or for a binary the lock lists with its digest, else a
// *LockError. It reads the lock at every launch (a small file; another coyote
// may have re-locked meanwhile) and hashes the binary only when it changed
// since it was last hashed.
func (h *Host) CheckLaunch(f Found) error {
	l, err := h.readLock()
	if err != nil {
		return &LockError{Binary: f.Binary, Path: f.Path, LockFile: h.opts.LockFile, Err: err}
	}
	if l == nil {
		return nil
	}
	c := h.checkOne(l, f, false)
	h.digests.save()
	return h.refusal(c)
}

// refusal is the *LockError Acquire refuses a checked plugin with, or nil
// when the lock lets it run.
func (h *Host) refusal(c LockCheck) error {
	switch c.State {
	case NoLock, Locked:
		return nil
	case Unreadable:
		return &LockError{Binary: c.Binary, Path: c.Path, LockFile: h.opts.LockFile, State: c.State, Err: c.Err}
	}
	return &LockError{Binary: c.Binary, Path: c.Path, LockFile: h.opts.LockFile, State: c.State, Want: c.Want, Got: c.Got}
}

func (h *Host) checkOne(l *Lock, f Found, rehash bool) LockCheck {
	c := LockCheck{Found: f}
	if l == nil {
		c.State = NoLock
		return c
	}
	e, ok := l.Plugins[f.Binary]
	c.Want = e.SHA256
	c.Got, c.Err = h.digests.digest(f.Path, rehash)
	switch {
	case c.Err != nil:
		c.State = Unreadable
	case !ok:
		c.State = Unlocked
	case c.Got != e.SHA256:
		c.State = Mismatch
	default:
		c.State = Locked
	}
	return c
}

// CheckLock checks found plugins against the lock, hashing every binary
// again when rehash is set (coyote plugins verify) and trusting the digest
// cache otherwise. The lock is nil when there is none; then every state is
// NoLock.
func (h *Host) CheckLock(found []Found, rehash bool) (*Lock, []LockCheck, error) {
	l, err := h.readLock()
	if err != nil {
		return nil, nil, err
	}
	checks := make([]LockCheck, len(found))
	var wg sync.WaitGroup
	for i, f := range found {
		wg.Add(1)
		go func() {
			defer wg.Done()
			checks[i] = h.checkOne(l, f, rehash)
		}()
	}
	wg.Wait()
	h.digests.save()
	return l, checks, nil
}

// WriteLock hashes every found plugin (again) and writes the lock with
// all of them, replacing the old one.
func (h *Host) WriteLock(found []Found) (*Lock, error) {
	if h.opts.LockFile == "" {
		return nil, errors.New("no plugin lock file is configured")
	}
	l := &Lock{Version: lockVersion, Plugins: map[string]LockEntry{}}
	type result struct {
		sum string
		err error
	}
	results := make([]result, len(found))
	var wg sync.WaitGroup
	for i, f := range found {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].sum, results[i].err = h.digests.digest(f.Path, true)
		}()
	}
	wg.Wait()
	h.digests.save()
	for i, f := range found {
		if results[i].err != nil {
			return nil, fmt.Errorf("lock plugin %s: %w", f.Binary, results[i].err)
		}
		l.Plugins[f.Binary] = LockEntry{SHA256: results[i].sum, Path: f.Path}
	}
	if err := writeLock(h.opts.LockFile, l); err != nil {
		return nil, err
	}
	return l, nil
}

// LockedNames lists the names in a lock, sorted.
func (l *Lock) LockedNames() []string {
	names := make([]string, 0, len(l.Plugins))
	for n := range l.Plugins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// digestCache keeps the SHA-256 of plugin binaries by file identity, in
// the cache directory, so that a binary is hashed again only when it
// changed. It is shared by every coyote process of a user; each writes it
// atomically, and an entry lost to a concurrent write only costs a hash.
type digestCache struct {
	path string // "" keeps digests in memory only

	mu      sync.Mutex
	loaded  bool
	dirty   bool
	entries map[string]digestEntry // by the binary's resolved path
	hashed  int                    // files hashed, for tests
	now     func() time.Time       // time.Now, but in tests
}

// racyWindow: a digest is not cached for a file changed this shortly
// before it was hashed. File times are coarse (a clock tick, on some file
// systems a second or two), so a change right after the hash could leave
// the change time as it was; like git's "racily clean" entries, such a
// file is hashed again next time instead.
const racyWindow = 2 * time.Second

type digestEntry struct {
	ID     fileID `json:"id"`
	SHA256 string `json:"sha256"`
}

func (c *digestCache) load() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.entries = map[string]digestEntry{}
	if c.path == "" {
		return
	}
	if b, err := os.ReadFile(c.path); err == nil {
		// A damaged cache is an empty one: it is only a cache.
		_ = json.Unmarshal(b, &c.entries)
	}
}

// digest returns the SHA-256 of the file path runs, from the cache when
// the file's identity has not changed since it was hashed, unless rehash.
func (c *digestCache) digest(path string, rehash bool) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if !rehash {
		if st, err := os.Stat(real); err == nil {
			if id, ok := identity(st); ok {
				c.mu.Lock()
				c.load()
				e, hit := c.entries[real]
				c.mu.Unlock()
				if hit && e.ID == id {
					return e.SHA256, nil
				}
			}
		}
	}
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	began := now()
	sum, id, stable, err := hashFile(real)
	if err != nil {
		return "", err
	}
	stable = stable && id.Ctime < began.Add(-racyWindow).UnixNano()
	c.mu.Lock()
	c.hashed++
	c.mu.Unlock()
	if stable {
		c.mu.Lock()
		c.load()
		c.entries[real] = digestEntry{ID: id, SHA256: sum}
		c.dirty = true
		c.mu.Unlock()
	}
	return sum, nil
}

// hashFile hashes a file and returns its identity; stable is false when
// the file changed while it was read (or has no identity here), and the
// digest must then not be cached.
func hashFile(path string) (sum string, id fileID, stable bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fileID{}, false, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return "", fileID{}, false, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fileID{}, false, fmt.Errorf("hash %s: %w", path, err)
	}
	after, err := f.Stat()
	if err != nil {
		return "", fileID{}, false, err
	}
	id1, ok1 := identity(before)
	id2, ok2 := identity(after)
	return hex.EncodeToString(h.Sum(nil)), id2, ok1 && ok2 && id1 == id2, nil
}

// save writes the cache if it changed. Failing to is harmless: the next
// launch hashes again.
func (c *digestCache) save() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty || c.path == "" {
		return
	}
	c.dirty = false
	b, err := json.Marshal(c.entries)
	if err == nil {
		_ = fsx.WritePrivate(c.path, b)
	}
}
