# Coyote shell integration for nushell: Alt+E turns the command line into
# a shell command written by `coyote -e`. Save it and source it from
# config.nu:
#   coyote --shell-integration nushell | save -f ~/.config/nushell/coyote.nu
#   source ~/.config/nushell/coyote.nu
$env.config = ($env.config | upsert keybindings ($env.config.keybindings | append {
    name: coyote_execute
    modifier: alt
    keycode: char_e
    mode: [emacs vi_insert vi_normal]
    event: [{
        send: executehostcommand
        cmd: "let line = (commandline); if ($line | is-not-empty) { let out = (^coyote -e $line | complete); if ($out.exit_code == 0 and ($out.stdout | str trim | is-not-empty)) { commandline edit --replace ($out.stdout | str trim) } }"
    }]
}))
