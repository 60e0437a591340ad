package cli

import (
	"errors"
	"fmt"

	"github.com/coyote-cli/coyote/kernel/buildinfo"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/convo"
)

// runInfo prints every setting with its effective value and where that
// value came from, then Coyote's files and directories. With -r, --prompt,
// -s or -m the settings are those of that role, session or model, as the
// REPL's .info would show them.
func runInfo(f *Factory, opts *rootOptions) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	cfg, err := f.Config()
	switch {
	case errors.Is(err, config.ErrNoConfig):
		rows := []convo.InfoRow{{Key: "version", Value: buildinfo.String()},
			{Key: "config", Value: fmt.Sprintf("none: %s does not exist", p.ConfigFile)}}
		for _, kv := range p.List() {
			rows = append(rows, convo.InfoRow{Key: kv[0], Value: kv[1]})
		}
		return convo.WriteInfo(f.IO.Out, rows)
	case err != nil:
		return err
	}
	st, err := newConversation(f, cfg, opts)
	if err != nil {
		return err
	}
	return convo.WriteInfo(f.IO.Out, st.Info())
}
