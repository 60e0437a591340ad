package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"
)

// SplitRef splits "URL#ref" into the URL and the ref (a branch or tag;
// "" for the remote's default branch).
func SplitRef(s string) (url, ref string) {
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// Clone makes a shallow clone of url (at ref, a branch or tag, when not
// "") into dir, which must not exist, with the git command: it uses the
// user's own git set-up (SSH keys, credential helpers, proxies) and
// never asks for a password on the terminal.
func Clone(ctx context.Context, url, ref, dir string) error {
	if _, err := exec.LookPath("git"); err != nil {
		return errors.New("installing from a repository needs the git command: install git and try again")
	}
	args := []string{"clone", "--quiet", "--depth", "1", "--single-branch", "--no-tags"}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	args = append(args, "--", url, dir)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		what := url
		if ref != "" {
			what += "#" + ref
		}
		return fmt.Errorf("clone %s: %s", what, gitMessage(stderr.String(), err))
	}
	return nil
}

// gitMessage is git's last "fatal:" line (or last line), else err.
func gitMessage(stderr string, err error) string {
	var last string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "warning:") {
			continue
		}
		last = l
	}
	if last == "" {
		return err.Error()
	}
	return strings.TrimPrefix(last, "fatal: ")
}

// RemoteParts are the folders of a cloned bundle at root that the kinds
// of want name, and where each goes: agents/, roles/, skills/, macros/
// and functions/tools/ (functions).
func RemoteParts(root string, p config.Paths, want map[string]bool) []Part {
	all := []struct{ kind, from, to string }{
		{"agents", "agents", p.AgentsDir},
		{"roles", "roles", p.RolesDir},
		{"skills", "skills", p.SkillsDir},
		{"macros", "macros", p.MacrosDir},
		{"functions", "functions/tools", filepath.Join(p.FunctionsDir, "tools")},
	}
	var parts []Part
	for _, a := range all {
		if !want[a.kind] || !realDir(root, a.from) {
			continue
		}
		parts = append(parts, Part{
			Kind:  a.kind,
			FS:    os.DirFS(filepath.Join(root, filepath.FromSlash(a.from))),
			Label: a.from,
			Dir:   a.to,
		})
	}
	return parts
}

// realDir reports whether rel (slash path) is a folder under root, with
// no link on the way: a bundle's link never leads the copy out of it.
func realDir(root, rel string) bool {
	p := root
	for _, c := range strings.Split(rel, "/") {
		p = filepath.Join(p, c)
		st, err := os.Lstat(p)
		if err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}
