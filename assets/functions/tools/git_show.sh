#!/usr/bin/env bash
set -eo pipefail

# @describe Show one commit of the git repository in the current directory: its hash, author, date, message and diff (long diffs are cut); or, with --file, that file's contents as of the commit.
# @option --revision=HEAD The commit to show, such as HEAD~1 or a hash.
# @option --file Show this file (a path from the repository's top) as of the commit, instead of the commit.
# @option --max-lines=2000 The most lines to return.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local rev=${argc_revision:-HEAD} file=${argc_file:-} max=${argc_max_lines:-2000}
    local out=${LLM_OUTPUT:-/dev/stdout}

    command -v git >/dev/null 2>&1 || _die "git is not installed"
    [[ $max =~ ^[0-9]+$ ]] && ((10#$max >= 1)) ||
        _die "max_lines must be a whole number of at least 1, not \"$max\""
    max=$((10#$max))
    git rev-parse --is-inside-work-tree >/dev/null 2>&1 || _die "the current directory is not inside a git work tree"
    [[ $rev != -* ]] || _die "revision must not start with -: $rev"
    git rev-parse --verify --quiet "$rev^{commit}" >/dev/null || _die "no such commit: $rev"
    local text
    if [[ -n $file ]]; then
        text=$(git show --no-color "$rev:${file#/}" 2>&1) || _die "no file ${file#/} in $rev (paths start at the repository's top)"
    else
        text=$(git show --no-color --no-ext-diff --stat --patch --format=fuller "$rev" -- 2>&1) || _die "git show failed: $text"
    fi
    local n
    n=$(printf '%s\n' "$text" | wc -l)
    {
        printf '%s\n' "$text" | head -n "$max"
        ((n <= max)) || printf '[... %d more lines left out ...]\n' "$((n - max))"
    } >>"$out"
}

_die() {
    printf 'git_show: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
