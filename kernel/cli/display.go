package cli

import (
	"os"

	"golang.org/x/term"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/render"
)

// display picks how a reply is shown: rendered markdown on a terminal,
// plain text everywhere else (pipes and files get exactly what the model
// wrote).
func display(f *Factory, cfg *config.Config, rawMarkdown bool) chat.Display {
	out, ok := f.IO.Out.(*os.File)
	if !ok || !f.IO.IsStdoutTTY() {
		return chat.Plain(f.IO.Out)
	}
	width, height, _ := term.GetSize(int(out.Fd()))
	theme := themeName(cfg.String("theme"), f.Env)
	highlight := cfg.Bool("highlight") && f.Env("NO_COLOR") == ""
	var custom *render.Theme
	if highlight {
		custom = userTheme(f, theme)
	}
	colorterm := f.Env("COLORTERM")
	return render.New(out, render.Options{
		Width:       width,
		Height:      height,
		Wrap:        cfg.String("wrap"),
		WrapCode:    cfg.Bool("wrap_code"),
		Highlight:   highlight,
		RawMarkdown: rawMarkdown || cfg.Bool("raw_markdown"),
		Theme:       theme,
		Custom:      custom,
		TrueColor:   colorterm == "truecolor" || colorterm == "24bit",
		Hyperlinks:  colorterm == "truecolor" || colorterm == "24bit",
	})
}
