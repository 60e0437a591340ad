#!/usr/bin/env bash
set -eo pipefail

# @describe Run a shell command line with bash in the current directory and return its output (stdout and stderr together) and its exit status. Needs the user's confirmation. The command gets no input; output beyond 64 KiB is cut in the middle.
# @option --command! The command line to run, for example "go test ./...".
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local command=${argc_command:-}
    local out=${LLM_OUTPUT:-/dev/stdout}
    local cap=65536 keep_head=8192

    [[ -n ${command//[[:space:]]/} ]] || _die "command is required"
    _load_guard
    guard_operation "Run this command? $command"

    local log
    log=$(mktemp "${TMPDIR:-/tmp}/coyote-execute.XXXXXX") || _die "cannot create a temporary file"
    local status=0
    bash -c "$command" </dev/null >"$log" 2>&1 || status=$?

    local size
    size=$(wc -c <"$log")
    size=$((size))
    {
        if ((size == 0)); then
            printf '(no output)\n'
        elif ((size <= cap)); then
            cat <"$log"
        else
            head -c "$keep_head" <"$log"
            printf '\n[... %d bytes of output left out ...]\n' "$((size - cap))"
            tail -c "$((cap - keep_head))" <"$log"
        fi
        if ((size > 0)) && [[ -n $(tail -c 1 <"$log") ]]; then
            printf '\n'
        fi
        printf '[exit status: %d]\n' "$status"
    } >>"$out"
    rm -f -- "$log"
}

# _load_guard: defines guard_operation and guard_path from utils/ of the
# functions directory (LLM_ROOT_DIR, or the directory above this tool's).
_load_guard() {
    local guard=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils/guard_operation.sh
    # shellcheck source=../utils/guard_operation.sh
    source "$guard" && declare -F guard_operation >/dev/null ||
        _die "cannot load guard_operation from $guard; refusing to run commands without a confirmation guard"
}

_die() {
    printf 'execute_command: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
