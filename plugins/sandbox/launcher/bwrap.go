package launcher

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/sandbox"
)

// bwrap is the bubblewrap backend: no daemon, unprivileged (user
// namespaces), the host's own programs read-only.
type bwrap struct {
	look func(string) (string, error)
}

func (*bwrap) name() string { return "bwrap" }

func (*bwrap) caps() []string {
	return []string{sandbox.CapBind, sandbox.CapHide, sandbox.CapNetworkOff, sandbox.CapCredentialSocket, sandbox.CapWrap, sandbox.CapHome}
}

// probe runs the smallest sandbox: bwrap may be installed and still not
// work (user namespaces off, or a setuid bwrap refused by the policy).
func (b *bwrap) probe(ctx context.Context) (bool, string) {
	path, err := b.look("bwrap")
	if err != nil {
		return false, "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
	}
	out, err := exec.CommandContext(ctx, path, "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--die-with-parent", "true").CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg == "" {
			msg = err.Error()
		}
		if strings.Contains(msg, "namespace") || strings.Contains(msg, "Operation not permitted") {
			return false, "user namespaces are off (" + msg + ")"
		}
		return false, "bwrap does not start: " + msg
	}
	return true, ""
}

func (b *bwrap) prepare(_ context.Context, req *sandbox.PrepareRequest) (*sandbox.PrepareResponse, error) {
	dir, created, err := prepareHome(req, b.name())
	if err != nil {
		return nil, err
	}
	return &sandbox.PrepareResponse{Created: created, Home: filepath.Join(dir, "home")}, nil
}

// command builds the bwrap command line. The order of the mounts matters:
// later ones go on top of earlier ones, so the private /tmp and /home come
// first, then what the kernel shows or hides, then the private home and
// the workspace, which must stay visible and writable whatever was hidden
// above them.
func (b *bwrap) command(_ context.Context, req *sandbox.CommandRequest) (*sandbox.CommandResponse, error) {
	path, err := b.look("bwrap")
	if err != nil {
		return nil, fmt.Errorf("bwrap is not installed: %w", sdk.ErrUnavailable)
	}
	ws := req.Workspace
	if ws == "" || !filepath.IsAbs(ws) {
		return nil, fmt.Errorf("workspace %q is not an absolute path: %w", ws, sdk.ErrInvalidArgument)
	}
	args := []string{path,
		"--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
	}
	if !req.Network {
		args = append(args, "--unshare-net")
	}
	if req.Ephemeral && !req.TTY {
		// A tool call that may not ask on the terminal gets a session of
		// its own, which keeps it from pushing input into the user's
		// (TIOCSTI).
		args = append(args, "--new-session")
	}
	args = append(args,
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
	)
	if !req.Ephemeral {
		// Coyote's own /tmp is private. A tool call keeps the host's,
		// read-only like the rest: its scripts and files may live there,
		// and the kernel gives it a writable directory of its own (TMPDIR).
		args = append(args, "--tmpfs", "/tmp", "--tmpfs", "/var/tmp")
	}
	var home string
	if !req.Ephemeral {
		home = filepath.Join(envDir(req.StateDir, b.name(), req.Name), "home")
		if _, err := os.Stat(home); err != nil {
			return nil, fmt.Errorf("sandbox %q was not prepared: %w", req.Name, sdk.ErrFailedPrecondition)
		}
		args = append(args, "--tmpfs", "/home")
	}
	for _, m := range req.Mounts {
		args = append(args, mountArgs(m)...)
	}
	if !req.Ephemeral {
		args = append(args, "--bind", home, insideHome)
	}
	args = append(args, "--bind", ws, ws)
	dir := req.Dir
	if dir == "" {
		dir = ws
	}
	args = append(args, "--chdir", dir, "--")
	args = append(args, req.Argv...)
	return &sandbox.CommandResponse{Argv: args, Env: req.Env}, nil
}

// mountArgs is one mount as bwrap arguments. A hidden directory becomes
// an empty tmpfs, a hidden file /dev/null.
func mountArgs(m sandbox.Mount) []string {
	switch m.Mode {
	case sandbox.ModeRO:
		return []string{"--ro-bind-try", m.Source, m.Target}
	case sandbox.ModeRW:
		return []string{"--bind", m.Source, m.Target}
	}
	if fi, err := os.Stat(m.Target); err == nil && !fi.IsDir() {
		return []string{"--ro-bind", "/dev/null", m.Target}
	} else if err != nil {
		return nil // nothing there to hide
	}
	return []string{"--tmpfs", m.Target}
}

func (b *bwrap) list(_ context.Context, stateDir string) ([]sandbox.Environment, error) {
	return listDirs(stateDir, b.name())
}

func (b *bwrap) remove(_ context.Context, name, stateDir string) (bool, error) {
	return removeDir(stateDir, b.name(), name)
}
