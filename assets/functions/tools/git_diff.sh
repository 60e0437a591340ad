#!/usr/bin/env bash
set -eo pipefail

# @describe Show the changes in the git repository of the current directory as a unified diff: by default the changes not yet staged; with --staged those staged for the next commit; with --revision the changes since that commit (or a range such as main..HEAD). Long diffs are cut.
# @flag --staged Show the staged changes instead of the unstaged ones.
# @option --revision A commit, branch or range to diff against, such as HEAD~3 or main..HEAD.
# @option --file Only this file or directory.
# @option --max-lines=2000 The most lines of diff to return.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local rev=${argc_revision:-} file=${argc_file:-} max=${argc_max_lines:-2000}
    local out=${LLM_OUTPUT:-/dev/stdout}

    command -v git >/dev/null 2>&1 || _die "git is not installed"
    [[ $max =~ ^[0-9]+$ ]] && ((10#$max >= 1)) ||
        _die "max_lines must be a whole number of at least 1, not \"$max\""
    max=$((10#$max))
    git rev-parse --is-inside-work-tree >/dev/null 2>&1 || _die "the current directory is not inside a git work tree"
    [[ $rev != -* ]] || _die "revision must not start with -: $rev"
    local args=(-c core.quotepath=false diff --no-color --no-ext-diff)
    [[ -z ${argc_staged:-} ]] || args+=(--cached)
    [[ -z $rev ]] || args+=("$rev")
    args+=(--)
    [[ -z $file ]] || args+=("$file")

    local diff
    diff=$(git "${args[@]}" 2>&1) || _die "git diff failed: $diff"
    if [[ -z $diff ]]; then
        printf '(no changes)\n' >>"$out"
        return 0
    fi
    _cut "$diff" "$max" >>"$out"
}

# _cut TEXT MAX: TEXT's first MAX lines, and how many were left out.
_cut() {
    local n
    n=$(printf '%s\n' "$1" | wc -l)
    printf '%s\n' "$1" | head -n "$2"
    ((n <= $2)) || printf '[... %d more lines left out; narrow it with --file ...]\n' "$((n - $2))"
}

_die() {
    printf 'git_diff: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
