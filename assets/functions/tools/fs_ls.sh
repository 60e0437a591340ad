#!/usr/bin/env bash
set -eo pipefail

# @describe List the entries of a directory, one a line, hidden ones included; the names of directories end with a slash.
# @option --path=. The directory to list.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local dir=${argc_path:-.}
    local out=${LLM_OUTPUT:-/dev/stdout}
    local max=1000

    [[ -e $dir ]] || _die "no such directory: $dir"
    [[ -d $dir ]] || _die "$dir is not a directory (read it with fs_read)"
    [[ -r $dir && -x $dir ]] || _die "cannot list $dir: permission denied"

    # Byte order, hidden entries included ("." and ".." never are).
    local LC_ALL=C
    shopt -s nullglob dotglob
    local entries=("${dir%/}"/*)
    shopt -u nullglob dotglob

    if ((${#entries[@]} == 0)); then
        printf '(the directory is empty)\n' >>"$out"
        return 0
    fi
    local entry name n=0
    {
        for entry in "${entries[@]}"; do
            ((n < max)) || break
            name=${entry##*/}
            if [[ -d $entry ]]; then
                printf '%s/\n' "$name"
            else
                printf '%s\n' "$name"
            fi
            n=$((n + 1))
        done
        if ((${#entries[@]} > max)); then
            printf '(%d more entries not shown)\n' "$((${#entries[@]} - max))"
        fi
    } >>"$out"
}

_die() {
    printf 'fs_ls: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
