# Coyote shell integration for fish: Alt+E turns the command line into a
# shell command written by `coyote -e`. Load it from config.fish:
#   coyote --shell-integration fish | source
function __coyote_widget
    set -l line (commandline)
    test -n "$line"; or return
    set -l out (coyote -e "$line" </dev/null 2>/dev/null | string collect)
    if test -n "$out"
        commandline --replace -- $out
        commandline --cursor (string length -- $out)
    end
    commandline -f repaint
end
bind \ee __coyote_widget
