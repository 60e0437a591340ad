package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/sandbox"
)

func newPluginsCmd(f *Factory, opts *rootOptions, runF func(context.Context, *rootOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugins",
		Short: "List the plugins coyote finds, starting each to ask its version and capabilities",
		Long: `List every plugin binary (coyote-<kind>-<name>) in the plugin search path:
each entry of $COYOTE_PLUGINS_DIR, <config dir>/plugins, <coyote's dir>/plugins
and <coyote's dir>/../lib/coyote/plugins. The first binary of a name wins.
With a plugin lock (see "coyote plugins lock"), a LOCK column says how
each plugin stands against it; the last line says where the lock is.

Any further words make it a prompt: "coyote plugins for vim" asks the model.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				// Not a listing: the user is asking about plugins.
				opts.Text = append([]string{"plugins"}, args...)
				if runF != nil {
					return runF(cmd.Context(), opts)
				}
				return runPrompt(cmd.Context(), f, opts)
			}
			return runPlugins(cmd.Context(), f)
		},
	}
	cmd.Flags().SetInterspersed(false)
	cmd.AddCommand(&cobra.Command{
		Use:   "lock",
		Short: "Pin every plugin found to its SHA-256, in <config dir>/" + plugins.LockFileName,
		Long: `Write the SHA-256 of every plugin binary found into the plugin lock,
<config dir>/` + plugins.LockFileName + `, replacing it. From then on coyote
launches only plugins whose binary has the digest the lock lists under its
name: a changed binary, or a plugin added later, is refused until you run
"coyote plugins lock" again. Remove the file to stop checking.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPluginsLock(f) },
	}, &cobra.Command{
		Use:   "verify",
		Short: "Check every plugin found against the plugin lock; exit 1 on a mismatch",
		Long: `Hash every plugin binary found and compare it with the plugin lock,
<config dir>/` + plugins.LockFileName + `. Exits 1 when a binary does not
match, is not in the lock, or cannot be read (coyote would refuse to launch
it), or when there is no lock.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPluginsVerify(f) },
	})
	return cmd
}

// runPlugins prints one line per plugin found. A plugin that cannot be
// started is listed with the reason instead of its version.
func runPlugins(ctx context.Context, f *Factory) error {
	host, err := f.Host()
	if err != nil {
		return err
	}
	found := plugins.Discover(host.Dirs())
	if len(found) == 0 {
		_, err := fmt.Fprintf(f.IO.Out, "no plugins found in %s\n", strings.Join(host.Dirs(), ", "))
		return err
	}
	lock, checks, lockErr := host.CheckLock(found, false)
	// The LOCK column appears with a lock: without one nothing changes,
	// and the last line says there is none.
	withLock := lock != nil || lockErr != nil
	reports := host.Inspect(ctx, found, checks)
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	lockHeader, lockBlank := "", ""
	if withLock {
		lockHeader, lockBlank = "LOCK\t", "\t"
	}
	fmt.Fprintln(tw, "NAME\tKIND\tVERSION\tPROTOCOL\t"+lockHeader+"CAPABILITIES\tPATH")
	for i, r := range reports {
		version, proto, caps := "-", "-", ""
		if r.Desc != nil {
			version, proto = r.Desc.Version, strconv.Itoa(r.Desc.ProtocolVersion)
			caps = strings.Join(r.Desc.Capabilities, ",")
		}
		if r.Err != nil {
			caps = "error: " + oneLine(r.Err.Error())
		}
		state := ""
		switch {
		case lockErr != nil:
			state = "?\t"
		case withLock:
			state = checks[i].State.String() + "\t"
		}
		path := r.Path
		if r.AliasOf != "" {
			path += " (alias of " + r.AliasOf + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s\t%s\n", r.Binary, r.Kind, version, proto, state, caps, path)
		for _, s := range r.Shadowed {
			fmt.Fprintf(tw, "\t\t\t\t%s(shadows %s)\t\n", lockBlank, s)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range reports {
		if r.Kind == sdk.KindSandbox && r.Err == nil && r.Desc != nil {
			sandboxBackends(ctx, f, host)
		}
	}
	_, err = fmt.Fprintln(f.IO.Out, lockSummary(host.LockFile(), lock, checks, lockErr))
	return err
}

// sandboxBackends lists the sandbox launcher's backends under the table:
// which are available here, and why the others are not.
func sandboxBackends(ctx context.Context, f *Factory, host *plugins.Host) {
	l, err := host.Sandbox()
	if err != nil {
		return
	}
	resp, err := l.Backends(ctx, &sandbox.BackendsRequest{})
	if err != nil {
		fmt.Fprintf(f.IO.Out, "sandbox backends: unknown (%s)\n", oneLine(err.Error()))
		return
	}
	for _, b := range resp.Backends {
		state := "available"
		if !b.Available {
			state = "unavailable: " + b.Reason
		}
		fmt.Fprintf(f.IO.Out, "sandbox backend %s: %s\n", b.Name, state)
	}
}

// lockSummary is the last line of the listing: where the lock is and how
// the plugins stand against it.
func lockSummary(path string, lock *plugins.Lock, checks []plugins.LockCheck, err error) string {
	if err != nil {
		// The error says how to fix the lock.
		return "plugin lock: every plugin is refused: " + oneLine(err.Error())
	}
	if lock == nil {
		return "plugin lock: none (`coyote plugins lock` pins the plugins above to their SHA-256)"
	}
	bad := 0
	for _, c := range checks {
		if c.State != plugins.Locked {
			bad++
		}
	}
	msg := fmt.Sprintf("plugin lock: %s, %d plugins", path, len(lock.Plugins))
	if bad > 0 {
		msg += fmt.Sprintf("; %d found do not match it and are refused (`coyote plugins verify` says why)", bad)
	}
	return msg
}

// runPluginsLock writes the lock with every plugin found.
func runPluginsLock(f *Factory) error {
	host, err := f.Host()
	if err != nil {
		return err
	}
	found := plugins.Discover(host.Dirs())
	if len(found) == 0 {
		return fmt.Errorf("no plugins found in %s; nothing to lock", strings.Join(host.Dirs(), ", "))
	}
	lock, err := host.WriteLock(found)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	for _, name := range lock.LockedNames() {
		e := lock.Plugins[name]
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, e.SHA256, e.Path)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(f.IO.Out, "locked %d plugins in %s\n", len(lock.Plugins), host.LockFile())
	return err
}

// runPluginsVerify hashes every plugin found and compares it with the
// lock; any plugin coyote would refuse is an error.
func runPluginsVerify(f *Factory) error {
	host, err := f.Host()
	if err != nil {
		return err
	}
	found := plugins.Discover(host.Dirs())
	lock, checks, err := host.CheckLock(found, true)
	if err != nil {
		return err
	}
	if lock == nil {
		return fmt.Errorf("no plugin lock at %s; `coyote plugins lock` creates one", host.LockFile())
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	bad := 0
	seen := map[string]bool{}
	for _, c := range checks {
		seen[c.Binary] = true
		detail := c.Path
		switch c.State {
		case plugins.Mismatch:
			detail = fmt.Sprintf("%s: expected sha256 %s, found %s", c.Path, c.Want, c.Got)
		case plugins.Unlocked:
			detail = c.Path + ": not in the lock"
		case plugins.Unreadable:
			detail = c.Path + ": " + oneLine(c.Err.Error())
		}
		if c.State != plugins.Locked {
			bad++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.State, c.Binary, detail)
	}
	for _, name := range lock.LockedNames() {
		if !seen[name] {
			fmt.Fprintf(tw, "missing\t%s\t%s: in the lock, not found\n", name, lock.Plugins[name].Path)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if bad > 0 {
		return errors.New(plural(bad, "plugin does", "plugins do") + " not match the plugin lock " + host.LockFile() +
			"; if you trust them, run `coyote plugins lock` again")
	}
	_, err = fmt.Fprintf(f.IO.Out, "all %d plugins match %s\n", len(checks), host.LockFile())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
