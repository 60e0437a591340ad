package cli

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/coyote-cli/coyote/kernel/buildinfo"
	"github.com/coyote-cli/coyote/kernel/config"
)

// runInfo prints every setting with its effective value and where that
// value came from, then Coyote's files and directories.
func runInfo(f *Factory) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "version\t%s\t\n", buildinfo.Version)
	cfg, err := f.Config()
	switch {
	case errors.Is(err, config.ErrNoConfig):
		fmt.Fprintf(tw, "config\tnone: %s does not exist\t\n", p.ConfigFile)
	case err != nil:
		return err
	default:
		for _, k := range config.Keys {
			v := cfg.Get(k.Name)
			fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Name, v.Format(), v.Src)
		}
		names := "none"
		if len(cfg.Clients) > 0 {
			names = cfg.ClientNames()
		}
		fmt.Fprintf(tw, "clients\t%s\t\n", names)
	}
	for _, kv := range p.List() {
		fmt.Fprintf(tw, "%s\t%s\t\n", kv[0], kv[1])
	}
	return tw.Flush()
}
