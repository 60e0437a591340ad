// Package e2e runs the real coyote binary with real plugin binaries, built
// once in TestMain, against in-repo fake LLM servers.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

var (
	binDir        string // coyote and the shipped plugins (in bin/plugins)
	testPluginDir string // plugins that exist only for these tests
	echoPluginDir string // the SDK's third-party example
	// thirdPartyDir holds the plugins of e2e/thirdparty, a module of its
	// own that depends on the SDK alone, and its fake Acme API (acmefake).
	thirdPartyDir string
)

func TestMain(m *testing.M) {
	if code, ok := standIn(os.Args); ok { // the test binary as gopass or op
		os.Exit(code)
	}
	tmp, err := os.MkdirTemp("", "coyote-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	if err := buildAll(tmp); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: build:", err)
	} else {
		code = m.Run()
	}
	_ = os.RemoveAll(tmp)
	os.Exit(code)
}

// buildAll builds every binary the tests run, in one go build per module
// so the compiler works on them in parallel.
func buildAll(tmp string) error {
	binDir = filepath.Join(tmp, "bin")
	testPluginDir = filepath.Join(tmp, "testplugins")
	echoPluginDir = filepath.Join(tmp, "echoplugin")
	thirdPartyDir = filepath.Join(tmp, "thirdparty")
	out := filepath.Join(tmp, "build")
	for _, d := range []string{binDir, filepath.Join(binDir, "plugins"), testPluginDir, echoPluginDir, thirdPartyDir, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	// Stamped as make stamps it, so --version names the commit.
	commit, _ := exec.Command("git", "describe", "--always", "--dirty", "--match", "no-tags-please").Output()
	ldflags := "-X github.com/coyote-cli/coyote/kernel/buildinfo.Commit=" + strings.TrimSpace(string(commit)) + " " + updateKeyLDFlag()
	goBuild := func(dir string, pkgs ...string) error {
		cgo := "CGO_ENABLED=0"
		if pkgs[0] == cgoPackage {
			cgo = "CGO_ENABLED=1"
		}
		args := append([]string{"build", "-trimpath", "-ldflags", ldflags, "-o", out + string(filepath.Separator)}, pkgs...)
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), cgo)
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return nil
	}
	if err := goBuild("..", "./cmd/coyote", "./plugins/provider-openai", "./plugins/provider-claude", "./plugins/provider-gemini", "./plugins/provider-bedrock",
		"./plugins/provider-vertexai", "./plugins/provider-cohere",
		"./plugins/rag-yaml", "./plugins/rag-qdrant", "./plugins/mcp", "./plugins/sandbox",
		"./plugins/vault-aws", "./plugins/vault-azure", "./plugins/vault-gcp", "./plugins/vault-gopass", "./plugins/vault-1password", "./internal/testplugins/provider", "./internal/testplugins/badproto", "./internal/testplugins/garbage", "./internal/testplugins/mcpserver",
		"./internal/testplugins/deadsocket", "./internal/testplugins/oldprovider"); err != nil {
		return err
	}
	if err := goBuild("..", cgoPackage); err != nil {
		return err
	}
	if err := goBuild("../sdk", "./examples/echo"); err != nil {
		return err
	}
	if err := goBuild("thirdparty", "./cmd/coyote-provider-acme", "./cmd/coyote-rag-jsonfile", "./cmd/acmefake"); err != nil {
		return err
	}
	moves := map[string]string{
		"coyote":               filepath.Join(binDir, "coyote"),
		"provider-openai":      filepath.Join(binDir, "plugins", "coyote-provider-openai"),
		"provider-claude":      filepath.Join(binDir, "plugins", "coyote-provider-claude"),
		"provider-gemini":      filepath.Join(binDir, "plugins", "coyote-provider-gemini"),
		"provider-vertexai":    filepath.Join(binDir, "plugins", "coyote-provider-vertexai"),
		"provider-cohere":      filepath.Join(binDir, "plugins", "coyote-provider-cohere"),
		"provider-bedrock":     filepath.Join(binDir, "plugins", "coyote-provider-bedrock"),
		"provider":             filepath.Join(testPluginDir, "coyote-provider-testing"),
		"badproto":             filepath.Join(testPluginDir, "coyote-provider-future"),
		"garbage":              filepath.Join(testPluginDir, "coyote-provider-garbage"),
		"mcpserver":            filepath.Join(testPluginDir, "mcpserver"),
		"deadsocket":           filepath.Join(testPluginDir, "coyote-provider-deadsocket"),
		"oldprovider":          filepath.Join(testPluginDir, "coyote-provider-old"),
		"echo":                 filepath.Join(echoPluginDir, "coyote-provider-echo"),
		"rag-yaml":             filepath.Join(binDir, "plugins", "coyote-rag-yaml"),
		"rag-qdrant":           filepath.Join(binDir, "plugins", "coyote-rag-qdrant"),
		"rag-duckdb":           filepath.Join(binDir, "plugins", "coyote-rag-duckdb"),
		"mcp":                  filepath.Join(binDir, "plugins", "coyote-mcp"),
		"sandbox":              filepath.Join(binDir, "plugins", "coyote-sandbox"),
		"vault-aws":            filepath.Join(binDir, "plugins", "coyote-vault-aws"),
		"vault-azure":          filepath.Join(binDir, "plugins", "coyote-vault-azure"),
		"vault-gcp":            filepath.Join(binDir, "plugins", "coyote-vault-gcp"),
		"vault-gopass":         filepath.Join(binDir, "plugins", "coyote-vault-gopass"),
		"vault-1password":      filepath.Join(binDir, "plugins", "coyote-vault-1password"),
		"coyote-provider-acme": filepath.Join(thirdPartyDir, "coyote-provider-acme"),
		"coyote-rag-jsonfile":  filepath.Join(thirdPartyDir, "coyote-rag-jsonfile"),
		"acmefake":             filepath.Join(thirdPartyDir, "acmefake"),
	}
	for from, to := range moves {
		if err := os.Rename(filepath.Join(out, from), to); err != nil {
			return err
		}
	}
	for _, alias := range []string{"coyote-provider-openai-compatible", "coyote-provider-azure-openai"} {
		if err := os.Symlink("coyote-provider-openai", filepath.Join(binDir, "plugins", alias)); err != nil {
			return err
		}
	}
	return nil
}

// cgoPackage is the one plugin built with cgo: DuckDB's store links
// DuckDB's C++ library.
const cgoPackage = "./plugins/rag-duckdb"

// fakeConfig is a config.yaml whose model is fake:gpt-4o-mini (with
// function calling) of an OpenAI-compatible client at url, which also has
// the embedding model fake:embed; extra is YAML put first.
func fakeConfig(url, extra string) string {
	return extra + `
model: fake:gpt-4o-mini
clients:
  - type: openai-compatible
    name: fake
    api_base: ` + url + `
    api_key: k
    models:
      - name: gpt-4o-mini
        supports_function_calling: true
      - name: embed
        type: embedding
`
}

// answering is a fake OpenAI-compatible server whose every chat reply is
// text.
func answering(text string) *fakellm.OpenAI {
	return &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: text} }}
}

// env is a test's isolated environment: its own config and cache
// directories and nothing inherited but PATH.
type env struct {
	t         *testing.T
	configDir string
	cacheDir  string
	vars      []string
	// exe is the coyote binary to run; "" is the one in binDir.
	exe string
}

// coyote is the path of the coyote binary the environment runs.
func (e *env) coyote() string {
	if e.exe != "" {
		return e.exe
	}
	return filepath.Join(binDir, "coyote")
}

func newEnv(t *testing.T, configYAML string) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, configDir: filepath.Join(root, "config"), cacheDir: filepath.Join(root, "cache")}
	if err := os.MkdirAll(e.configDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if configYAML != "" {
		if err := os.WriteFile(filepath.Join(e.configDir, "config.yaml"), []byte(configYAML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e.vars = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + root,
		"COYOTE_CONFIG_DIR=" + e.configDir,
		"COYOTE_CACHE_DIR=" + e.cacheDir,
		"COYOTE_LOG_LEVEL=debug",
	}
	return e
}

func (e *env) set(kv ...string) *env {
	e.vars = append(e.vars, kv...)
	return e
}

type result struct {
	stdout, stderr string
	code           int
}

// command prepares coyote with args; stdin is empty unless given.
func (e *env) command(ctx context.Context, stdin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.coyote(), args...)
	cmd.Env = e.vars
	cmd.Stdin = strings.NewReader(stdin)
	return cmd
}

// run runs coyote to completion in the test's working directory.
func (e *env) run(stdin string, args ...string) result {
	e.t.Helper()
	return e.runIn("", stdin, args...)
}

// runIn runs coyote to completion in dir ("" for the test's own working
// directory; a workspace is dir/.coyote); a run that takes longer than a
// minute has hung and fails the test.
func (e *env) runIn(dir, stdin string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := e.command(ctx, stdin, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		e.t.Fatalf("coyote %q hung; stderr so far:\n%s", args, errOut.String())
	}
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return result{stdout: out.String(), stderr: errOut.String(), code: code}
}

// log returns the kernel's log file, for failure messages.
func (e *env) log() string {
	b, _ := os.ReadFile(filepath.Join(e.cacheDir, "coyote.log"))
	return string(b)
}

// mustSucceed fails the test unless r is a clean exit.
func (e *env) mustSucceed(r result) {
	e.t.Helper()
	if r.code != 0 {
		e.t.Fatalf("exit %d\nstderr: %s\nlog:\n%s", r.code, r.stderr, e.log())
	}
}

// writeFiles writes files, each by its path relative to the config
// directory (with slashes), making the folders they need; like coyote's
// own files, they are private.
func (e *env) writeFiles(files map[string]string) {
	e.t.Helper()
	for name, text := range files {
		p := filepath.Join(e.configDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			e.t.Fatal(err)
		}
	}
}

// vaultPassword writes a vault password file of the test's own and
// returns its path, for vault_password_file.
func vaultPassword(t *testing.T) string {
	t.Helper()
	pw := filepath.Join(t.TempDir(), "vault-password")
	if err := os.WriteFile(pw, []byte("correct horse battery staple\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return pw
}

// oneLineError checks the promise for failures: exit 1 and exactly one line
// on stderr.
func oneLineError(t *testing.T, r result) string {
	t.Helper()
	if r.code != 1 {
		t.Fatalf("exit code %d, want 1; stderr: %s", r.code, r.stderr)
	}
	line := strings.TrimSuffix(r.stderr, "\n")
	if line == "" || strings.Contains(line, "\n") {
		t.Fatalf("stderr is not one line:\n%s", r.stderr)
	}
	return line
}

// listedRow runs `coyote plugins` and returns the row of the plugin name,
// failing the test when it is not listed.
func listedRow(t *testing.T, e *env, name string) string {
	t.Helper()
	r := e.run("", "plugins")
	e.mustSucceed(r)
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, name+" ") {
			return l
		}
	}
	t.Fatalf("coyote plugins does not list %s:\n%s", name, r.stdout)
	return ""
}

// mustRead returns the contents of path, failing the test when it cannot
// be read.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testingConfig is a config whose default client is the test provider.
const testingConfig = `
model: t:m
clients:
  - type: testing
    name: t
    models:
      - name: m
`

// lines reads stdout of a started command line by line.
func lines(r io.Reader) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Split(bufio.ScanWords)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

func exitCode(err error) int {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exitErr.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
