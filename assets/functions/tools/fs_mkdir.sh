#!/usr/bin/env bash
set -eo pipefail

# @describe Create a directory, and any missing parent directories. Does nothing when the directory already exists.
# @option --path! The directory to create.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local path=${argc_path:-}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n $path ]] || _die "path is required"
    if [[ -d $path ]]; then
        printf 'The directory %s already exists.\n' "$path" >>"$out"
        return 0
    fi
    [[ ! -e $path ]] || _die "$path exists and is not a directory"
    mkdir -p -- "$path" || _die "cannot create the directory $path"
    printf 'Created the directory %s.\n' "$path" >>"$out"
}

_die() {
    printf 'fs_mkdir: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
