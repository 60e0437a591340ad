# Coyote completion for elvish. Load it from rc.elv:
#   eval (coyote --completions elvish | slurp)
# Every Tab asks coyote itself (`coyote __complete WORDS`), so model ids,
# roles, sessions, agents, RAGs, macros and skills are the current ones.
use str
use math
set edit:completion:arg-completer[coyote] = {|@words|
    var args = $words[1..]
    var lines = []
    try {
        set lines = [(e:coyote __complete $@args 2>/dev/null | from-lines)]
    } catch { }
    if (== (count $lines) 0) { return }
    var directive = (num (str:trim-prefix $lines[-1] ':'))
    var found = $false
    for line $lines[..-1] {
        if (eq $line '') { continue }
        var parts = [(str:split "\t" $line)]
        var suffix = ' '
        if (== (% (exact-num (math:floor (/ $directive 2))) 2) 1) { set suffix = '' }
        if (> (count $parts) 1) {
            edit:complex-candidate $parts[0] &display=$parts[0]' ('$parts[1]')' &code-suffix=$suffix
        } else {
            edit:complex-candidate $parts[0] &code-suffix=$suffix
        }
        set found = $true
    }
    # No candidate and file names allowed (bit 4 unset): complete a path.
    if (and (not $found) (== (% (exact-num (math:floor (/ $directive 4))) 2) 0)) {
        edit:complete-filename $words[-1]
    }
}
