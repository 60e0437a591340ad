#!/usr/bin/env bash
#
# Helpers of the bundled agents' tools scripts (agents/*/tools.sh), which
# source this file: results, failures, temporary files, and paths kept
# inside the workspace.
#
# The workspace is the directory the tool runs in (where coyote was
# started). Paths the model gives are resolved there, symbolic links
# followed, and refused when they lead outside it; the tools then work on
# the resolved path, so a link cannot take a later step elsewhere.

# _out LINE...: appends lines to the tool's result.
_out() {
    printf '%s\n' "$@" >>"${LLM_OUTPUT:-/dev/stdout}"
}

# _die MESSAGE: fails the call with MESSAGE on stderr.
_die() {
    printf '%s: %s\n' "${LLM_TOOL_NAME:-${FUNCNAME[1]:-tool}}" "$1" >&2
    exit 1
}

# _ws_root: sets WS_ROOT to the workspace's physical path.
_ws_root() {
    WS_ROOT=$(pwd -P) || _die "cannot read the working directory"
}

# _ws_resolve PATH: sets REPLY to PATH made absolute with every symbolic
# link followed and "." and ".." removed; the last components need not
# exist. Fails after 40 links (a loop).
_ws_resolve() {
    local rest=$1 out='' comp target hops=0
    [[ $rest == /* ]] || rest=$PWD/$rest
    while [[ -n $rest ]]; do
        comp=${rest%%/*}
        if [[ $rest == */* ]]; then rest=${rest#*/}; else rest=; fi
        case $comp in
        '' | .) continue ;;
        ..)
            out=${out%/*}
            continue
            ;;
        esac
        if [[ -L $out/$comp ]]; then
            ((++hops <= 40)) || return 1
            target=$(readlink -- "$out/$comp") || return 1
            [[ $target != /* ]] || out=
            rest=$target${rest:+/$rest}
            continue
        fi
        out=$out/$comp
    done
    REPLY=${out:-/}
}

# _ws_path PATH: sets REPLY to the resolved PATH (see _ws_resolve) and
# REL to it relative to the workspace ("." for the workspace itself);
# fails when PATH is empty or leads outside the workspace.
_ws_path() {
    [[ -n ${1-} ]] || _die "the path is empty"
    [[ -n ${WS_ROOT:-} ]] || _ws_root
    _ws_resolve "$1" || _die "$1: too many levels of symbolic links"
    if [[ $WS_ROOT != / && $REPLY != "$WS_ROOT" && $REPLY != "$WS_ROOT"/* ]]; then
        _die "$1 is outside the workspace $WS_ROOT (resolved to $REPLY); only paths under it can be used"
    fi
    REL=${REPLY#"$WS_ROOT"}
    REL=${REL#/}
    [[ -n $REL ]] || REL=.
}

# _number VALUE NAME MIN MAX: fails unless VALUE is a whole number in
# [MIN, MAX]; sets REPLY to it (without leading zeros).
_number() {
    [[ $1 =~ ^[0-9]+$ ]] || _die "$2 must be a whole number, not \"$1\""
    REPLY=$((10#$1))
    ((REPLY >= $3 && REPLY <= $4)) || _die "$2 must be between $3 and $4, not $1"
}

# _text_file PATH REL: fails unless PATH is a readable text file.
_text_file() {
    [[ -e $1 ]] || _die "no such file: $2"
    [[ ! -d $1 ]] || _die "$2 is a directory, not a file"
    [[ -r $1 ]] || _die "cannot read $2: permission denied"
    if [[ -s $1 ]] && ! LC_ALL=C grep -qI '' <"$1"; then
        _die "$2 looks like a binary file, not text"
    fi
}

# _emit_capped FILE MAX NOTE: appends the first MAX lines of FILE to the
# result, then, when there were more, a line saying how many were left
# out and NOTE.
_emit_capped() {
    local total
    total=$(wc -l <"$1")
    total=$((total))
    head -n "$2" -- "$1" >>"${LLM_OUTPUT:-/dev/stdout}"
    if ((total > $2)); then
        _out "[... $((total - $2)) more lines not shown; $3]"
    fi
}

# _temp: sets REPLY to a new temporary file, removed when the tool exits.
_temp() {
    REPLY=$(mktemp "${TMPDIR:-/tmp}/coyote-agent.XXXXXX") || _die "cannot create a temporary file"
    _TEMPS+=("$REPLY")
    trap 'rm -f -- "${_TEMPS[@]}"' EXIT
}
_TEMPS=()

# _load_guard: defines guard_operation and guard_path from the guard beside
# this file, or fails: nothing changes unconfirmed.
_load_guard() {
    local guard=${BASH_SOURCE[0]%/*}/guard_operation.sh
    # shellcheck source=/dev/null
    if ! source "$guard" 2>/dev/null || ! declare -F guard_operation >/dev/null; then
        _die "cannot load the confirmation guard from $guard; refusing to change anything without it"
    fi
}
