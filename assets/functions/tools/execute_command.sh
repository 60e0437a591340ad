#!/usr/bin/env bash
set -eo pipefail

# @describe Run a shell command line with bash in the current directory and return its output (stdout and stderr together) and its exit status. Needs the user's confirmation. The command gets no input; output beyond 64 KiB is cut in the middle.
# @option --command! The command line to run, for example "go test ./...".
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local command=${argc_command:-}

    [[ -n ${command//[[:space:]]/} ]] || _die "command is required"
    _load_guard
    guard_operation "Run this command? $command"

    run_and_report execute "${LLM_OUTPUT:-/dev/stdout}" bash -c "$command"
}

# _load_guard: defines guard_operation and guard_path, and run_and_report,
# from utils/ of the functions directory (LLM_ROOT_DIR, or the directory
# above this tool's).
_load_guard() {
    local utils=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils
    # shellcheck source=../utils/guard_operation.sh
    source "$utils/guard_operation.sh" && declare -F guard_operation >/dev/null ||
        _die "cannot load guard_operation from $utils; refusing to run commands without a confirmation guard"
    # shellcheck source=../utils/run_program.sh
    source "$utils/run_program.sh" && declare -F run_and_report >/dev/null ||
        _die "cannot load run_and_report from $utils (coyote --build-tools installs it)"
}

_die() {
    printf 'execute_command: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
