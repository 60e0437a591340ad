package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/coyote-cli/coyote/kernel/buildinfo"
	"github.com/coyote-cli/coyote/kernel/update"
)

// updateNewest is --update's value when no version follows it.
const updateNewest = "newest"

// updateOptions are --update [VERSION] and --force.
type updateOptions struct {
	Version string
	Force   bool
}

func addUpdateFlags(cmd *cobra.Command, o *updateOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.Version, "update", "", "replace coyote and its plugins with the newest release (or `VERSION`) from the release feed (update_feed), then exit")
	fl.Lookup("update").NoOptDefVal = updateNewest
	fl.BoolVar(&o.Force, "force", false, "with --update: update a package manager's install, or reinstall the same version")
}

func (o *updateOptions) active() bool { return o.Version != "" || o.Force }

// runUpdate is --update: the release feed's archive for this OS and
// architecture, checked, replaces the binary and its plugins.
func runUpdate(ctx context.Context, f *Factory, o *updateOptions, args []string) error {
	switch {
	case o.Version == "":
		return &UsageError{Err: errors.New("--force goes with --update")}
	case len(args) > 0:
		return &UsageError{Err: fmt.Errorf("unexpected argument %q: --update takes at most a version", args[0])}
	}
	feed := update.DefaultFeed
	if cfg, err := f.Config(); err != nil {
		// No config yet, or one this version cannot read (which an
		// update may fix): the environment's feed, else the default.
		if s := f.Env("COYOTE_UPDATE_FEED"); s != "" {
			feed = s
		}
		fmt.Fprintf(f.IO.ErrOut, "note: config.yaml not read; the release feed is %s\n", feed)
	} else if s := cfg.String("update_feed"); s != "" {
		feed = s
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the coyote binary: %w", err)
	}
	want := o.Version
	if want == updateNewest {
		want = ""
	}
	res, err := update.Run(ctx, update.Options{
		FeedURL:   feed,
		Version:   want,
		Force:     o.Force,
		Current:   buildinfo.Version,
		Exe:       exe,
		UserAgent: "coyote/" + buildinfo.Version,
		Log:       f.IO.ErrOut,
	})
	if err != nil {
		return err
	}
	if res.UpToDate {
		_, err := fmt.Fprintf(f.IO.Out, "coyote %s is installed; the feed's %s is not newer (--force reinstalls it)\n", res.From, res.To)
		return err
	}
	if res.Unsigned {
		fmt.Fprintln(f.IO.ErrOut, "note: this build has no release key; the download was checked by its SHA-256 only")
	}
	_, err = fmt.Fprintf(f.IO.Out, "Updated coyote %s -> %s: %s and %d plugins in %s\n", res.From, res.To, res.Exe, res.Plugins, res.PluginDir)
	return err
}
