package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/net/http/httpguts"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/mcpconf"
	"github.com/coyote-cli/coyote/kernel/trust"
)

// mcpOptions are the MCP server management flags (--mcp-add, --mcp-remove,
// --mcp-list, --mcp-get and their modifiers). They run before any config
// is loaded, like the secret flags.
type mcpOptions struct {
	Add, Remove, Get string
	List             bool
	Transport        string
	URL              string
	Scope            string
	Env, Header      []string
	Cwd              string
	ClientID         string
	ClientSecret     string
	CallbackPort     string
	RedirectHost     string
	Force            bool

	// flags tells a flag given empty from one not given (a *pflag.FlagSet).
	flags interface{ Changed(name string) bool }
}

// The management flags by role.
var (
	mcpActionFlags   = []string{"mcp-add", "mcp-remove", "mcp-list", "mcp-get"}
	mcpAddOnlyFlags  = []string{"transport", "url", "env", "header", "cwd", "client-id", "client-secret", "callback-port", "redirect-host"}
	mcpOAuthFlags    = []string{"client-id", "client-secret", "callback-port", "redirect-host"}
	mcpTransports    = []string{mcpconf.Stdio, mcpconf.HTTP, mcpconf.SSE}
	mcpScopes        = []string{mcpconf.ScopeUser, mcpconf.ScopeWorkspace}
	errMCPNeedsForce = errors.New("no terminal to ask on")
)

// addMCPFlags declares the management flags on the root command.
func addMCPFlags(cmd *cobra.Command, f *Factory, o *mcpOptions) {
	fl := cmd.Flags()
	o.flags = fl
	fl.StringVar(&o.Add, "mcp-add", "", "add an MCP server: `NAME` -- CMD ARGS… (stdio), or NAME --transport http|sse --url URL")
	fl.StringVar(&o.Remove, "mcp-remove", "", "remove the MCP server `NAME` (asks first unless --mcp-force)")
	fl.BoolVar(&o.List, "mcp-list", false, "list the MCP servers of the user and workspace files")
	fl.StringVar(&o.Get, "mcp-get", "", "print the JSON of the MCP server `NAME` as written in its file")
	fl.StringVar(&o.Transport, "transport", "", "with --mcp-add: the `TRANSPORT`, stdio (the default with -- CMD), http or sse")
	fl.StringVar(&o.URL, "url", "", "with --mcp-add: the `URL` of an http or sse server")
	fl.StringVar(&o.Scope, "scope", "", "with the --mcp-* flags: the `SCOPE`, user (functions/mcp.json) or workspace (.coyote/)")
	fl.StringArrayVar(&o.Env, "env", nil, "with --mcp-add: an environment variable of a stdio server, `KEY=VALUE` (repeatable)")
	fl.StringArrayVar(&o.Header, "header", nil, "with --mcp-add: an HTTP header of an http or sse server, \"`Name: Value`\" (repeatable)")
	fl.StringVar(&o.Cwd, "cwd", "", "with --mcp-add: the working directory (`DIR`) of a stdio server")
	fl.StringVar(&o.ClientID, "client-id", "", "with --mcp-add: the OAuth client `ID` of an http or sse server")
	fl.StringVar(&o.ClientSecret, "client-secret", "", "with --mcp-add: the OAuth client `SECRET` ({{NAME}} keeps it in the vault)")
	fl.StringVar(&o.CallbackPort, "callback-port", "", "with --mcp-add: the local `PORT` of the OAuth callback")
	fl.StringVar(&o.RedirectHost, "redirect-host", "", "with --mcp-add: the `HOST` of the OAuth redirect URI (default localhost)")
	fl.BoolVar(&o.Force, "mcp-force", false, "with --mcp-add or --mcp-remove: replace or remove without asking")

	noFiles := cobra.ShellCompDirectiveNoFileComp
	_ = cmd.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions(mcpTransports, noFiles))
	_ = cmd.RegisterFlagCompletionFunc("scope", cobra.FixedCompletions(mcpScopes, noFiles))
	servers := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		p, err := f.Paths()
		if err != nil {
			return nil, noFiles
		}
		set, err := mcpconf.LoadPaths(p, false)
		if err != nil {
			return nil, noFiles
		}
		return set.Names(), noFiles
	}
	_ = cmd.RegisterFlagCompletionFunc("mcp-remove", servers)
	_ = cmd.RegisterFlagCompletionFunc("mcp-get", servers)
}

// active reports whether any management flag was given.
func (o *mcpOptions) active() bool {
	if o.flags == nil {
		return false
	}
	for _, names := range [][]string{mcpActionFlags, mcpAddOnlyFlags, {"scope", "mcp-force"}} {
		if o.given(names...) != "" {
			return true
		}
	}
	return false
}

// given returns the first of the flags that was given, with its dashes
// ("" for none).
func (o *mcpOptions) given(names ...string) string {
	for _, n := range names {
		if o.flags.Changed(n) {
			return "--" + n
		}
	}
	return ""
}

// runMCP checks the combination of management flags, then carries out the
// one action given. args are the arguments after the flags: with --mcp-add,
// those after "--" are a stdio server's command.
func runMCP(cmd *cobra.Command, f *Factory, opts *rootOptions, args []string) error {
	o := &opts.MCP
	text, command := args, []string(nil)
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		text, command = args[:dash], args[dash:]
	}
	action, err := o.check(text, command)
	if err != nil {
		return err
	}
	if opts.Vault.active() {
		return errors.New("the --mcp-* flags cannot be combined with the secret flags: run them one at a time")
	}
	p, err := f.Paths()
	if err != nil {
		return err
	}
	switch action {
	case "--mcp-list":
		return runMCPList(f.IO.Out, p, o.Scope, opts.NoWorkspaceMCP, f.Trust())
	case "--mcp-get":
		return runMCPGet(f, p, o.Get, o.Scope, opts.NoWorkspaceMCP)
	case "--mcp-remove":
		return runMCPRemove(f, p, o.Remove, o.Scope, o.Force, opts.NoWorkspaceMCP)
	}
	return runMCPAdd(f, p, o, command)
}

// check refuses the combinations the original refuses and returns the
// action given.
func (o *mcpOptions) check(text, command []string) (string, error) {
	var actions []string
	for _, n := range mcpActionFlags {
		if a := o.given(n); a != "" {
			actions = append(actions, a)
		}
	}
	switch {
	case len(actions) > 1:
		return "", fmt.Errorf("use only one of --mcp-add, --mcp-remove, --mcp-list and --mcp-get (got %s)", strings.Join(actions, " and "))
	case len(actions) == 0:
		if flag := o.given(mcpAddOnlyFlags...); flag != "" {
			return "", fmt.Errorf("%s only goes with --mcp-add NAME", flag)
		}
		if flag := o.given("mcp-force"); flag != "" {
			return "", errors.New("--mcp-force only goes with --mcp-add or --mcp-remove")
		}
		return "", errors.New("--scope only goes with --mcp-add, --mcp-remove, --mcp-list or --mcp-get")
	}
	action := actions[0]
	if action != "--mcp-add" {
		if flag := o.given(mcpAddOnlyFlags...); flag != "" {
			return "", fmt.Errorf("%s only goes with --mcp-add, not with %s", flag, action)
		}
		if len(command) > 0 {
			return "", fmt.Errorf("a command after -- only goes with --mcp-add, not with %s", action)
		}
		if o.Force && action != "--mcp-remove" {
			return "", fmt.Errorf("--mcp-force only goes with --mcp-add or --mcp-remove, not with %s", action)
		}
	}
	if len(text) > 0 {
		if action == "--mcp-add" {
			return "", fmt.Errorf("unexpected argument %q: put a stdio server's command after --, as in coyote --mcp-add NAME -- npx some-server", text[0])
		}
		return "", fmt.Errorf("unexpected argument %q: %s takes no text", text[0], action)
	}
	if o.given("scope") != "" && !slices.Contains(mcpScopes, o.Scope) {
		return "", fmt.Errorf("--scope must be user or workspace, not %q", o.Scope)
	}
	if o.given("transport") != "" && !slices.Contains(mcpTransports, o.Transport) {
		return "", fmt.Errorf("--transport must be stdio, http or sse, not %q", o.Transport)
	}
	return action, nil
}

// buildMCPServer makes the server that --mcp-add describes, refusing the
// flags its transport does not take.
func (o *mcpOptions) buildMCPServer(name string, command []string) (*mcpconf.Server, error) {
	transport := o.Transport
	if transport == "" {
		transport = mcpconf.HTTP
		if len(command) > 0 {
			transport = mcpconf.Stdio
		}
	}
	s := &mcpconf.Server{Name: name, Type: transport}
	if transport == mcpconf.Stdio {
		switch {
		case len(command) == 0:
			return nil, errors.New("a stdio MCP server needs a command: put it after --, as in coyote --mcp-add NAME -- npx some-server --flag")
		case o.given("url") != "":
			return nil, errors.New("a stdio MCP server takes no --url (give --transport http or sse for a remote server)")
		case o.given("header") != "":
			return nil, errors.New("a stdio MCP server takes no --header (use --env to pass it values)")
		case o.given(mcpOAuthFlags...) != "":
			return nil, fmt.Errorf("a stdio MCP server takes no OAuth flags (got %s)", o.given(mcpOAuthFlags...))
		}
		s.Command, s.Args = command[0], command[1:]
		for _, kv := range o.Env {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("invalid --env %q: write KEY=VALUE", kv)
			}
			if k == "" {
				return nil, fmt.Errorf("invalid --env %q: the KEY is empty", kv)
			}
			s.Env = setEnv(s.Env, k, v)
		}
		s.Cwd = o.Cwd
		return s, nil
	}
	switch {
	case len(command) > 0:
		return nil, fmt.Errorf("an %s MCP server takes no command after --: give its endpoint with --url", transport)
	case o.given("url") == "":
		return nil, fmt.Errorf("an %s MCP server needs --url URL (or give a stdio server's command after --)", transport)
	case o.given("env") != "":
		return nil, fmt.Errorf("an %s MCP server takes no --env: use --header instead", transport)
	case o.given("cwd") != "":
		return nil, fmt.Errorf("an %s MCP server takes no --cwd", transport)
	}
	s.URL = o.URL
	for _, h := range o.Header {
		n, v, ok := strings.Cut(h, ":")
		if !ok {
			return nil, fmt.Errorf("invalid --header %q: write \"Name: Value\"", h)
		}
		n, v = strings.TrimSpace(n), strings.TrimLeft(v, " ")
		switch {
		case n == "":
			return nil, fmt.Errorf("invalid --header %q: the header name is empty", h)
		case !httpguts.ValidHeaderFieldName(n):
			return nil, fmt.Errorf("invalid --header %q: %q is not a header name (letters, digits and -)", h, n)
		case !httpguts.ValidHeaderFieldValue(v):
			// A line break would start another header (or the body).
			return nil, fmt.Errorf("invalid --header %q: the value has a line break or a control character", h)
		}
		s.Headers = setHeader(s.Headers, n, v)
	}
	if o.given("redirect-host") != "" {
		if err := checkRedirectHost(o.RedirectHost); err != nil {
			return nil, err
		}
	}
	if o.given(mcpOAuthFlags...) != "" {
		s.OAuth = &mcpconf.OAuth{ClientID: o.ClientID, ClientSecret: o.ClientSecret, RedirectHost: o.RedirectHost}
		if o.given("callback-port") != "" {
			port, err := strconv.Atoi(o.CallbackPort)
			if err != nil || port < 0 || port > 65535 {
				return nil, fmt.Errorf("invalid --callback-port %q: give a port number from 0 to 65535", o.CallbackPort)
			}
			s.OAuth.CallbackPort = port
		}
	}
	return s, nil
}

// checkRedirectHost accepts a host name or an IP address (the host of the
// OAuth redirect URI, such as localhost or 127.0.0.1), nothing that
// would change the URI around it.
func checkRedirectHost(h string) error {
	u, err := url.Parse("http://" + h + "/")
	if err != nil || h == "" || u.Host != h || u.Port() != "" || strings.ContainsAny(h, " \t\r\n@/?#") {
		return fmt.Errorf("invalid --redirect-host %q: give a host name or IP address, such as localhost (the port is --callback-port)", h)
	}
	return nil
}

// setEnv sets k, replacing an earlier value in place.
func setEnv(env []mcpconf.EnvVar, k, v string) []mcpconf.EnvVar {
	for i := range env {
		if env[i].Name == k {
			env[i].Value = mcpconf.StringValue(v)
			return env
		}
	}
	return append(env, mcpconf.EnvVar{Name: k, Value: mcpconf.StringValue(v)})
}

// setHeader sets a header, replacing an earlier value in place.
func setHeader(hs []mcpconf.Header, n, v string) []mcpconf.Header {
	for i := range hs {
		if hs[i].Name == n {
			hs[i].Value = v
			return hs
		}
	}
	return append(hs, mcpconf.Header{Name: n, Value: v})
}

// runMCPAdd adds (or replaces) a server in the file of its scope.
func runMCPAdd(f *Factory, p config.Paths, o *mcpOptions, command []string) error {
	name := o.Add
	if !mcpconf.ValidName(name) {
		return mcpconf.NameError(name)
	}
	srv, err := o.buildMCPServer(name, command)
	if err != nil {
		return err
	}
	if err := srv.Validate(); err != nil {
		return err
	}
	path := mcpconf.UserFile(p)
	if o.Scope == mcpconf.ScopeWorkspace {
		if path = mcpconf.WorkspaceFile(p); path == "" {
			path = mcpconf.NewWorkspaceFile(p)
		}
	}
	file, err := mcpconf.ReadFile(path)
	if err != nil {
		return err
	}
	replacing := file.Get(name) != nil
	if replacing && !o.Force {
		ok, err := confirm(f, fmt.Sprintf("MCP server %q is already in %s. Replace it? [y/N] ", name, path), false)
		if errors.Is(err, errMCPNeedsForce) {
			return fmt.Errorf("MCP server %q is already in %s: add --mcp-force to replace it", name, path)
		}
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(f.IO.ErrOut, "Aborted: nothing changed. Add --mcp-force to replace it without asking.")
			return nil
		}
	}
	if err := offerSecrets(f, srv); err != nil {
		return err
	}
	file.Put(srv)
	if err := file.Save(); err != nil {
		return fmt.Errorf("save MCP server %q: %w", name, err)
	}
	if replacing {
		fmt.Fprintf(f.IO.ErrOut, "Replaced MCP server %s in %s.\n", name, path)
	} else {
		fmt.Fprintf(f.IO.ErrOut, "Added MCP server %s to %s.\n", name, path)
	}
	if o.Scope != mcpconf.ScopeWorkspace {
		if ws := mcpconf.WorkspaceFile(p); ws != "" {
			if wf, err := mcpconf.ReadFile(ws); err == nil && wf.Get(name) != nil {
				fmt.Fprintf(f.IO.ErrOut, "Note: the workspace's MCP server %s (%s) hides it in this directory.\n", name, ws)
			}
		}
	}
	return nil
}

// offerSecrets makes sure the vault has the secrets the server refers to:
// on a terminal it offers to add each missing one (its value read without
// echo); otherwise it says which are missing and how to add them.
func offerSecrets(f *Factory, srv *mcpconf.Server) error {
	names := srv.Placeholders()
	if len(names) == 0 {
		return nil
	}
	st, err := f.store()
	if err != nil {
		return err
	}
	ctx := context.Background()
	var missing []string
	for _, n := range names {
		ok, err := st.exists(ctx, n)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if !f.IO.IsStdinTTY() {
		if len(missing) == 1 {
			fmt.Fprintf(f.IO.ErrOut, "Warning: MCP server %s uses the secret %s, which is not in %s yet: add it with coyote --add-secret %s\n", srv.Name, missing[0], st.where(), missing[0])
		} else {
			fmt.Fprintf(f.IO.ErrOut, "Warning: MCP server %s uses the secrets %s, which are not in %s yet: add each with coyote --add-secret NAME\n", srv.Name, strings.Join(missing, ", "), st.where())
		}
		return nil
	}
	for _, n := range missing {
		ok, err := confirm(f, fmt.Sprintf("MCP server %s uses the secret %s, which is not in %s. Add it now? [Y/n] ", srv.Name, n, st.where()), true)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("MCP server %s was not added: it needs the secret %s; add it with coyote --add-secret %s, then add the server again", srv.Name, n, n)
		}
		if _, local := st.(localStore); local {
			_, pw, _ := f.Vault()
			if err := ensurePasswordFile(f, pw); err != nil {
				return err
			}
		}
		value, err := readSecret(f, "Value of "+n+": ")
		if err != nil {
			return err
		}
		if err := st.add(ctx, n, value); err != nil {
			return err
		}
		fmt.Fprintf(f.IO.ErrOut, "Added secret %s.\n", n)
	}
	return nil
}

// confirm asks a yes/no question on the terminal; def is the answer to an
// empty line. Without a terminal it returns errMCPNeedsForce.
func confirm(f *Factory, question string, def bool) (bool, error) {
	if !f.IO.IsStdinTTY() {
		return false, errMCPNeedsForce
	}
	fmt.Fprint(f.IO.ErrOut, question)
	line, err := f.stdin().ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("read the answer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "":
		return def, nil
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// runMCPRemove removes a server from its file, after asking unless force.
// Without --scope the server is looked for in both files; one in both must
// be chosen with --scope.
func runMCPRemove(f *Factory, p config.Paths, name, scope string, force, noWorkspace bool) error {
	file, err := findMCPServer(p, name, scope, noWorkspace)
	if err != nil {
		return err
	}
	path := file.Path
	if !force {
		ok, err := confirm(f, fmt.Sprintf("Remove MCP server %s from %s? [y/N] ", name, path), false)
		if errors.Is(err, errMCPNeedsForce) {
			return fmt.Errorf("removing MCP server %q from %s needs a yes on a terminal: add --mcp-force to remove it without asking", name, path)
		}
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(f.IO.ErrOut, "Aborted: nothing changed.")
			return nil
		}
	}
	file.Remove(name)
	if err := file.Save(); err != nil {
		return fmt.Errorf("remove MCP server %q: %w", name, err)
	}
	fmt.Fprintf(f.IO.ErrOut, "Removed MCP server %s from %s.\n", name, path)
	return nil
}

// findMCPServer finds the file that holds a server to remove.
func findMCPServer(p config.Paths, name, scope string, noWorkspace bool) (*mcpconf.File, error) {
	if scope != "" {
		file, _, err := scopeServer(p, name, scope)
		return file, err
	}
	user, err := mcpconf.ReadFile(mcpconf.UserFile(p))
	if err != nil {
		return nil, err
	}
	var ws *mcpconf.File
	wsPath := ""
	if !noWorkspace {
		wsPath = mcpconf.WorkspaceFile(p)
	}
	if wsPath != "" {
		if ws, err = mcpconf.ReadFile(wsPath); err != nil {
			return nil, err
		}
	}
	inUser, inWS := user.Get(name) != nil, ws != nil && ws.Get(name) != nil
	switch {
	case inUser && inWS:
		return nil, fmt.Errorf("MCP server %q is in both %s and %s: choose one with --scope user or --scope workspace", name, user.Path, ws.Path)
	case inUser:
		return user, nil
	case inWS:
		return ws, nil
	}
	return nil, notFound(name, user.Path, wsPath)
}

// scopeServer reads the existing file of a scope and finds a server in
// it.
func scopeServer(p config.Paths, name, scope string) (*mcpconf.File, *mcpconf.Server, error) {
	path := mcpconf.UserFile(p)
	if scope == mcpconf.ScopeWorkspace {
		if path = mcpconf.WorkspaceFile(p); path == "" {
			return nil, nil, fmt.Errorf("this workspace has no MCP servers: no %s", orList(mcpconf.WorkspaceCandidatesOf(p)))
		}
	}
	file, err := mcpconf.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	srv := file.Get(name)
	if srv == nil {
		return nil, nil, fmt.Errorf("MCP server %q is not in the %s file %s", name, scope, path)
	}
	return file, srv, nil
}

func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// notFound is the error for a server in neither file; wsPath is "" for no
// workspace file.
func notFound(name, userPath, wsPath string) error {
	where := userPath
	if wsPath != "" {
		where += " or " + wsPath
	}
	return fmt.Errorf("MCP server %q is not in %s: see coyote --mcp-list", name, where)
}

// runMCPGet prints the JSON of a server as written in its file (secrets
// not filled in) on stdout, and which file on stderr. Without --scope it
// is the server in use: a workspace server hides a user one.
func runMCPGet(f *Factory, p config.Paths, name, scope string, noWorkspace bool) error {
	var entry mcpconf.Entry
	if scope != "" {
		file, srv, err := scopeServer(p, name, scope)
		if err != nil {
			return err
		}
		entry = mcpconf.Entry{Server: srv, Scope: scope, Path: file.Path}
	} else {
		set, err := mcpconf.LoadPaths(p, noWorkspace)
		if err != nil {
			return err
		}
		var ok bool
		if entry, ok = set.Lookup(name); !ok {
			return notFound(name, set.User, set.Workspace)
		}
	}
	note := ""
	if entry.Shadows {
		note = ", hiding the user server of the same name"
	}
	fmt.Fprintf(f.IO.ErrOut, "# %s (%s scope%s)\n", entry.Path, entry.Scope, note)
	_, err := fmt.Fprintf(f.IO.Out, "%s\n", entry.JSON())
	return err
}

// runMCPList prints the servers of the user file, then of the workspace's,
// with their transport and command or URL, marking the user servers that a
// workspace one hides.
func runMCPList(out io.Writer, p config.Paths, scope string, noWorkspace bool, gate *trust.Gate) error {
	userPath, wsPath := mcpconf.UserFile(p), mcpconf.WorkspaceFile(p)
	if scope == mcpconf.ScopeUser || scope == "" && noWorkspace {
		wsPath = ""
	}
	if scope == mcpconf.ScopeWorkspace {
		userPath = ""
	}
	set, err := mcpconf.Load(userPath, wsPath, false)
	if err != nil {
		return err
	}
	width := 0
	for _, e := range set.Entries {
		width = max(width, len(e.Name))
	}
	section := func(title, path, scope string) {
		fmt.Fprintf(out, "%s (%s)\n", title, path)
		n := 0
		for _, e := range set.Entries {
			if e.Scope != scope {
				continue
			}
			n++
			mark := ""
			switch {
			case e.Shadowed:
				mark = "  (hidden by the workspace's " + e.Name + ")"
			case e.Shadows:
				mark = "  (hides the user's " + e.Name + ")"
			}
			fmt.Fprintf(out, "  %-*s  %-5s  %s%s\n", width, e.Name, e.Transport(), e.Target(), mark)
		}
		if n == 0 {
			fmt.Fprintln(out, "  (none)")
		}
	}
	if userPath != "" {
		section("User", userPath, mcpconf.ScopeUser)
	}
	switch {
	case wsPath != "":
		if userPath != "" {
			fmt.Fprintln(out)
		}
		section("Workspace", wsPath, mcpconf.ScopeWorkspace)
		if sub := set.Subject(); sub.NeedsTrust() {
			// What the file declares is listed; whether it is used is the
			// trust rule's (README: Workspaces and trust).
			switch st := gate.State(sub); st {
			case trust.Trusted:
			default:
				fmt.Fprintf(out, "  (%s: these servers are not used until approved; run with --trust-workspace, or .workspace trust in the REPL)\n", st)
			}
		}
	case scope == mcpconf.ScopeWorkspace:
		fmt.Fprintf(out, "Workspace: no MCP servers (no %s)\n", orList(mcpconf.WorkspaceCandidatesOf(p)))
	}
	return nil
}
