package assets

import (
	"embed"
	"path"
)

//go:embed shell/*
var shell embed.FS

// ShellFiles maps each shell --shell-integration knows to its script.
var ShellFiles = map[string]string{
	"bash":       "bash.sh",
	"zsh":        "zsh.zsh",
	"fish":       "fish.fish",
	"nushell":    "nushell.nu",
	"elvish":     "elvish.elv",
	"powershell": "powershell.ps1",
}

// ShellIntegration is the Alt+E widget of a shell (bash, zsh, fish,
// nushell, elvish, powershell): it replaces the command line with what
// `coyote -e` prints for it.
func ShellIntegration(sh string) ([]byte, bool) {
	name, ok := ShellFiles[sh]
	if !ok {
		return nil, false
	}
	b, err := shell.ReadFile(path.Join("shell", name))
	return b, err == nil
}
