#!/usr/bin/env bash
set -eo pipefail

# @describe Run a JavaScript program with Node.js in the current directory and return what it prints (stdout and stderr together) and its exit status. Needs the user's confirmation. Print the values you want to see with console.log. The program gets no input; output beyond 64 KiB is cut in the middle.
# @option --code! The JavaScript (CommonJS) source code to run.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local code=${argc_code:-}

    [[ -n ${code//[[:space:]]/} ]] || _die "code is required"
    local node
    node=$(command -v node || command -v nodejs) || _die "Node.js is not installed (neither node nor nodejs is on PATH)"
    _load_guard
    guard_operation "Run this JavaScript code? $code"

    run_program node js "${LLM_OUTPUT:-/dev/stdout}" "$code" "$node"
}

# _load_guard: defines guard_operation and guard_path, and run_program,
# from utils/ of the functions directory (LLM_ROOT_DIR, or the directory
# above this tool's).
_load_guard() {
    local utils=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils
    # shellcheck source=../utils/guard_operation.sh
    source "$utils/guard_operation.sh" && declare -F guard_operation >/dev/null ||
        _die "cannot load guard_operation from $utils; refusing to run code without a confirmation guard"
    # shellcheck source=../utils/run_program.sh
    source "$utils/run_program.sh" && declare -F run_program >/dev/null ||
        _die "cannot load run_program from $utils (coyote --build-tools installs it)"
}

_die() {
    printf 'execute_js_code: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
