package launcher

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/fsx"
	"github.com/coyote-cli/coyote/sdk/sandbox"
)

// sbx is the backend of Docker's sandboxes, the original's flow: a kit
// describes the sandbox, `sbx create` makes it from the kit and the
// mixins, the configuration is copied in once with `sbx cp`, and `sbx run`
// attaches to it. The sandbox is a microVM: no host path can be shown
// inside, so credentials go to sbx's own secret store, whose proxy injects
// them.
type sbx struct {
	look func(string) (string, error)
}

func (*sbx) name() string { return "sbx" }

func (*sbx) caps() []string {
	return []string{sandbox.CapNetworkOff, sandbox.CapCredentialStore, sandbox.CapHome}
}

func (s *sbx) probe(ctx context.Context) (bool, string) {
	path, err := s.look("sbx")
	if err != nil {
		return false, "sbx is not installed (Docker Sandboxes)"
	}
	out, err := exec.CommandContext(ctx, path, "ls").CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return false, "sbx does not answer"
		}
		return false, "sbx does not work: " + lastLine(string(out), err)
	}
	return true, ""
}

// sbxAgent is the agent the kit declares.
const sbxAgent = "coyote"

func (s *sbx) run(ctx context.Context, dir string, stdin string, args ...string) (string, error) {
	path, err := s.look("sbx")
	if err != nil {
		return "", fmt.Errorf("sbx is not installed: %w", sdk.ErrUnavailable)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("sbx %s: %s", args[0], lastLine(string(out), err))
	}
	return string(out), nil
}

// exists reads `sbx ls`: a header line, then one sandbox a line, its name
// first.
func (s *sbx) names(ctx context.Context) ([]string, error) {
	out, err := s.run(ctx, "", "", "ls")
	if err != nil {
		return nil, err
	}
	var names []string
	sc := bufio.NewScanner(strings.NewReader(out))
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		if f := strings.Fields(sc.Text()); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// kit returns the kit directory: the user's (COYOTE_SANDBOX_KIT, option
// "kit"), or one written under the state dir for the configured image.
func (s *sbx) kit(req *sandbox.PrepareRequest) (string, error) {
	if k := req.Options["kit"]; k != "" {
		return k, nil
	}
	image := req.Options["image"]
	if image == "" {
		return "", fmt.Errorf("the sbx backend needs an image with coyote installed (sandbox_image) or a kit (COYOTE_SANDBOX_KIT): %w", sdk.ErrFailedPrecondition)
	}
	dir := filepath.Join(req.StateDir, "sbx", "kit")
	spec := "schemaVersion: '2'\nkind: sandbox\nname: " + sbxAgent + "\ndisplayName: Coyote\n" +
		"sandbox:\n  image: " + quoteYAML(image) + "\n  entrypoint: ['coyote']\n  env:\n    IS_SANDBOX: '1'\n"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, fsx.WriteFileAtomic(filepath.Join(dir, "spec.yaml"), []byte(spec), 0o600)
}

func quoteYAML(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// mixinKit wraps one sbx-mixin.yaml as a kit directory of its own, named
// by its content, so an unchanged mixin is written once.
func mixinKit(stateDir, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read mixin %s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	dir := filepath.Join(stateDir, "sbx", "mixins", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, fsx.WriteFileAtomic(filepath.Join(dir, "spec.yaml"), b, 0o600)
}

func (s *sbx) prepare(ctx context.Context, req *sandbox.PrepareRequest) (*sandbox.PrepareResponse, error) {
	kit, err := s.kit(req)
	if err != nil {
		return nil, err
	}
	for _, sec := range req.Secrets {
		args := []string{"secret", "set-custom", "--env", sec.Name}
		for _, h := range sec.Hosts {
			args = append(args, "--host", h)
		}
		// The value goes on stdin, never on a command line.
		if _, err := s.run(ctx, "", sec.Value, args...); err != nil {
			return nil, fmt.Errorf("register %s with sbx: %w", sec.Name, err)
		}
	}
	names, err := s.names(ctx)
	if err != nil {
		return nil, err
	}
	exists := contains(names, req.Name)
	if exists && req.Fresh {
		if _, err := s.run(ctx, "", "", "rm", req.Name); err != nil {
			return nil, err
		}
		exists = false
	}
	resp := &sandbox.PrepareResponse{}
	if exists {
		resp.Notes = append(resp.Notes, fmt.Sprintf("re-attaching to the existing sbx sandbox %q", req.Name))
		return resp, nil
	}
	args := []string{"create", "--name", req.Name, "--kit", kit}
	for _, m := range req.Mixins {
		k, err := mixinKit(req.StateDir, m)
		if err != nil {
			return nil, err
		}
		args = append(args, "--kit", k)
	}
	args = append(args, sbxAgent, ".")
	if _, err := s.run(ctx, req.Workspace, "", args...); err != nil {
		return nil, err
	}
	resp.Created = true
	if err := s.copyIn(ctx, req.Name, req.ConfigSeed, insideConfig); err != nil {
		return nil, err
	}
	if err := s.copyIn(ctx, req.Name, req.OAuthDir, insideOAuth); err != nil {
		return nil, err
	}
	return resp, nil
}

// copyIn copies each entry of src into the sandbox's dst directory.
func (s *sbx) copyIn(ctx context.Context, name, src, dst string) error {
	if src == "" {
		return nil
	}
	ents, err := os.ReadDir(src)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := s.run(ctx, "", "", "exec", name, "mkdir", "-p", dst); err != nil {
		return err
	}
	for _, e := range ents {
		if _, err := s.run(ctx, "", "", "cp", filepath.Join(src, e.Name()), name+":"+dst+"/"); err != nil {
			return err
		}
	}
	return nil
}

// command attaches to the sandbox: its kit's entrypoint runs coyote, so
// only the arguments after the program go along.
func (s *sbx) command(ctx context.Context, req *sandbox.CommandRequest) (*sandbox.CommandResponse, error) {
	path, err := s.look("sbx")
	if err != nil {
		return nil, fmt.Errorf("sbx is not installed: %w", sdk.ErrUnavailable)
	}
	kit := req.Options["kit"]
	if kit == "" {
		kit = filepath.Join(req.StateDir, "sbx", "kit")
	}
	args := []string{path, "run", "--name", req.Name, "--kit", kit}
	if len(req.Argv) > 1 {
		args = append(args, "--")
		args = append(args, req.Argv[1:]...)
	}
	return &sandbox.CommandResponse{Argv: args, Env: os.Environ()}, nil
}

func (s *sbx) list(ctx context.Context, _ string) ([]sandbox.Environment, error) {
	names, err := s.names(ctx)
	if err != nil {
		return nil, err
	}
	var out []sandbox.Environment
	for _, n := range names {
		out = append(out, sandbox.Environment{Backend: s.name(), Name: n})
	}
	return out, nil
}

func (s *sbx) remove(ctx context.Context, name, _ string) (bool, error) {
	names, err := s.names(ctx)
	if err != nil {
		return false, err
	}
	if !contains(names, name) {
		return false, nil
	}
	_, err = s.run(ctx, "", "", "rm", name)
	return err == nil, err
}
