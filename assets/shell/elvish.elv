# Coyote shell integration for elvish: Alt+E turns the command line into a
# shell command written by `coyote -e`. Load it from rc.elv:
#   eval (coyote --shell-integration elvish | slurp)
use str
set edit:insert:binding[Alt-e] = {
    var line = $edit:current-command
    if (eq $line '') { return }
    try {
        var out = (coyote -e $line < /dev/null 2>/dev/null | slurp)
        set out = (str:trim-right $out "\n")
        if (not-eq $out '') {
            set edit:current-command = $out
            set edit:-dot = (count $out)
        }
    } catch { }
}
