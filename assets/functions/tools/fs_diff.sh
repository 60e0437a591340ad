#!/usr/bin/env bash
set -eo pipefail

# @describe Compare two files, or two directories recursively, and return their differences as a unified diff ("(no differences)" when they are the same). Long diffs are cut.
# @option --old! The first file or directory.
# @option --new! The second file or directory.
# @option --max-lines=2000 The most lines of diff to return.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local old=${argc_old:-} new=${argc_new:-} max=${argc_max_lines:-2000}
    local out=${LLM_OUTPUT:-/dev/stdout}

    command -v diff >/dev/null 2>&1 || _die "diff is not installed"
    [[ -n $old && -n $new ]] || _die "old and new are required"
    [[ $max =~ ^[0-9]+$ ]] && ((10#$max >= 1)) ||
        _die "max_lines must be a whole number of at least 1, not \"$max\""
    max=$((10#$max))
    local p
    for p in "$old" "$new"; do
        [[ -e $p ]] || _die "no such file or directory: $p"
        [[ -r $p ]] || _die "cannot read $p: permission denied"
    done
    local text status=0
    text=$(LC_ALL=C diff -u -r -N -- "$old" "$new" 2>&1) || status=$?
    case $status in
    0) printf '(no differences)\n' >>"$out" ;;
    1)
        local n
        n=$(printf '%s\n' "$text" | wc -l)
        {
            printf '%s\n' "$text" | head -n "$max"
            ((n <= max)) || printf '[... %d more lines left out ...]\n' "$((n - max))"
        } >>"$out"
        ;;
    *) _die "diff failed: $text" ;;
    esac
}

_die() {
    printf 'fs_diff: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
