package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/install"
	"github.com/coyote-cli/coyote/kernel/mcpconf"
	"github.com/coyote-cli/coyote/kernel/repl"
)

// installOptions are --install, --install-from and their modifiers.
type installOptions struct {
	Bundled string   // --install KIND
	From    string   // --install-from URL[#ref]
	Filter  []string // --filter KIND (repeatable, or a,b)
	Force   bool     // --install-force
}

func addInstallFlags(cmd *cobra.Command, o *installOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.Bundled, "install", "", "reinstall the bundled `KIND`: agents, macros, functions, skills or mcp_config (asks before replacing a changed file), then exit")
	fl.StringVar(&o.From, "install-from", "", "install the agents, roles, skills, macros, tools and MCP servers of the git repository `URL` (URL#branch for a branch or tag), then exit")
	fl.StringSliceVar(&o.Filter, "filter", nil, "with --install-from: install only `KIND`s: agents, roles, skills, macros, functions, mcp_config (repeatable)")
	fl.BoolVar(&o.Force, "install-force", false, "with --install or --install-from: replace changed files and MCP servers without asking")
	_ = cmd.RegisterFlagCompletionFunc("install", cobra.FixedCompletions(install.BundledKinds, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("filter", cobra.FixedCompletions(install.Kinds, cobra.ShellCompDirectiveNoFileComp))
}

func (o *installOptions) active() bool {
	return o.Bundled != "" || o.From != "" || o.Filter != nil || o.Force
}

// runInstall checks the flags and runs --install or --install-from.
func runInstall(ctx context.Context, f *Factory, o *installOptions, args []string) error {
	switch {
	case o.Bundled != "" && o.From != "":
		return &UsageError{Err: errors.New("use --install or --install-from, not both")}
	case o.Bundled == "" && o.From == "":
		if o.Filter != nil {
			return &UsageError{Err: errors.New("--filter goes with --install-from")}
		}
		return &UsageError{Err: errors.New("--install-force goes with --install or --install-from")}
	case o.Bundled != "" && o.Filter != nil:
		return &UsageError{Err: errors.New("--filter goes with --install-from, not with --install")}
	case len(args) > 0:
		return &UsageError{Err: fmt.Errorf("unexpected argument %q: --install and --install-from take no text", args[0])}
	}
	p, err := f.Paths()
	if err != nil {
		return err
	}
	if o.Bundled != "" {
		if !slices.Contains(install.BundledKinds, o.Bundled) {
			return &UsageError{Err: fmt.Errorf("--install %q: choose among %s", o.Bundled, strings.Join(install.BundledKinds, ", "))}
		}
		return runInstallBundled(f, p, o)
	}
	return runInstallFrom(ctx, f, p, o)
}

// runInstallBundled reinstalls the binary's own files of a kind.
func runInstallBundled(f *Factory, p config.Paths, o *installOptions) error {
	in := &installer{f: f, force: o.Force}
	if o.Bundled == "mcp_config" {
		src, err := mcpconf.Parse("bundled mcp.json", assets.MCPConfig())
		if err != nil {
			return err
		}
		return in.run(nil, src, p, "the bundled mcp.json")
	}
	return in.run(install.BundledParts(o.Bundled, p), nil, p, "the bundled "+o.Bundled)
}

// runInstallFrom clones the repository into a temporary folder and
// installs what the filter keeps of it.
func runInstallFrom(ctx context.Context, f *Factory, p config.Paths, o *installOptions) error {
	want, err := install.ParseFilter(o.Filter)
	if err != nil {
		return &UsageError{Err: err}
	}
	url, ref := install.SplitRef(o.From)
	if url == "" {
		return &UsageError{Err: errors.New("--install-from needs a repository URL (URL or URL#branch)")}
	}
	tmp, err := os.MkdirTemp("", "coyote-install-*")
	if err != nil {
		return fmt.Errorf("install from %s: %w", o.From, err)
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "repo")
	if f.IO.IsStderrTTY() {
		fmt.Fprintf(f.IO.ErrOut, "Cloning %s…\n", o.From)
	}
	if err := install.Clone(ctx, url, ref, root); err != nil {
		return err
	}
	parts := install.RemoteParts(root, p, want)
	var src *mcpconf.File
	if want["mcp_config"] {
		path := filepath.Join(root, "functions", "mcp.json")
		if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if src, err = mcpconf.Parse(o.From+": functions/mcp.json", data); err != nil {
				return err
			}
		}
	}
	if len(parts) == 0 && src == nil {
		return fmt.Errorf("nothing to install from %s: it has none of agents/, roles/, skills/, macros/, functions/tools/ or functions/mcp.json%s", o.From, filterNote(o.Filter))
	}
	in := &installer{f: f, force: o.Force}
	return in.run(parts, src, p, o.From)
}

func filterNote(filter []string) string {
	if filter == nil {
		return ""
	}
	return " that --filter keeps"
}

// installer asks about conflicts (or not, with force) and reports.
type installer struct {
	f     *Factory
	force bool
	// conflicts are the conflicts met without a terminal (and without
	// force), for one error naming them.
	conflicts []string
}

// run plans, asks, writes the files, merges the servers, offers their
// secrets and lists what was written.
func (in *installer) run(parts []install.Part, src *mcpconf.File, p config.Paths, from string) error {
	f := in.f
	plan, err := install.MakePlan(parts, in.resolveFile)
	if err != nil {
		return in.fail(err)
	}
	var dst *mcpconf.File
	var changes []install.ServerChange
	var keptServers []string
	if src != nil {
		if dst, err = mcpconf.ReadFile(mcpconf.UserFile(p)); err != nil {
			return err
		}
		if changes, keptServers, err = install.MergeMCP(dst, src, in.resolveServer); err != nil {
			return in.fail(err)
		}
	}
	if len(in.conflicts) > 0 {
		return in.fail(nil)
	}
	written, err := install.Apply(plan)
	if err != nil {
		return err
	}
	if len(changes) > 0 {
		if err := dst.Save(); err != nil {
			return fmt.Errorf("save %s: %w", dst.Path, err)
		}
	}
	in.report(plan, written, dst, changes, keptServers, from)
	for _, c := range changes {
		in.offerSecrets(c.Server)
	}
	for _, fl := range plan.Files {
		if name, ok := strings.CutSuffix(fl.Name, ".yaml"); ok && fl.Part.Kind == "macros" && !strings.Contains(name, "/") && repl.IsCommand(name) {
			fmt.Fprintf(f.IO.ErrOut, "Warning: macro %s has the name of the built-in command .%s: it runs only as .macro %s.\n", name, name, name)
		}
	}
	return nil
}

// fail turns a planning error into the user's one line.
func (in *installer) fail(err error) error {
	if errors.Is(err, install.ErrAborted) {
		fmt.Fprintln(in.f.IO.ErrOut, "Aborted: nothing was installed.")
		return nil
	}
	if err != nil {
		return err
	}
	n := len(in.conflicts)
	what := in.conflicts[0] + " is"
	if n > 1 {
		what = fmt.Sprintf("%s and %d more are", in.conflicts[0], n-1)
	}
	return fmt.Errorf("nothing was installed: %s already there with other content; run in a terminal to choose, or add --install-force to replace them", what)
}

// resolveFile asks what to do with a changed file.
func (in *installer) resolveFile(fl install.File) (install.Choice, error) {
	if in.force {
		return install.Replace, nil
	}
	if !in.f.IO.IsStdinTTY() {
		in.conflicts = append(in.conflicts, fl.Shown())
		return install.Keep, nil
	}
	for {
		fmt.Fprintf(in.f.IO.ErrOut, "%s exists with other content (%s).\n  (k)eep yours, (r)eplace it, keep (a)ll, replace a(l)l, a(b)ort? [k] ", fl.Shown(), fl.Dest)
		switch in.answer() {
		case "", "k", "keep":
			return install.Keep, nil
		case "r", "replace":
			return install.Replace, nil
		case "a", "keep-all":
			return install.KeepAll, nil
		case "l", "replace-all":
			return install.ReplaceAll, nil
		case "b", "abort":
			return install.Abort, nil
		}
	}
}

// resolveServer asks what to do with a changed MCP server.
func (in *installer) resolveServer(mine, theirs *mcpconf.Server) (install.ServerChoice, error) {
	if in.force {
		return install.TakeServer, nil
	}
	if !in.f.IO.IsStdinTTY() {
		in.conflicts = append(in.conflicts, "MCP server "+mine.Name)
		return install.KeepServer, nil
	}
	for {
		fmt.Fprintf(in.f.IO.ErrOut, "MCP server %s is already in your mcp.json, defined otherwise.\n  yours:  %s\n  theirs: %s\n  (k)eep yours, (t)ake theirs, (r)ename theirs to %s-remote, a(b)ort? [k] ",
			mine.Name, compactServer(mine), compactServer(theirs), theirs.Name)
		switch in.answer() {
		case "", "k", "keep":
			return install.KeepServer, nil
		case "t", "take":
			return install.TakeServer, nil
		case "r", "rename":
			return install.RenameServer, nil
		case "b", "abort":
			return install.AbortServers, nil
		}
	}
}

// answer reads one answer line; at the end of input it answers abort.
func (in *installer) answer() string {
	line, err := in.f.stdin().ReadString('\n')
	if err != nil && line == "" {
		return "b"
	}
	return strings.ToLower(strings.TrimSpace(line))
}

func compactServer(s *mcpconf.Server) string {
	return strings.Join(strings.Fields(string(s.JSON())), " ")
}

// report lists on stdout what was written, one path a line.
func (in *installer) report(plan *install.Plan, written []string, dst *mcpconf.File, changes []install.ServerChange, keptServers []string, from string) {
	out, errOut := in.f.IO.Out, in.f.IO.ErrOut
	replaced := map[string]bool{}
	for _, fl := range plan.Files {
		replaced[fl.Dest] = fl.Replaces
	}
	for _, w := range written {
		if replaced[w] {
			fmt.Fprintf(out, "replaced  %s\n", w)
		} else {
			fmt.Fprintf(out, "added     %s\n", w)
		}
	}
	for _, c := range changes {
		switch {
		case c.Replaces:
			fmt.Fprintf(out, "replaced  MCP server %s in %s\n", c.Server.Name, dst.Path)
		case c.From != "":
			fmt.Fprintf(out, "added     MCP server %s (theirs of %s) to %s\n", c.Server.Name, c.From, dst.Path)
		default:
			fmt.Fprintf(out, "added     MCP server %s to %s\n", c.Server.Name, dst.Path)
		}
	}
	for _, s := range plan.Skipped {
		fmt.Fprintf(errOut, "Skipped %s: not a regular file.\n", s)
	}
	kept := len(plan.Kept) + len(keptServers)
	summary := fmt.Sprintf("Installed %d files", len(written))
	if len(changes) > 0 {
		summary += fmt.Sprintf(" and %d MCP servers", len(changes))
	}
	summary += " from " + from
	if plan.Same > 0 {
		summary += fmt.Sprintf("; %d already there unchanged", plan.Same)
	}
	if kept > 0 {
		summary += fmt.Sprintf("; kept %d of yours", kept)
	}
	fmt.Fprintln(errOut, summary+".")
}

// offerSecrets offers to add to the vault the secrets an installed server
// refers to and the vault lacks; declining leaves the server installed
// with a note on how to add them later.
func (in *installer) offerSecrets(srv *mcpconf.Server) {
	f := in.f
	names := srv.Placeholders()
	if len(names) == 0 {
		return
	}
	v, pw, err := f.Vault()
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "Warning: MCP server %s needs the secrets %s: %v\n", srv.Name, strings.Join(names, ", "), err)
		return
	}
	for _, n := range names {
		ok, err := v.Exists(n)
		if err != nil || ok {
			continue
		}
		if !f.IO.IsStdinTTY() {
			fmt.Fprintf(f.IO.ErrOut, "Note: MCP server %s uses the secret %s, which is not in the vault yet: add it with coyote --add-secret %s\n", srv.Name, n, n)
			continue
		}
		yes, err := confirm(f, fmt.Sprintf("MCP server %s uses the secret %s, which is not in the vault. Add it now? [Y/n] ", srv.Name, n), true)
		if err != nil || !yes {
			fmt.Fprintf(f.IO.ErrOut, "Add it later with coyote --add-secret %s.\n", n)
			continue
		}
		if err := ensurePasswordFile(f, pw); err != nil {
			fmt.Fprintf(f.IO.ErrOut, "Warning: %v\n", err)
			return
		}
		value, err := readSecret(f, "Value of "+n+": ")
		if err == nil {
			err = v.Set(n, value)
		}
		if err != nil {
			fmt.Fprintf(f.IO.ErrOut, "Warning: secret %s was not added: %v\n", n, err)
			continue
		}
		fmt.Fprintf(f.IO.ErrOut, "Added secret %s.\n", n)
	}
}
