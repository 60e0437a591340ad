#!/usr/bin/env bash
#
# Confirmation guards for Coyote tools that change things.
#
# A tool sources this file, then calls a guard before it acts:
#
#     source "$LLM_ROOT_DIR/utils/guard_operation.sh"
#     guard_operation "Delete the build directory?"
#     guard_path "$argc_path" "Overwrite this file?"
#
# A guard returns when the operation may go ahead. It goes ahead without
# asking when AUTO_CONFIRM is set to anything non-empty (coyote sets it for
# tools under --dangerously-skip-permissions). Otherwise it asks
# "MESSAGE [y/N]" on the terminal (/dev/tty) and goes ahead only on y or yes.
# When no terminal can be opened there is nobody to ask, so it refuses. A
# refusal says why on stderr and ends the tool with exit status 1.
#
# Run as a command instead of sourced, the file guards one operation:
#     "$LLM_ROOT_DIR/utils/guard_operation.sh" "Delete the build directory?"
# and its exit status says whether to go ahead (0) or not (1).

# guard_operation [MESSAGE]: go ahead only when confirmed (see above).
guard_operation() {
    local message=${1:-"Go ahead with this operation?"}
    if [[ -n ${AUTO_CONFIRM:-} ]]; then
        return 0
    fi
    # Control characters (an escape sequence could hide part of a command
    # from the user) are shown as "?".
    message=${message//[![:print:]$'\t\n']/?}
    if (: <>/dev/tty) 2>/dev/null; then
        local answer=
        printf '%s [y/N] ' "$message" >/dev/tty
        IFS= read -r answer </dev/tty || answer=
        case $answer in
        [yY] | [yY][eE][sS])
            return 0
            ;;
        esac
        printf 'Not done: the user declined: %s\n' "$message" >&2
        exit 1
    fi
    printf 'Not done: this needs the user'\''s confirmation, and there is no terminal to ask on (AUTO_CONFIRM is not set): %s\n' "$message" >&2
    exit 1
}

# guard_path PATH [MESSAGE]: guard_operation for an operation on PATH; the
# question shows the absolute path so that the user knows which file it is.
guard_path() {
    if (($# < 1)) || [[ -z $1 ]]; then
        printf 'guard_path: usage: guard_path PATH [MESSAGE]\n' >&2
        exit 2
    fi
    local message=${2:-"Change $1?"}
    guard_operation "$message ($(_guard_abspath "$1"))"
}

# _guard_abspath PATH: PATH made absolute; its directory is resolved when it
# exists, and PATH itself need not exist.
_guard_abspath() {
    local path=$1 dir base
    case $path in
    */*) dir=${path%/*} base=${path##*/} ;;
    *) dir=. base=$path ;;
    esac
    [[ -n $dir ]] || dir=/
    if dir=$(cd -P -- "$dir" 2>/dev/null && pwd -P); then
        case $base in
        '' | . ) printf '%s\n' "$dir" ;;
        *) printf '%s/%s\n' "${dir%/}" "$base" ;;
        esac
    elif [[ $path == /* ]]; then
        printf '%s\n' "$path"
    else
        printf '%s/%s\n' "${PWD%/}" "$path"
    fi
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    guard_operation "$@"
fi
