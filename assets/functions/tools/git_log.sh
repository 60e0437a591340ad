#!/usr/bin/env bash
set -eo pipefail

# @describe List recent commits of the git repository in the current directory, newest first, one a line: short hash, date, author and subject.
# @option --count=20 How many commits to list.
# @option --revision A branch, commit or range to list instead of HEAD, such as main..HEAD.
# @option --file Only commits that changed this file or directory.
# @option --grep Only commits whose message matches this regular expression.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local count=${argc_count:-20} rev=${argc_revision:-} file=${argc_file:-} grep=${argc_grep:-}
    local out=${LLM_OUTPUT:-/dev/stdout}

    command -v git >/dev/null 2>&1 || _die "git is not installed"
    [[ $count =~ ^[0-9]+$ ]] && ((10#$count >= 1 && 10#$count <= 1000)) ||
        _die "count must be a whole number from 1 to 1000, not \"$count\""
    git rev-parse --is-inside-work-tree >/dev/null 2>&1 || _die "the current directory is not inside a git work tree"
    [[ $rev != -* ]] || _die "revision must not start with -: $rev"
    local args=(log --no-color "--max-count=$((10#$count))" '--format=%h %ad %an: %s' --date=short)
    [[ -z $grep ]] || args+=(-E "--grep=$grep")
    [[ -z $rev ]] || args+=("$rev")
    args+=(--)
    [[ -z $file ]] || args+=("$file")
    local log
    log=$(git "${args[@]}" 2>&1) || _die "git log failed: $log"
    [[ -n $log ]] || log="(no commits)"
    printf '%s\n' "$log" >>"$out"
}

_die() {
    printf 'git_log: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
