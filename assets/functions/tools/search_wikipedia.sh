#!/usr/bin/env bash
set -eo pipefail

# @describe Look a subject up in Wikipedia and return the summary of the best matching article, with its address, and the titles of the next best matches.
# @option --query! The subject to look up.
# @option --language=en The Wikipedia edition, as a language code such as en, de or ja.
# @env WIKIPEDIA_URL The address of the wiki instead of https://<language>.wikipedia.org (for a mirror or a local MediaWiki).
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local query=${argc_query:-} lang=${argc_language:-en}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n ${query//[[:space:]]/} ]] || _die "query is required"
    [[ $lang =~ ^[a-z][a-z-]{1,15}$ ]] || _die "language must be a code such as en or de, not \"$lang\""
    command -v curl >/dev/null 2>&1 || _die "curl is not installed"
    command -v jq >/dev/null 2>&1 || _die "jq is not installed (Debian: apt-get install jq)"
    local base=${WIKIPEDIA_URL:-https://$lang.wikipedia.org}
    base=${base%/}

    local search titles
    search=$(_get "$base/w/api.php?action=query&list=search&format=json&srlimit=5&srsearch=$(_urlencode "$query")")
    titles=$(jq -r '.query.search[]?.title' <<<"$search" 2>/dev/null) || _die "$base answered something that is not MediaWiki's JSON"
    if [[ -z $titles ]]; then
        printf 'Wikipedia has no article matching "%s".\n' "$query" >>"$out"
        return 0
    fi
    local first
    first=$(head -n 1 <<<"$titles")
    local summary
    summary=$(_get "$base/api/rest_v1/page/summary/$(_urlencode "${first// /_}")")
    {
        jq -r '"\(.title)\n\(.content_urls.desktop.page // "")\n\n\(.extract // "(no summary)")"' <<<"$summary" 2>/dev/null ||
            _die "$base answered something that is not a page summary"
        if (($(wc -l <<<"$titles") > 1)); then
            printf '\nOther matches: %s\n' "$(tail -n +2 <<<"$titles" | paste -sd ';' - | sed 's/;/; /g')"
        fi
    } >>"$out"
}

# _get URL: the body of URL.
_get() {
    local body status=0
    body=$(curl --fail --silent --show-error --location --max-redirs 5 --connect-timeout 20 --max-time 60 \
        --user-agent "coyote-search-wikipedia/1" --proto '=http,https' --proto-redir '=http,https' -- "$1" 2>&1) || status=$?
    ((status == 0)) || _die "cannot reach Wikipedia: $body (curl status $status)"
    printf '%s' "$body"
}

# _urlencode TEXT: TEXT percent-encoded for a URL.
_urlencode() {
    local LC_ALL=C s=$1 i c out=
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        case $c in
        [A-Za-z0-9.~_-]) out+=$c ;;
        *) printf -v c '%%%02X' "'$c" && out+=$c ;;
        esac
    done
    printf '%s' "$out"
}

_die() {
    printf 'search_wikipedia: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
