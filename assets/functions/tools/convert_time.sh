#!/usr/bin/env bash
set -eo pipefail

# @describe Convert a date and time from one time zone to another, with daylight saving time taken into account, as in "2025-03-14 09:30" in Europe/Paris to America/New_York. Zones are IANA names (Asia/Tokyo), UTC, or POSIX TZ strings.
# @option --time! The date and time, such as "2025-03-14 09:30" or "2025-03-14T09:30:00"; "now" for the current time.
# @option --from=UTC The zone the time is in.
# @option --to! The zone to convert it to.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local time=${argc_time:-} from=${argc_from:-UTC} to=${argc_to:-}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n ${time//[[:space:]]/} ]] || _die "time is required"
    [[ -n $to ]] || _die "to is required"
    local zone
    for zone in "$from" "$to"; do
        [[ $zone =~ ^[A-Za-z0-9_+:,./-]+$ && $zone != *..* ]] || _die "\"$zone\" is not a time zone name"
        # GNU date takes an unknown zone for UTC without a word.
        if [[ $zone == */* && ! -e ${TZDIR:-/usr/share/zoneinfo}/$zone ]]; then
            _die "unknown time zone \"$zone\" (names are as in Europe/Paris or America/New_York)"
        fi
    done
    [[ $time =~ ^[0-9A-Za-z:.+\ /T-]+$ ]] || _die "\"$time\" is not a date and time such as 2025-03-14 09:30"
    date -d '@0' >/dev/null 2>&1 || _die "this needs GNU date (on macOS: brew install coreutils)"
    local fmt='+%Y-%m-%dT%H:%M:%S%:z %A %Z'
    local src dst
    if [[ ${time,,} == now ]]; then
        src=$(TZ=$from date "$fmt") && dst=$(TZ=$to date "$fmt") || _die "cannot read the current time"
    else
        local epoch
        epoch=$(TZ=$from date -d "${time/T/ }" '+%s' 2>/dev/null) || _die "cannot read \"$time\" as a date and time (use 2025-03-14 09:30)"
        src=$(TZ=$from date -d "@$epoch" "$fmt") && dst=$(TZ=$to date -d "@$epoch" "$fmt") || _die "cannot convert \"$time\""
    fi
    printf '%s (%s)\n= %s (%s)\n' "$src" "$from" "$dst" "$to" >>"$out"
}

_die() {
    printf 'convert_time: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
