# Coyote completion for nushell. Save it and source it from config.nu:
#   coyote --completions nushell | save -f ~/.config/nushell/coyote-completions.nu
#   source ~/.config/nushell/coyote-completions.nu
# It becomes the external completer for coyote and hands every other
# command to the completer that was set before it. Every Tab asks coyote
# itself (`coyote __complete WORDS`), so model ids, roles, sessions,
# agents, RAGs, macros and skills are the current ones.
let coyote_previous_completer = ($env.config | get -i completions.external.completer)
$env.config = ($env.config | upsert completions.external.enable true | upsert completions.external.completer {|spans|
    if ($spans | is-empty) or (($spans | first | path basename) != "coyote") {
        if $coyote_previous_completer == null { null } else { do $coyote_previous_completer $spans }
    } else {
        let lines = (^coyote __complete ...($spans | skip 1) | complete | get stdout | lines)
        if ($lines | is-empty) { null } else {
            let directive = ($lines | last | str replace ':' '' | into int)
            let found = ($lines | drop 1 | where {|l| $l != "" } | each {|l|
                let parts = ($l | split row "\t")
                if ($parts | length) > 1 { {value: $parts.0, description: $parts.1} } else { {value: $parts.0} }
            })
            # No candidate and file names allowed (bit 4 unset): null lets
            # nushell complete a path.
            if ($found | is-empty) and (($directive mod 8) < 4) { null } else { $found }
        }
    }
})
