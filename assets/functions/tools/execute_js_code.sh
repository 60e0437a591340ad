#!/usr/bin/env bash
set -eo pipefail

# @describe Run a JavaScript program with Node.js in the current directory and return what it prints (stdout and stderr together) and its exit status. Needs the user's confirmation. Print the values you want to see with console.log. The program gets no input; output beyond 64 KiB is cut in the middle.
# @option --code! The JavaScript (CommonJS) source code to run.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local code=${argc_code:-}
    local out=${LLM_OUTPUT:-/dev/stdout}
    local cap=65536 keep_head=8192

    [[ -n ${code//[[:space:]]/} ]] || _die "code is required"
    local node
    node=$(command -v node || command -v nodejs) || _die "Node.js is not installed (neither node nor nodejs is on PATH)"
    _load_guard
    guard_operation "Run this JavaScript code? $code"

    local dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/coyote-node.XXXXXX") || _die "cannot create a temporary directory"
    # shellcheck disable=SC2064 # dir is meant to be expanded now
    trap "rm -rf -- '$dir'" EXIT
    printf '%s\n' "$code" >"$dir/main.js"
    local status=0
    "$node" "$dir/main.js" </dev/null >"$dir/log" 2>&1 || status=$?

    local size
    size=$(wc -c <"$dir/log")
    size=$((size))
    {
        if ((size == 0)); then
            printf '(no output)\n'
        elif ((size <= cap)); then
            cat <"$dir/log"
        else
            head -c "$keep_head" <"$dir/log"
            printf '\n[... %d bytes of output left out ...]\n' "$((size - cap))"
            tail -c "$((cap - keep_head))" <"$dir/log"
        fi
        if ((size > 0)) && [[ -n $(tail -c 1 <"$dir/log") ]]; then
            printf '\n'
        fi
        printf '[exit status: %d]\n' "$status"
    } >>"$out"
}

# _load_guard: defines guard_operation and guard_path from utils/ of the
# functions directory (LLM_ROOT_DIR, or the directory above this tool's).
_load_guard() {
    local guard=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils/guard_operation.sh
    # shellcheck source=../utils/guard_operation.sh
    source "$guard" && declare -F guard_operation >/dev/null ||
        _die "cannot load guard_operation from $guard; refusing to run code without a confirmation guard"
}

_die() {
    printf 'execute_js_code: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
