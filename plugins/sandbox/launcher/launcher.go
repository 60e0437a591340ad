// Package launcher implements the sandbox launcher contract
// (sdk/sandbox) with four backends, in this order of preference:
//
//   - sbx: Docker's sandboxes (the sbx CLI), the original's flow: a kit,
//     `sbx create --name N --kit … coyote .`, the configuration copied in
//     with `sbx cp`, `sbx run`. Credentials live in sbx's own store.
//   - docker, podman: a container from a configurable image, the
//     workspace bind-mounted, a private home kept on the host, no
//     network unless asked.
//   - bwrap: bubblewrap, no daemon: the host's root read-only, the
//     workspace read-write, a private home, /tmp private, PID, IPC and
//     UTS namespaces, no network unless asked, dying with its parent.
//
// A backend never runs the user's command itself: Command returns the
// process the kernel starts, so the command gets the user's terminal and
// dies with the kernel. The container CLIs are run only to probe, create,
// list and remove.
package launcher

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/sandbox"
)

// Options configure a Launcher.
type Options struct {
	// LookPath finds a program (exec.LookPath if nil); tests point it at
	// recorded stand-ins.
	LookPath func(string) (string, error)
}

// backend is one way of sandboxing.
type backend interface {
	name() string
	// probe says whether the backend can run here, and why not.
	probe(ctx context.Context) (ok bool, reason string)
	caps() []string
	prepare(ctx context.Context, req *sandbox.PrepareRequest) (*sandbox.PrepareResponse, error)
	command(ctx context.Context, req *sandbox.CommandRequest) (*sandbox.CommandResponse, error)
	list(ctx context.Context, stateDir string) ([]sandbox.Environment, error)
	remove(ctx context.Context, name, stateDir string) (bool, error)
}

// Launcher serves every backend.
type Launcher struct {
	backends []backend

	mu     sync.Mutex
	probed map[string]probeResult
	// stateDirs are the state directories the kernel named; the kernel's
	// run directory under each is removed when the plugin exits.
	stateDirs map[string]bool
	// kernel is the kernel's pid, read at the start: once the kernel has
	// gone the plugin's parent is someone else.
	kernel int
}

type probeResult struct {
	ok     bool
	reason string
}

// New returns a launcher with the four backends.
func New(o Options) *Launcher {
	look := o.LookPath
	if look == nil {
		look = exec.LookPath
	}
	return &Launcher{
		backends: []backend{
			&sbx{look: look},
			&container{cli: "docker", look: look},
			&container{cli: "podman", look: look},
			&bwrap{look: look},
		},
		probed:    map[string]probeResult{},
		stateDirs: map[string]bool{},
		kernel:    os.Getppid(),
	}
}

// Cleanup removes the run directory of the launcher's kernel (the parent
// it started with) under every state directory it was told of. The plugin
// runs it on exit.
func (l *Launcher) Cleanup() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for d := range l.stateDirs {
		_ = os.RemoveAll(sandbox.RunDir(d, l.kernel))
	}
}

func (l *Launcher) remember(stateDir string) {
	if stateDir == "" || !filepath.IsAbs(stateDir) {
		return
	}
	l.mu.Lock()
	l.stateDirs[stateDir] = true
	l.mu.Unlock()
}

// probeTimeout bounds one availability probe (a daemon that hangs).
const probeTimeout = 5 * time.Second

func (l *Launcher) probe(ctx context.Context, b backend) probeResult {
	l.mu.Lock()
	r, ok := l.probed[b.name()]
	l.mu.Unlock()
	if ok {
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	r.ok, r.reason = b.probe(ctx)
	l.mu.Lock()
	l.probed[b.name()] = r
	l.mu.Unlock()
	return r
}

// Backends reports each backend with its availability. The probes run in
// parallel: a Docker daemon that does not answer costs its timeout once,
// not once per backend.
func (l *Launcher) Backends(ctx context.Context, _ *sandbox.BackendsRequest) (*sandbox.BackendsResponse, error) {
	out := make([]sandbox.Backend, len(l.backends))
	var wg sync.WaitGroup
	for i, b := range l.backends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := l.probe(ctx, b)
			out[i] = sandbox.Backend{Name: b.name(), Available: r.ok, Reason: r.reason, Capabilities: b.caps()}
		}()
	}
	wg.Wait()
	return &sandbox.BackendsResponse{Backends: out}, nil
}

// pick returns the named backend when it is available, or the first
// available one when name is empty; needCap, when set, must be declared.
func (l *Launcher) pick(ctx context.Context, name, needCap string) (backend, error) {
	if name != "" {
		for _, b := range l.backends {
			if b.name() != name {
				continue
			}
			if needCap != "" && !hasCap(b, needCap) {
				return nil, fmt.Errorf("sandbox backend %s cannot %s: %w", name, capWhat(needCap), sdk.ErrUnsupported)
			}
			if r := l.probe(ctx, b); !r.ok {
				return nil, fmt.Errorf("sandbox backend %s is not available here: %s: %w", name, r.reason, sdk.ErrUnavailable)
			}
			return b, nil
		}
		return nil, fmt.Errorf("there is no sandbox backend %q (the backends are %s): %w", name, strings.Join(l.names(), ", "), sdk.ErrInvalidArgument)
	}
	resp, _ := l.Backends(ctx, nil)
	for i, b := range l.backends {
		if resp.Backends[i].Available && (needCap == "" || hasCap(b, needCap)) {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%s: %w", sandbox.Unavailable(resp.Backends), sdk.ErrUnavailable)
}

func (l *Launcher) names() []string {
	var out []string
	for _, b := range l.backends {
		out = append(out, b.name())
	}
	return out
}

func hasCap(b backend, c string) bool {
	for _, x := range b.caps() {
		if x == c {
			return true
		}
	}
	return false
}

func capWhat(c string) string {
	switch c {
	case sandbox.CapWrap:
		return "run a single tool call (it has no host programs inside)"
	}
	return "do " + c
}

// Prepare readies an environment with the chosen backend.
func (l *Launcher) Prepare(ctx context.Context, req *sandbox.PrepareRequest) (*sandbox.PrepareResponse, error) {
	if err := checkName(req.Name); err != nil {
		return nil, err
	}
	if req.StateDir == "" || !filepath.IsAbs(req.StateDir) {
		return nil, fmt.Errorf("state directory %q is not an absolute path: %w", req.StateDir, sdk.ErrInvalidArgument)
	}
	b, err := l.pick(ctx, req.Backend, "")
	if err != nil {
		return nil, err
	}
	l.remember(req.StateDir)
	resp, err := b.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	resp.Backend, resp.Name = b.name(), req.Name
	return resp, nil
}

// Command returns the process that runs a command inside.
func (l *Launcher) Command(ctx context.Context, req *sandbox.CommandRequest) (*sandbox.CommandResponse, error) {
	if len(req.Argv) == 0 {
		return nil, fmt.Errorf("no command to run in the sandbox: %w", sdk.ErrInvalidArgument)
	}
	need := ""
	if req.Ephemeral {
		need = sandbox.CapWrap
	} else if err := checkName(req.Name); err != nil {
		return nil, err
	}
	for _, m := range req.Mounts {
		if !filepath.IsAbs(m.Target) || (m.Mode != sandbox.ModeHide && !filepath.IsAbs(m.Source)) {
			return nil, fmt.Errorf("mount %q → %q: paths must be absolute: %w", m.Source, m.Target, sdk.ErrInvalidArgument)
		}
		switch m.Mode {
		case sandbox.ModeRW, sandbox.ModeRO, sandbox.ModeHide:
		default:
			return nil, fmt.Errorf("mount %q: unknown mode %q: %w", m.Target, m.Mode, sdk.ErrInvalidArgument)
		}
	}
	b, err := l.pick(ctx, req.Backend, need)
	if err != nil {
		return nil, err
	}
	l.remember(req.StateDir)
	return b.command(ctx, req)
}

// chosen is the named backend, or every available one for "".
func (l *Launcher) chosen(ctx context.Context, name string) ([]backend, error) {
	if name != "" {
		b, err := l.pick(ctx, name, "")
		if err != nil {
			return nil, err
		}
		return []backend{b}, nil
	}
	var bs []backend
	for _, b := range l.backends {
		if l.probe(ctx, b).ok {
			bs = append(bs, b)
		}
	}
	return bs, nil
}

// List lists the environments of one backend, or of every available one.
func (l *Launcher) List(ctx context.Context, req *sandbox.ListRequest) (*sandbox.ListResponse, error) {
	bs, err := l.chosen(ctx, req.Backend)
	if err != nil {
		return nil, err
	}
	out := &sandbox.ListResponse{}
	for _, b := range bs {
		envs, err := b.list(ctx, req.StateDir)
		if err != nil {
			return nil, fmt.Errorf("list %s sandboxes: %w", b.name(), err)
		}
		out.Environments = append(out.Environments, envs...)
	}
	sort.SliceStable(out.Environments, func(i, j int) bool {
		a, b := out.Environments[i], out.Environments[j]
		if a.Backend != b.Backend {
			return a.Backend < b.Backend
		}
		return a.Name < b.Name
	})
	return out, nil
}

// Remove deletes an environment: of the named backend, or of whichever
// available backend has one of that name.
func (l *Launcher) Remove(ctx context.Context, req *sandbox.RemoveRequest) (*sandbox.RemoveResponse, error) {
	if err := checkName(req.Name); err != nil {
		return nil, err
	}
	bs, err := l.chosen(ctx, req.Backend)
	if err != nil {
		return nil, err
	}
	removed := false
	for _, b := range bs {
		ok, err := b.remove(ctx, req.Name, req.StateDir)
		if err != nil {
			return nil, fmt.Errorf("remove %s sandbox %q: %w", b.name(), req.Name, err)
		}
		removed = removed || ok
	}
	if !removed {
		return nil, fmt.Errorf("there is no sandbox named %q: %w", req.Name, sdk.ErrNotFound)
	}
	return &sandbox.RemoveResponse{Removed: true}, nil
}

// checkName refuses a name that is not what sandbox.SanitizeName makes:
// it becomes a directory and a container name.
func checkName(n string) error {
	if n == "" || sandbox.SanitizeName(n) != n {
		return fmt.Errorf("sandbox name %q: use lower-case letters, digits and hyphens: %w", n, sdk.ErrInvalidArgument)
	}
	return nil
}

// envDir is where a backend keeps one environment on the host.
func envDir(stateDir, backend, name string) string {
	return filepath.Join(stateDir, backend, name)
}

// listDirs lists the environments a backend keeps under the state dir.
func listDirs(stateDir, backend string) ([]sandbox.Environment, error) {
	if stateDir == "" {
		return nil, nil
	}
	ents, err := os.ReadDir(filepath.Join(stateDir, backend))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []sandbox.Environment
	for _, e := range ents {
		if !e.IsDir() || checkName(e.Name()) != nil {
			continue
		}
		m := readMeta(filepath.Join(stateDir, backend, e.Name()))
		out = append(out, sandbox.Environment{Backend: backend, Name: e.Name(), Workspace: m.Workspace, Detail: m.detail()})
	}
	return out, nil
}

// removeDir removes an environment's directory; false when there was none.
func removeDir(stateDir, backend, name string) (bool, error) {
	dir := envDir(stateDir, backend, name)
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return false, nil
	}
	if err := removeAll(dir); err != nil {
		return false, err
	}
	return true, nil
}

var _ sandbox.Launcher = (*Launcher)(nil)
