#!/usr/bin/env bash
set -eo pipefail

# @describe Return the whole contents of a text file, unchanged and without line numbers. Prefer fs_read (numbered lines, a range of lines) for large files.
# @option --path! The file to read.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local path=${argc_path:-}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n $path ]] || _die "path is required"
    [[ -e $path ]] || _die "no such file: $path"
    [[ ! -d $path ]] || _die "$path is a directory (list it with fs_ls)"
    [[ -r $path ]] || _die "cannot read $path: permission denied"
    if [[ -s $path ]] && ! LC_ALL=C grep -qI '' <"$path"; then
        _die "$path looks like a binary file, not text"
    fi
    if [[ ! -s $path ]]; then
        printf '(the file is empty)\n' >>"$out"
        return 0
    fi
    cat <"$path" >>"$out"
}

_die() {
    printf 'fs_cat: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
