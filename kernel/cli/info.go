package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/convo"
)

// runInfo prints every setting with its effective value and where that
// value came from, then Coyote's files and directories. With -r, --prompt,
// -s or -m the settings are those of that role, session or model, as the
// REPL's .info would show them. Without a config file there are no
// settings to show, and a row after the version says so; the role or
// session and the files are shown all the same.
func runInfo(ctx context.Context, f *Factory, opts *rootOptions) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	cfg, err := f.Config()
	noConfig := errors.Is(err, config.ErrNoConfig)
	if err != nil && !noConfig {
		return err
	}
	st, err := newConversation(ctx, f, cfg, opts)
	if err != nil {
		return err
	}
	rows := st.Info()
	if noConfig {
		at := slices.IndexFunc(rows, func(r convo.InfoRow) bool { return r.Key == "version" }) + 1
		rows = slices.Insert(rows, at, convo.InfoRow{Key: "config", Value: fmt.Sprintf("none: %s does not exist", p.ConfigFile)})
	}
	return convo.WriteInfo(f.IO.Out, rows)
}
