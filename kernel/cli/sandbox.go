package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/mcpconf"
	"github.com/coyote-cli/coyote/kernel/plugins"
	ksandbox "github.com/coyote-cli/coyote/kernel/sandbox"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/sandbox"
)

// sandboxOptions are the sandbox flags.
type sandboxOptions struct {
	// Name is --sandbox's value: sandboxHere when given without one.
	Name string
	// Fresh is --fresh: start the environment from nothing.
	Fresh bool
	// List is --sandbox-list; Remove is --sandbox-remove NAME.
	List   bool
	Remove string
	// Tool is --tool-sandbox's backend (tool_sandbox).
	Tool string
	// args are the whole command line, for the Coyote inside.
	args []string
}

// sandboxHere is --sandbox's value when it is given without a name: the
// working directory's base name, sanitised.
const sandboxHere = "."

func (o *sandboxOptions) launching() bool { return o.Name != "" }

// Inside paths the kernel chooses (the launcher's private home is
// /home/agent).
const (
	insideHome     = "/home/agent"
	insideProxyDir = "/tmp/.coyote-proxy"
	proxySocket    = "proxy.sock"
)

// sandboxConflicts are the flags that make no sense with --sandbox: they
// manage this machine's files and exit, so they are run outside, alone.
var sandboxConflicts = []string{
	"add-secret", "get-secret", "update-secret", "delete-secret", "list-secrets",
	"mcp-add", "mcp-remove", "mcp-list", "mcp-get", "auth-mcp", "authenticate",
	"list-plugins", "completions", "version", "untrust-workspace", "init-instructions", "init-memory",
	"build-tools", "sandbox-list", "sandbox-remove",
}

// checkSandboxFlags refuses, in one line, the flags that cannot go with
// the sandbox flags given.
func checkSandboxFlags(cmd flagChanged, o *sandboxOptions) error {
	if o.Fresh && !o.launching() {
		return &UsageError{Err: errors.New("--fresh goes with --sandbox")}
	}
	if o.List && o.Remove != "" {
		return &UsageError{Err: errors.New("--sandbox-list and --sandbox-remove go alone")}
	}
	if !o.launching() {
		return nil
	}
	var bad []string
	for _, n := range sandboxConflicts {
		if cmd.Changed(n) {
			bad = append(bad, "--"+n)
		}
	}
	if len(bad) > 0 {
		return &UsageError{Err: fmt.Errorf("--sandbox cannot go with %s (run it outside the sandbox, alone)", strings.Join(bad, ", "))}
	}
	return nil
}

// flagChanged is what checkSandboxFlags needs of the flag set.
type flagChanged interface{ Changed(name string) bool }

// sandboxName resolves --sandbox's value: the name given, or the working
// directory's base name; both sanitised.
func sandboxName(v, wd string) (string, error) {
	raw := v
	if v == sandboxHere {
		raw = filepath.Base(wd)
	}
	n := sandbox.SanitizeName(raw)
	if n == "" {
		if v == sandboxHere {
			return "", fmt.Errorf("cannot make a sandbox name of this directory's name %q: give one (--sandbox=NAME)", raw)
		}
		return "", fmt.Errorf("sandbox name %q has no letter or digit in it", v)
	}
	return n, nil
}

// refuseNesting is the error of --sandbox inside a sandbox.
func refuseNesting(f *Factory) error {
	if f.Env(ksandbox.EnvInside) != "" {
		return errors.New("refusing to start a sandbox inside a sandbox: " + ksandbox.EnvInside + " is set, so this coyote already runs inside one")
	}
	return nil
}

// sandboxStateDir is where the launcher keeps its environments.
func sandboxStateDir(p config.Paths) string { return filepath.Join(p.CacheDir, "sandbox") }

// launcher returns the sandbox launcher plugin's handle.
func launcher(f *Factory) (*plugins.Sandbox, error) {
	h, err := f.Host()
	if err != nil {
		return nil, err
	}
	return h.Sandbox()
}

// pickBackend returns the backend to use: sandbox_backend (or want), or
// the first available; with needCap, one that declares it.
func pickBackend(ctx context.Context, l *plugins.Sandbox, want, needCap string) (sandbox.Backend, error) {
	resp, err := l.Backends(ctx, &sandbox.BackendsRequest{})
	if err != nil {
		return sandbox.Backend{}, err
	}
	var names []string
	for _, b := range resp.Backends {
		names = append(names, b.Name)
		if want != "" && b.Name != want {
			continue
		}
		if needCap != "" && !b.Has(needCap) {
			if want != "" {
				return b, fmt.Errorf("sandbox backend %s cannot run a single tool call (it declares no %q capability); use bwrap", b.Name, needCap)
			}
			continue
		}
		if !b.Available {
			if want != "" {
				return b, fmt.Errorf("sandbox backend %s is not available here: %s", b.Name, b.Reason)
			}
			continue
		}
		return b, nil
	}
	if want != "" {
		return sandbox.Backend{}, fmt.Errorf("there is no sandbox backend %q (the launcher has %s)", want, strings.Join(names, ", "))
	}
	return sandbox.Backend{}, errors.New(sandbox.Unavailable(resp.Backends))
}

// configuredBackend is sandbox_backend ("" without a config: the first
// available).
func configuredBackend(f *Factory) string {
	if cfg, _ := f.Config(); cfg != nil {
		return cfg.String("sandbox_backend")
	}
	return ""
}

// runSandboxList prints the environments, one a line.
func runSandboxList(ctx context.Context, f *Factory) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	l, err := launcher(f)
	if err != nil {
		return err
	}
	backend := configuredBackend(f)
	resp, err := l.List(ctx, &sandbox.ListRequest{Backend: backend, StateDir: sandboxStateDir(p)})
	if err != nil {
		return fmt.Errorf("list the sandboxes: %w", err)
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	for _, e := range resp.Environments {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, e.Backend, e.Workspace, e.Detail)
	}
	return tw.Flush()
}

// runSandboxRemove removes one environment.
func runSandboxRemove(ctx context.Context, f *Factory, name string) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	n := sandbox.SanitizeName(name)
	if n != name {
		return fmt.Errorf("there is no sandbox named %q (names are lower-case letters, digits and hyphens)", name)
	}
	l, err := launcher(f)
	if err != nil {
		return err
	}
	backend := configuredBackend(f)
	if _, err := l.Remove(ctx, &sandbox.RemoveRequest{Backend: backend, Name: n, StateDir: sandboxStateDir(p)}); err != nil {
		if errors.Is(err, sdk.ErrNotFound) {
			return fmt.Errorf("there is no sandbox named %q (coyote --sandbox-list lists them)", n)
		}
		return fmt.Errorf("remove sandbox %q: %w", n, err)
	}
	fmt.Fprintf(f.IO.Out, "Removed sandbox %s\n", n)
	return nil
}

// sandboxPlan is everything one launch needs, built before anything
// starts so that --sandbox --info can show it.
type sandboxPlan struct {
	name, workspace, stateDir string
	backend                   sandbox.Backend
	routes                    []ksandbox.Route
	secrets                   []sandbox.Secret
	env                       []string
	mounts                    []sandbox.Mount
	network                   bool
	// notes are what the user should know (a client that cannot be
	// reached from inside).
	notes []string
	// clients are the routed clients by name, for --info.
	clients []string
	// passed are the secrets that go inside as values, and why, for
	// --info and a note.
	passed []string
	// mcpURLs are the routed MCP servers' URLs inside, by name.
	mcpURLs map[string]string
}

// runSandbox launches Coyote inside the sandbox with the rest of the
// command line, and returns its exit status.
func runSandbox(ctx context.Context, f *Factory, opts *rootOptions) error {
	so := &opts.Sandbox
	if err := refuseNesting(f); err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	name, err := sandboxName(so.Name, wd)
	if err != nil {
		return err
	}
	p, err := f.Paths()
	if err != nil {
		return err
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	l, err := launcher(f)
	if err != nil {
		return fmt.Errorf("--sandbox needs the sandbox launcher plugin: %w", err)
	}
	b, err := pickBackend(ctx, l, cfg.String("sandbox_backend"), "")
	if err != nil {
		return err
	}
	plan, err := planSandbox(ctx, f, cfg, p, b, name, wd)
	if err != nil {
		return err
	}
	if opts.Info {
		return showSandboxPlan(f, plan)
	}

	// This kernel's run directory holds the seed and the proxy's socket.
	// The kernel removes it when the launch ends, and the launcher when
	// it exits, which it does after the kernel however it ended: a killed
	// kernel leaves neither behind.
	run := sandbox.RunDir(plan.stateDir, os.Getpid())
	if err := ksandbox.MakeRunDir(run); err != nil {
		return fmt.Errorf("prepare the sandbox: %w", err)
	}
	defer os.RemoveAll(run)
	seed := filepath.Join(run, "seed")
	if err := ksandbox.WriteSeed(p.ConfigDir, p.ConfigFile, seed, []string{filepath.Join(p.ConfigDir, "plugins")}); err != nil {
		return fmt.Errorf("prepare the sandbox's configuration: %w", err)
	}
	if err := rewriteSeedMCP(p, seed, plan.mcpURLs); err != nil {
		return fmt.Errorf("prepare the sandbox's mcp.json: %w", err)
	}
	oauth := ""
	if !so.Fresh {
		oauth = filepath.Join(p.CacheDir, "oauth")
	}
	prep, err := l.Prepare(ctx, &sandbox.PrepareRequest{
		Backend: b.Name, Name: name, Workspace: wd, StateDir: plan.stateDir, Fresh: so.Fresh,
		ConfigSeed: seed, OAuthDir: oauth, Options: sandboxBackendOptions(f, cfg),
		Mixins: findMixins(p, wd), Secrets: plan.secrets,
	})
	if err != nil {
		return fmt.Errorf("prepare sandbox %q (%s): %w", name, b.Name, err)
	}
	if len(plan.passed) > 0 {
		plan.notes = append(plan.notes, "these secrets go inside as values (no proxy can fill them in there): "+strings.Join(plan.passed, "; "))
	}
	for _, n := range append(plan.notes, prep.Notes...) {
		fmt.Fprintln(f.IO.ErrOut, "note: "+n)
	}

	if len(plan.routes) > 0 {
		sockDir := filepath.Join(run, "proxy")
		if err := os.Mkdir(sockDir, 0o700); err != nil {
			return fmt.Errorf("start the sandbox's credential proxy: %w", err)
		}
		proxy, err := ksandbox.StartProxy(filepath.Join(sockDir, proxySocket), plan.routes, f.Logger().Warn)
		if err != nil {
			return err
		}
		defer proxy.Close()
		// Only the socket's directory is shown inside, not the seed.
		plan.mounts = append(plan.mounts, sandbox.Mount{Source: sockDir, Target: insideProxyDir, Mode: sandbox.ModeRW})
	}

	exe, err := executable()
	if err != nil {
		return err
	}
	argv := append([]string{exe}, innerArgs(so.args)...)
	resp, err := l.Command(ctx, &sandbox.CommandRequest{
		Backend: b.Name, Name: name, Workspace: wd, StateDir: plan.stateDir,
		Argv: argv, Env: plan.env, Dir: wd, Network: plan.network, Mounts: plan.mounts,
		TTY: f.IO.IsStdinTTY(), Options: sandboxBackendOptions(f, cfg),
	})
	if err != nil {
		return fmt.Errorf("start sandbox %q (%s): %w", name, b.Name, err)
	}
	return runInside(ctx, f, resp)
}

// runInside starts the launcher's process with the user's stdio and waits
// for it. Ctrl-C goes to the inside (it shares the terminal's foreground
// process group) and does not end this kernel; SIGTERM and SIGHUP are
// passed on. The process dies with the kernel (Pdeathsig).
func runInside(ctx context.Context, f *Factory, resp *sandbox.CommandResponse) error {
	if len(resp.Argv) == 0 {
		return errors.New("the sandbox launcher gave no command to run")
	}
	defer f.Interactive()()
	cmd := exec.Command(resp.Argv[0], resp.Argv[1:]...)
	cmd.Env = resp.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = f.IO.In, f.IO.Out, f.IO.ErrOut
	cmd.SysProcAttr = insideProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the sandbox (%s): %w", filepath.Base(resp.Argv[0]), err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
			}
		case <-done:
		}
	}()
	err := cmd.Wait()
	close(done)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		return &ExitCodeError{Code: code}
	}
	return err
}

// executable is this coyote, links resolved, to run inside.
func executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the coyote executable: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return exe, nil
}

// sandboxBackendOptions are the backend settings of the configuration.
func sandboxBackendOptions(f *Factory, cfg *config.Config) map[string]string {
	o := map[string]string{}
	if v := cfg.String("sandbox_image"); v != "" {
		o["image"] = v
	}
	if v := f.Env("COYOTE_SANDBOX_KIT"); v != "" {
		o["kit"] = v
	}
	return o
}

// findMixins lists the sbx-mixin.yaml files of the configuration, its
// functions, agents and RAGs, and the workspace, as the original does.
func findMixins(p config.Paths, wd string) []string {
	var out []string
	add := func(path string) {
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			out = append(out, path)
		}
	}
	add(filepath.Join(p.ConfigDir, "sbx-mixin.yaml"))
	add(filepath.Join(p.FunctionsDir, "sbx-mixin.yaml"))
	for _, dir := range []string{p.AgentsDir, p.RagsDir} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.IsDir() {
				add(filepath.Join(dir, e.Name(), "sbx-mixin.yaml"))
			}
		}
	}
	add(filepath.Join(wd, "sbx-mixin.yaml"))
	add(filepath.Join(wd, ".coyote", "sbx-mixin.yaml"))
	return out
}

// innerArgs is the command line without the sandbox flags: what the
// Coyote inside runs.
func innerArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return append(out, args[i:]...)
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch name {
		case "sandbox", "fresh", "tool-sandbox":
			continue
		case "sandbox-remove":
			if !hasValue {
				i++
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// passedEnv are the variables of the kernel's environment the Coyote
// inside gets as they are: how it looks and where it finds programs. Its
// home, keys and proxy are set by planSandbox.
var passedEnv = []string{"PATH", "TERM", "COLORTERM", "NO_COLOR", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "USER", "LOGNAME", "SHELL",
	"COYOTE_LOG_LEVEL", "COYOTE_TOOL_TIMEOUT", "AUTO_CONFIRM", "VISUAL", "EDITOR"}

// planSandbox works out the routes, the environment and the mounts of a
// launch.
func planSandbox(ctx context.Context, f *Factory, cfg *config.Config, p config.Paths, b sandbox.Backend, name, wd string) (*sandboxPlan, error) {
	plan := &sandboxPlan{name: name, workspace: wd, stateDir: sandboxStateDir(p), backend: b, network: cfg.Bool("sandbox_network")}
	env := []string{"HOME=" + insideHome, ksandbox.EnvInside + "=1", "NO_PROXY=", "no_proxy="}
	for _, k := range passedEnv {
		if v := f.Env(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	// The settings given in the environment (COYOTE_MODEL, …) hold no
	// secret; the inside is configured as this kernel is.
	for _, k := range config.Keys {
		n := config.EnvName(k.Name)
		if v := f.Env(n); v != "" {
			env = append(env, n+"="+v)
		}
	}

	socket := b.Has(sandbox.CapCredentialSocket)
	store := b.Has(sandbox.CapCredentialStore)
	for _, c := range cfg.Clients {
		if c.APIKey == "" {
			continue
		}
		prefix := config.EnvPrefix(c.Name)
		switch {
		case socket:
			base, err := clientBase(ctx, f, &c)
			if err != nil {
				return nil, err
			}
			if base == "" {
				plan.notes = append(plan.notes, fmt.Sprintf("client %s has no api_base in config.yaml and its plugin does not say its default, so the sandbox's credential proxy cannot route it: set its api_base to use it inside", c.Name))
				continue
			}
			ph := ksandbox.NewPlaceholder()
			route := ksandbox.Route{Name: "c/" + sandbox.SanitizeName(c.Name), Upstream: base, Secrets: []ksandbox.Secret{{Placeholder: ph, Value: c.APIKey}}}
			plan.routes = append(plan.routes, route)
			plan.clients = append(plan.clients, c.Name)
			env = append(env, prefix+"_API_KEY="+ph, prefix+"_API_BASE="+ksandbox.RouteBase(route.Name))
		case store:
			base, err := clientBase(ctx, f, &c)
			if err != nil {
				return nil, err
			}
			host := ""
			if u, err := url.Parse(base); err == nil {
				host = u.Hostname()
			}
			if host == "" {
				plan.notes = append(plan.notes, fmt.Sprintf("client %s has no api_base in config.yaml and its plugin does not say its default, so its key cannot be tied to a host in %s's secret store", c.Name, b.Name))
				continue
			}
			plan.secrets = append(plan.secrets, sandbox.Secret{Name: prefix + "_API_KEY", Value: c.APIKey, Hosts: []string{host}})
			plan.clients = append(plan.clients, c.Name)
		default:
			return nil, fmt.Errorf("sandbox backend %s can carry no credential (neither a socket for the proxy nor a secret store): the clients' keys cannot be used inside", b.Name)
		}
	}
	env = append(env, planMCPSecrets(f, p, plan, socket)...)
	if plan.network {
		env = append(env, ksandbox.EnvNetwork+"=1")
	}
	if len(plan.routes) > 0 {
		env = append(env, ksandbox.EnvProxySocket+"="+insideProxyDir+"/"+proxySocket)
	}

	// What must not be seen inside: the user's home, configuration and
	// cache (the vault, .env, keys, tokens), and the vault's password.
	home, _ := os.UserHomeDir()
	hides := []string{home, p.ConfigDir, p.CacheDir, passwordFile(p.ConfigFile), p.EnvFile}
	// A path below one already hidden is hidden with it (hiding it again
	// would only make an empty mount point show).
	sort.Slice(hides, func(i, j int) bool { return len(hides[i]) < len(hides[j]) })
	var hidden []string
	for _, h := range hides {
		if h == "" || h == "/" || slices.ContainsFunc(hidden, func(d string) bool { return within(h, d) }) {
			continue
		}
		hidden = append(hidden, h)
		plan.mounts = append(plan.mounts, sandbox.Mount{Target: h, Mode: sandbox.ModeHide})
	}
	// What must be seen: this coyote and its plugins, read-only.
	var dirs []string
	if exe, err := executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	var pluginDirs []string
	for _, d := range plugins.SearchPath(p.ConfigDir, f.Env) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && !within(d, p.ConfigDir) {
			pluginDirs = append(pluginDirs, d)
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	for i, d := range dirs {
		if i > 0 && within(d, dirs[i-1]) {
			continue
		}
		plan.mounts = append(plan.mounts, sandbox.Mount{Source: d, Target: d, Mode: sandbox.ModeRO})
	}
	if len(pluginDirs) > 0 {
		env = append(env, "COYOTE_PLUGINS_DIR="+strings.Join(pluginDirs, string(os.PathListSeparator)))
	}
	plan.env = env
	return plan, nil
}

// planMCPSecrets decides how each {{NAME}} of the MCP servers reaches
// the inside, and returns the variables that carry them. A remote server
// of the user's mcp.json that speaks streamable HTTP goes through the
// proxy: its URL inside is a route of the proxy, and its secrets are
// placeholders the proxy fills in. Every other secret (a stdio server
// reads its key from its environment or arguments, which no proxy can
// fill in; an SSE server's message endpoint lies outside the route; a
// workspace file cannot be rewritten) goes in as its value, and a note
// says which.
func planMCPSecrets(f *Factory, p config.Paths, plan *sandboxPlan, socket bool) []string {
	set, err := mcpconf.LoadPaths(p, false)
	if err != nil {
		plan.notes = append(plan.notes, "mcp.json cannot be read, so no MCP secret is passed in: "+oneLine(err.Error()))
		return nil
	}
	var env []string
	given := map[string]string{} // secret name → what the inside has
	for _, e := range set.Active() {
		names := e.Placeholders()
		if len(names) == 0 {
			continue
		}
		routed := socket && e.Scope == mcpconf.ScopeUser && e.Transport() == "http" && within(mcpconf.UserFile(p), p.ConfigDir)
		if !routed {
			var passed []string
			for _, n := range names {
				v, err := f.secrets(n, "")
				if err != nil {
					plan.notes = append(plan.notes, fmt.Sprintf("MCP server %s needs the secret %s, which is not in the vault", e.Name, n))
					continue
				}
				if _, ok := given[n]; !ok || given[n] != v {
					given[n] = v
					env = append(env, ksandbox.SecretEnv(n)+"="+v)
				}
				passed = append(passed, n)
			}
			if len(passed) > 0 {
				plan.passed = append(plan.passed, fmt.Sprintf("MCP server %s (%s): %s", e.Name, e.Transport(), strings.Join(passed, ", ")))
			}
			continue
		}
		route := ksandbox.Route{Name: "m/" + sandbox.SanitizeName(e.Name)}
		upstream := e.URL
		ok := true
		for _, n := range names {
			v, err := f.secrets(n, "")
			if err != nil {
				plan.notes = append(plan.notes, fmt.Sprintf("MCP server %s needs the secret %s, which is not in the vault", e.Name, n))
				ok = false
				break
			}
			ph := ksandbox.NewPlaceholder()
			route.Secrets = append(route.Secrets, ksandbox.Secret{Placeholder: ph, Value: v})
			upstream = strings.ReplaceAll(upstream, "{{"+n+"}}", ph)
			if _, had := given[n]; !had {
				given[n] = ph
				env = append(env, ksandbox.SecretEnv(n)+"="+ph)
			}
		}
		if !ok {
			continue
		}
		route.Upstream = upstream
		plan.routes = append(plan.routes, route)
		if plan.mcpURLs == nil {
			plan.mcpURLs = map[string]string{}
		}
		plan.mcpURLs[e.Name] = ksandbox.RouteBase(route.Name)
	}
	return env
}

// rewriteSeedMCP points the routed servers of the seed's mcp.json at the
// proxy.
func rewriteSeedMCP(p config.Paths, seed string, urls map[string]string) error {
	if len(urls) == 0 {
		return nil
	}
	rel, err := filepath.Rel(p.ConfigDir, mcpconf.UserFile(p))
	if err != nil {
		return err
	}
	file, err := mcpconf.ReadFile(filepath.Join(seed, rel))
	if err != nil {
		return err
	}
	for name, u := range urls {
		if s := file.Get(name); s != nil {
			cp := *s
			cp.URL = u
			file.Put(&cp)
		}
	}
	return file.Save()
}

// clientBase is the base URL a client calls: its api_base, or, when it
// has none, the default its provider plugin fills in (which starts the
// plugin, outside the sandbox, with the real key).
func clientBase(ctx context.Context, f *Factory, c *config.Client) (string, error) {
	if c.APIBase != "" {
		return c.APIBase, nil
	}
	h, err := f.Host()
	if err != nil {
		return "", err
	}
	p, err := h.Provider(c.Type)
	if err != nil {
		return "", fmt.Errorf("client %q: %w", c.Name, err)
	}
	base, err := p.APIBase(ctx, llm.PluginConfig(c))
	if err != nil {
		return "", fmt.Errorf("client %q: find its API's address for the sandbox's proxy: %w", c.Name, err)
	}
	return base, nil
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// showSandboxPlan is --sandbox --info: what a launch would do.
func showSandboxPlan(f *Factory, plan *sandboxPlan) error {
	w := f.IO.Out
	fmt.Fprintf(w, "sandbox\t%s\nbackend\t%s\nworkspace\t%s (read-write)\nnetwork\t%v\n", plan.name, plan.backend.Name, plan.workspace, plan.network)
	switch {
	case len(plan.routes) > 0:
		for _, r := range plan.routes {
			fmt.Fprintf(w, "proxied\t%s → %s (the key stays outside)\n", r.Name, r.Upstream)
		}
	case len(plan.secrets) > 0:
		for _, s := range plan.secrets {
			fmt.Fprintf(w, "secret store\t%s for %s (kept by %s, never inside)\n", s.Name, strings.Join(s.Hosts, ", "), plan.backend.Name)
		}
	default:
		fmt.Fprintln(w, "proxied\tnothing (no client has a key)")
	}
	for _, m := range plan.mounts {
		switch m.Mode {
		case sandbox.ModeHide:
			fmt.Fprintf(w, "hidden\t%s\n", m.Target)
		default:
			fmt.Fprintf(w, "mounted\t%s (%s)\n", m.Target, m.Mode)
		}
	}
	for _, p := range plan.passed {
		fmt.Fprintf(w, "passed as a value\t%s\n", p)
	}
	for _, n := range plan.notes {
		fmt.Fprintf(w, "note\t%s\n", n)
	}
	return nil
}

// startSandboxForward, inside a sandbox whose kernel outside runs a
// credential proxy, starts the loopback forwarder to it and names it in
// HTTP_PROXY for the plugins this kernel starts: their requests to the
// proxy's routes (the clients' api_base) then reach it. Outside a
// sandbox it does nothing.
func (f *Factory) startSandboxForward() error {
	socket := f.Env(ksandbox.EnvProxySocket)
	if socket == "" || f.Env(ksandbox.EnvInside) == "" {
		return nil
	}
	fw, err := ksandbox.StartForward(socket, f.Env(ksandbox.EnvNetwork) == "1")
	if err != nil {
		return fmt.Errorf("reach the sandbox's credential proxy: %w", err)
	}
	f.forward = fw
	env := make([]string, 0, len(f.Environ)+4)
	for _, kv := range f.Environ {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY":
			continue
		}
		env = append(env, kv)
	}
	f.Environ = append(env, "HTTP_PROXY="+fw.URL, "http_proxy="+fw.URL)
	return nil
}
