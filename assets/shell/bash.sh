# Coyote shell integration for bash: Alt+E turns the command line into a
# shell command written by `coyote -e`. Load it from ~/.bashrc:
#   eval "$(coyote --shell-integration bash)"
__coyote_widget() {
    [[ -n "$READLINE_LINE" ]] || return
    local out
    out=$(coyote -e "$READLINE_LINE" </dev/null 2>/dev/null) || return
    if [[ -n "$out" ]]; then
        READLINE_LINE=$out
        READLINE_POINT=${#READLINE_LINE}
    fi
}
bind -x '"\ee": __coyote_widget'
