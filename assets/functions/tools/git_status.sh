#!/usr/bin/env bash
set -eo pipefail

# @describe Show the state of the git repository in the current directory: the branch, how far it is ahead of or behind its upstream, and the staged, changed and untracked files ("M " staged, " M" changed, "??" untracked, as git status --short).
# @option --path=. A directory inside the repository.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local path=${argc_path:-.}
    local out=${LLM_OUTPUT:-/dev/stdout}

    command -v git >/dev/null 2>&1 || _die "git is not installed"
    [[ -d $path ]] || _die "no such directory: $path"
    git -C "$path" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
        _die "$path is not inside a git work tree"
    local status
    status=$(git -C "$path" -c color.status=false status --short --branch --untracked-files=all 2>&1) ||
        _die "git status failed: $status"
    {
        printf '%s\n' "$status" | head -n 500
        local n
        n=$(printf '%s\n' "$status" | wc -l)
        ((n <= 500)) || printf '[... %d more lines left out ...]\n' "$((n - 500))"
        ((n > 1)) || printf '(nothing to commit, working tree clean)\n'
    } >>"$out"
}

_die() {
    printf 'git_status: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
