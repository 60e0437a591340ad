package launcher

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/coyote-cli/coyote/sdk/fsx"
	"github.com/coyote-cli/coyote/sdk/sandbox"
)

// Inside paths every backend with a private home uses, as the original's
// sandboxes do.
const (
	insideHome   = "/home/agent"
	insideConfig = insideHome + "/.config/coyote"
	insideOAuth  = insideHome + "/.cache/coyote/oauth"
)

// meta is what a backend records of an environment beside its home.
type meta struct {
	Workspace string    `json:"workspace"`
	Created   time.Time `json:"created"`
	LastRun   time.Time `json:"last_run"`
}

func (m meta) detail() string {
	if m.Created.IsZero() {
		return ""
	}
	return "created " + m.Created.Local().Format("2006-01-02 15:04")
}

const metaFile = "sandbox.json"

func readMeta(dir string) meta {
	var m meta
	if b, err := os.ReadFile(filepath.Join(dir, metaFile)); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

func writeMeta(dir string, m meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(filepath.Join(dir, metaFile), append(b, '\n'), 0o600)
}

// prepareHome makes (or reuses, or remakes when fresh) the host
// directory of an environment with a private home in it. A new home gets
// the kernel's configuration seed and, when given, the OAuth tokens (as
// the original copies them once, when it creates a sandbox); a reused one
// gets only the host's config.yaml again. It returns the environment's directory and whether it was
// created.
func prepareHome(req *sandbox.PrepareRequest, backend string) (dir string, created bool, err error) {
	dir = envDir(req.StateDir, backend, req.Name)
	if req.Fresh {
		if err := removeAll(dir); err != nil {
			return "", false, fmt.Errorf("remove the old sandbox %q: %w", req.Name, err)
		}
	}
	m := readMeta(dir)
	if _, err := os.Stat(filepath.Join(dir, "home")); os.IsNotExist(err) {
		created = true
		m = meta{Workspace: req.Workspace, Created: time.Now()}
	}
	home := filepath.Join(dir, "home")
	for _, d := range []string{dir, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", false, fmt.Errorf("make the sandbox's home: %w", err)
		}
	}
	// The whole configuration goes in when the environment is made; after
	// that only config.yaml follows the host's, so that what was written
	// inside (sessions, memory, agents' data) is never overwritten.
	if req.ConfigSeed != "" {
		dst := filepath.Join(home, ".config", "coyote")
		var err error
		if created {
			err = copyTree(req.ConfigSeed, dst)
		} else if _, serr := os.Stat(filepath.Join(req.ConfigSeed, "config.yaml")); serr == nil {
			if err = os.MkdirAll(dst, 0o700); err == nil {
				err = copyFile(filepath.Join(req.ConfigSeed, "config.yaml"), filepath.Join(dst, "config.yaml"))
			}
		}
		if err != nil {
			return "", false, fmt.Errorf("copy the configuration into the sandbox: %w", err)
		}
	}
	if req.OAuthDir != "" && created {
		if err := copyTree(req.OAuthDir, filepath.Join(home, ".cache", "coyote", "oauth")); err != nil {
			return "", false, fmt.Errorf("copy the OAuth tokens into the sandbox: %w", err)
		}
	}
	m.Workspace, m.LastRun = req.Workspace, time.Now()
	if err := writeMeta(dir, m); err != nil {
		return "", false, fmt.Errorf("record the sandbox: %w", err)
	}
	return dir, created, nil
}

// copyTree copies the regular files and directories of src into dst,
// replacing files that exist; links and special files are skipped (a
// link could point anywhere on the host). A missing src copies nothing.
func copyTree(src, dst string) error {
	if _, err := os.Stat(src); os.IsNotExist(err) {
		return nil
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o700)
		case d.Type().IsRegular():
			return copyFile(path, target)
		}
		return nil
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".copy-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), info.Mode().Perm()&0o700)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// removeAll removes dir even where something inside made a directory
// read-only.
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
