package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/tools/script"
	"github.com/coyote-cli/coyote/sdk/sandbox"
)

// toolSandbox runs tool script calls through the sandbox launcher plugin
// (tool_sandbox, --tool-sandbox). Each call asks the plugin for the
// wrapped command (one local gRPC call) and runs it itself, as an
// unsandboxed call runs the tool: same timeout, process group, output
// capture and scrubbed environment.
type toolSandbox struct {
	f                  *Factory
	backend, workspace string
	stateDir           string
	launcher           *plugins.Sandbox
}

// newToolSandbox makes the sandbox of tool calls and starts the launcher
// plugin in the background.
func newToolSandbox(f *Factory, p config.Paths, backend string) (*toolSandbox, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("tool_sandbox: find the working directory: %w", err)
	}
	l, err := launcher(f)
	if err != nil {
		return nil, fmt.Errorf("tool_sandbox: %s needs the sandbox launcher plugin: %w", backend, err)
	}
	t := &toolSandbox{backend: backend, workspace: wd, stateDir: sandboxStateDir(p), launcher: l}
	// The tools are being offered to the model: start the launcher now,
	// while the model thinks, rather than at the first call.
	go func() { _, _ = l.Plugin().Acquire(context.Background()) }()
	return t, nil
}

func (t *toolSandbox) Describe() string  { return t.backend }
func (t *toolSandbox) Workspace() string { return t.workspace }

// Wrap asks the launcher for the process that runs the call inside a
// throw-away sandbox: the host's programs read-only, the workspace and
// the call's own files writable.
func (t *toolSandbox) Wrap(ctx context.Context, w script.Wrap) ([]string, []string, error) {
	mounts := make([]sandbox.Mount, 0, len(w.Writable))
	for _, d := range w.Writable {
		if d != "" {
			mounts = append(mounts, sandbox.Mount{Source: d, Target: d, Mode: sandbox.ModeRW})
		}
	}
	resp, err := t.launcher.Command(ctx, &sandbox.CommandRequest{
		Backend: t.backend, Workspace: t.workspace, StateDir: t.stateDir, Ephemeral: true,
		Argv: w.Argv, Env: w.Env, Dir: w.Dir, Network: w.Network, Mounts: mounts, TTY: w.Terminal,
	})
	if err != nil {
		return nil, nil, err
	}
	return resp.Argv, resp.Env, nil
}

var _ script.Sandboxer = (*toolSandbox)(nil)
