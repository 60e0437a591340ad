#!/usr/bin/env bash
set -eo pipefail

# @describe Get the current date and time: ISO 8601 with the offset from UTC, then the day of the week and the time zone, as in "2025-03-14T09:26:53+01:00 Friday CET".
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local out=${LLM_OUTPUT:-/dev/stdout}
    local now stamp rest zone
    # One call to date, so that the parts agree; %z is +hhmm.
    now=$(LC_ALL=C date '+%Y-%m-%dT%H:%M:%S %z %A %Z') || {
        printf 'get_current_time: date failed\n' >&2
        exit 1
    }
    read -r stamp zone rest <<<"$now"
    printf '%s%s:%s %s\n' "$stamp" "${zone:0:3}" "${zone:3:2}" "$rest" >>"$out"
}

eval "$(argc --argc-eval "$0" "$@")"
