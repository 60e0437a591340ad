#!/usr/bin/env bash
set -eo pipefail

# @describe Read part of a text file as numbered lines ("NUMBER<TAB>TEXT"). Reads at most "limit" lines from line "offset"; lines longer than 2000 characters are cut. Use fs_cat for a whole file unchanged.
# @option --path! The file to read.
# @option --offset=1 The number of the first line to return (the first line of the file is 1).
# @option --limit=2000 The most lines to return.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local path=${argc_path:-} offset=${argc_offset:-1} limit=${argc_limit:-2000}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n $path ]] || _die "path is required"
    [[ $offset =~ ^[0-9]+$ ]] && ((10#$offset >= 1)) ||
        _die "offset must be a whole number of at least 1, not \"$offset\""
    [[ $limit =~ ^[0-9]+$ ]] && ((10#$limit >= 1)) ||
        _die "limit must be a whole number of at least 1, not \"$limit\""
    [[ -e $path ]] || _die "no such file: $path"
    [[ ! -d $path ]] || _die "$path is a directory (list it with fs_ls)"
    [[ -r $path ]] || _die "cannot read $path: permission denied"
    if [[ -s $path ]] && ! LC_ALL=C grep -qI '' <"$path"; then
        _die "$path looks like a binary file, not text"
    fi

    LC_ALL=C awk -v first="$((10#$offset))" -v count="$((10#$limit))" -v width=2000 '
        NR < first { next }
        NR >= first + count { more = 1; exit }
        {
            line = $0
            if (length(line) > width) line = substr(line, 1, width) " [line cut at " width " characters]"
            printf "%6d\t%s\n", NR, line
            shown++
        }
        END {
            if (more) printf "(more lines follow: continue with offset=%d)\n", first + count
            else if (NR == 0) print "(the file is empty)"
            else if (!shown) printf "(the file has %d lines: nothing at offset %d)\n", NR, first
        }' <"$path" >>"$out"
}

_die() {
    printf 'fs_read: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
