#!/usr/bin/env bash
#
# Runs a command for a tool (execute_command) or a program the model
# wrote (execute_py_code, execute_js_code) and writes what it printed, cut
# in the middle past 64 KiB, and its exit status to the tool's result.
# Sourced by those tools.

# run_and_report NAME OUT COMMAND...: runs COMMAND with no input (stdout
# and stderr together) and appends the report to the file OUT (the tool's
# LLM_OUTPUT).
run_and_report() {
    local name=$1 out=$2
    shift 2
    local cap=65536 keep_head=8192
    local log
    log=$(mktemp "${TMPDIR:-/tmp}/coyote-$name.XXXXXX") || {
        printf '%s: cannot create a temporary file\n' "$name" >&2
        return 1
    }
    local status=0
    "$@" </dev/null >"$log" 2>&1 || status=$?

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

# run_program NAME EXT OUT CODE COMMAND...: writes CODE to a temporary
# main.EXT and runs COMMAND main.EXT as run_and_report does.
run_program() {
    local name=$1 ext=$2 out=$3 code=$4
    shift 4
    local dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/coyote-$name.XXXXXX") || {
        printf '%s: cannot create a temporary directory\n' "$name" >&2
        return 1
    }
    # shellcheck disable=SC2064 # dir is meant to be expanded now
    trap "rm -rf -- '$dir'" EXIT
    printf '%s\n' "$code" >"$dir/main.$ext"
    run_and_report "$name" "$out" "$@" "$dir/main.$ext"
}
