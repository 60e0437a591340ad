package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/coyote-cli/coyote/kernel/plugins"
)

func newPluginsCmd(f *Factory, opts *rootOptions, runF func(context.Context, *rootOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugins",
		Short: "List the plugins coyote finds, starting each to ask its version and capabilities",
		Long: `List every plugin binary (coyote-<kind>-<name>) in the plugin search path:
each entry of $COYOTE_PLUGINS_DIR, <config dir>/plugins, <coyote's dir>/plugins
and <coyote's dir>/../lib/coyote/plugins. The first binary of a name wins.

Any further words make it a prompt: "coyote plugins for vim" asks the model.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				// Not a listing: the user is asking about plugins.
				opts.Text = append([]string{"plugins"}, args...)
				if runF != nil {
					return runF(cmd.Context(), opts)
				}
				return runPrompt(cmd.Context(), f, cmd, opts)
			}
			return runPlugins(cmd.Context(), f)
		},
	}
	cmd.Flags().SetInterspersed(false)
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
	reports := host.Inspect(ctx, found)
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tVERSION\tPROTOCOL\tCAPABILITIES\tPATH")
	for _, r := range reports {
		version, proto, caps := "-", "-", ""
		if r.Desc != nil {
			version, proto = r.Desc.Version, strconv.Itoa(r.Desc.ProtocolVersion)
			caps = strings.Join(r.Desc.Capabilities, ",")
		}
		if r.Err != nil {
			caps = "error: " + oneLine(r.Err.Error())
		}
		path := r.Path
		if r.AliasOf != "" {
			path += " (alias of " + r.AliasOf + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Binary, r.Kind, version, proto, caps, path)
		for _, s := range r.Shadowed {
			fmt.Fprintf(tw, "\t\t\t\t(shadows %s)\t\n", s)
		}
	}
	return tw.Flush()
}
