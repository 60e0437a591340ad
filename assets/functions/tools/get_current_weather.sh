#!/usr/bin/env bash
set -eo pipefail

# @describe Get the current weather and a three-day forecast for a place, from wttr.in: temperature, wind, precipitation and conditions.
# @option --location! A city, an airport code or "latitude,longitude", such as "Paris" or "48.85,2.35".
# @flag --imperial Use °F and mph instead of °C and km/h.
# @env WEATHER_URL The weather service's address instead of https://wttr.in.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local location=${argc_location:-}
    local out=${LLM_OUTPUT:-/dev/stdout}
    [[ -n ${location//[[:space:]]/} ]] || _die "location is required"
    command -v curl >/dev/null 2>&1 || _die "curl is not installed"
    local base=${WEATHER_URL:-https://wttr.in}
    local units=m
    [[ -z ${argc_imperial:-} ]] || units=u
    local place=${location//[[:space:]]/+}
    place=$(_urlencode "$place")
    # T: no terminal colours; the plain-text report.
    local body status=0
    body=$(curl --fail --silent --show-error --location --max-redirs 5 --connect-timeout 20 --max-time 60 \
        --user-agent "curl/coyote-weather" --proto '=http,https' --proto-redir '=http,https' \
        -- "${base%/}/$place?${units}T" 2>&1) || status=$?
    ((status == 0)) || _die "cannot get the weather for $location: $body (curl status $status)"
    [[ -n $body ]] || _die "the weather service returned nothing for $location"
    printf '%s\n' "$body" >>"$out"
}

# _urlencode TEXT: TEXT percent-encoded for a URL path; + and , are kept.
_urlencode() {
    local LC_ALL=C s=$1 i c out=
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        case $c in
        [A-Za-z0-9.~_,+-]) out+=$c ;;
        *) printf -v c '%%%02X' "'$c" && out+=$c ;;
        esac
    done
    printf '%s' "$out"
}

_die() {
    printf 'get_current_weather: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
