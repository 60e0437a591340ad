#!/usr/bin/env bash
set -eo pipefail

# @describe Copy a file, or a directory with everything in it, to a new path, creating the destination's missing parent directories. Never replaces an existing destination.
# @option --source! The file or directory to copy.
# @option --destination! The path of the copy (not an existing file or directory).
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local src=${argc_source:-} dst=${argc_destination:-}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n $src ]] || _die "source is required"
    [[ -n $dst ]] || _die "destination is required"
    [[ -e $src ]] || _die "no such file or directory: $src"
    [[ -r $src ]] || _die "cannot read $src: permission denied"
    [[ ! -e $dst && ! -L $dst ]] || _die "$dst already exists; choose another name"
    local parent=.
    [[ $dst != */* ]] || parent=${dst%/*}
    [[ -n $parent ]] || parent=/
    mkdir -p -- "$parent" || _die "cannot create the directory $parent"
    cp -R -p -- "$src" "$dst" || _die "cannot copy $src to $dst"
    printf 'Copied %s to %s.\n' "$src" "$dst" >>"$out"
}

_die() {
    printf 'fs_copy: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
