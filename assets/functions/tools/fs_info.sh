#!/usr/bin/env bash
set -eo pipefail

# @describe Describe a file or directory without reading it whole: its type, size, permissions and modification time; for a text file its line count, for a directory how many entries it holds, for a symbolic link its target.
# @option --path! The file or directory.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local path=${argc_path:-}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n $path ]] || _die "path is required"
    [[ -e $path || -L $path ]] || _die "no such file or directory: $path"
    local type size mode mtime
    if [[ -L $path ]]; then
        type="symbolic link to $(readlink -- "$path")"
        [[ -e $path ]] || type+=" (which does not exist)"
    elif [[ -d $path ]]; then
        type=directory
    elif [[ -f $path ]]; then
        type='regular file'
    else
        type="special file"
    fi
    # GNU stat first, then BSD's.
    if ! read -r size mode mtime < <(stat -L -c '%s %A %Y' -- "$path" 2>/dev/null); then
        read -r size mode mtime < <(stat -L -f '%z %Sp %m' -- "$path" 2>/dev/null) || true
    fi
    {
        printf 'path: %s\n' "$path"
        printf 'type: %s\n' "$type"
        [[ -z $mode ]] || printf 'permissions: %s\n' "$mode"
        if [[ -n $mtime ]]; then
            printf 'modified: %s\n' "$(date -d "@$mtime" '+%Y-%m-%dT%H:%M:%S%z' 2>/dev/null || date -r "$mtime" '+%Y-%m-%dT%H:%M:%S%z' 2>/dev/null || printf '%s' "$mtime")"
        fi
        if [[ -d $path ]]; then
            local n
            n=$(find "$path/" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
            printf 'entries: %d\n' "$((n))"
        elif [[ -f $path ]]; then
            printf 'size: %s bytes\n' "${size:-$(wc -c <"$path")}"
            if [[ ! -s $path ]]; then
                printf 'content: empty\n'
            elif LC_ALL=C grep -qI '' "$path" 2>/dev/null; then
                local lines
                lines=$(wc -l <"$path")
                printf 'content: text, %d lines\n' "$((lines))"
            else
                printf 'content: binary\n'
            fi
        fi
    } >>"$out"
}

_die() {
    printf 'fs_info: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
