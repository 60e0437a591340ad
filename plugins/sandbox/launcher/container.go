package launcher

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/sandbox"
)

// defaultImage runs a Coyote mounted from the host: the kernel's binaries
// are static, so any image with a shell will do.
const defaultImage = "debian:stable-slim"

// container is the docker or podman backend: one container per run
// (--rm), from a configurable image, with the workspace and the private
// home bind-mounted. The environment that persists is the home on the
// host.
type container struct {
	cli  string // "docker" or "podman"
	look func(string) (string, error)
}

func (c *container) name() string { return c.cli }

func (*container) caps() []string {
	return []string{sandbox.CapBind, sandbox.CapNetworkOff, sandbox.CapCredentialSocket, sandbox.CapHome}
}

func (c *container) probe(ctx context.Context) (bool, string) {
	path, err := c.look(c.cli)
	if err != nil {
		return false, c.cli + " is not installed"
	}
	out, err := exec.CommandContext(ctx, path, "info", "--format", "{{.ServerVersion}}").CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return false, "the " + c.cli + " daemon does not answer"
		}
		return false, "the " + c.cli + " daemon is not running (" + lastLine(string(out), err) + ")"
	}
	return true, ""
}

func (c *container) prepare(_ context.Context, req *sandbox.PrepareRequest) (*sandbox.PrepareResponse, error) {
	dir, created, err := prepareHome(req, c.name())
	if err != nil {
		return nil, err
	}
	return &sandbox.PrepareResponse{Created: created, Home: filepath.Join(dir, "home")}, nil
}

// command builds `docker run` (or podman's): the container runs as the
// user (so files written in the workspace are theirs), with an init that
// reaps and forwards signals, a terminal when the user has one, and no
// network unless asked. Hidden paths need nothing: only what is mounted is
// visible in a container.
func (c *container) command(_ context.Context, req *sandbox.CommandRequest) (*sandbox.CommandResponse, error) {
	path, err := c.look(c.cli)
	if err != nil {
		return nil, fmt.Errorf("%s is not installed: %w", c.cli, sdk.ErrUnavailable)
	}
	ws := req.Workspace
	if ws == "" || !filepath.IsAbs(ws) {
		return nil, fmt.Errorf("workspace %q is not an absolute path: %w", ws, sdk.ErrInvalidArgument)
	}
	home := filepath.Join(envDir(req.StateDir, c.name(), req.Name), "home")
	if _, err := os.Stat(home); err != nil {
		return nil, fmt.Errorf("sandbox %q was not prepared: %w", req.Name, sdk.ErrFailedPrecondition)
	}
	args := []string{path, "run", "--rm", "-i"}
	if req.TTY {
		args = append(args, "-t")
	}
	args = append(args, "--init", "--label", "coyote.sandbox="+req.Name)
	if c.cli == "podman" {
		args = append(args, "--userns=keep-id")
	} else {
		args = append(args, "--user", strconv.Itoa(os.Getuid())+":"+strconv.Itoa(os.Getgid()))
	}
	if !req.Network {
		args = append(args, "--network", "none")
	}
	for _, m := range req.Mounts {
		switch m.Mode {
		case sandbox.ModeRO:
			args = append(args, "-v", m.Source+":"+m.Target+":ro")
		case sandbox.ModeRW:
			args = append(args, "-v", m.Source+":"+m.Target)
		}
	}
	args = append(args, "-v", home+":"+insideHome, "-v", ws+":"+ws)
	dir := req.Dir
	if dir == "" {
		dir = ws
	}
	args = append(args, "-w", dir)
	for _, kv := range req.Env {
		args = append(args, "-e", kv)
	}
	image := req.Options["image"]
	if image == "" {
		image = defaultImage
	}
	args = append(args, image)
	args = append(args, req.Argv...)
	return &sandbox.CommandResponse{Argv: args, Env: os.Environ()}, nil
}

func (c *container) list(_ context.Context, stateDir string) ([]sandbox.Environment, error) {
	return listDirs(stateDir, c.name())
}

func (c *container) remove(_ context.Context, name, stateDir string) (bool, error) {
	return removeDir(stateDir, c.name(), name)
}

// lastLine is the last line of a command's output, or its error.
func lastLine(out string, err error) string {
	out = strings.TrimSpace(out)
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	if out == "" {
		return err.Error()
	}
	return out
}
