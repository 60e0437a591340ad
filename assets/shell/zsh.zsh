# Coyote shell integration for zsh: Alt+E turns the command line into a
# shell command written by `coyote -e`. Load it from ~/.zshrc:
#   eval "$(coyote --shell-integration zsh)"
__coyote_widget() {
    [[ -n "$BUFFER" ]] || return
    local out
    zle -R "coyote…"
    out=$(coyote -e "$BUFFER" </dev/null 2>/dev/null)
    if [[ -n "$out" ]]; then
        BUFFER=$out
        CURSOR=${#BUFFER}
    fi
    zle reset-prompt
}
zle -N __coyote_widget
bindkey '\ee' __coyote_widget
