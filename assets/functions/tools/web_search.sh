#!/usr/bin/env bash
set -eo pipefail

# @describe Search the web and return the top results, each with its title, address and a snippet. Use fetch_url_as_text to read a result. The search engine is the user's choice (WEB_SEARCH_ENGINE).
# @option --query! What to search for.
# @option --count=8 How many results to return (at most 20).
# @env WEB_SEARCH_ENGINE The engine: duckduckgo (the default, needs no key), searxng (needs SEARXNG_URL), brave (needs BRAVE_API_KEY) or tavily (needs TAVILY_API_KEY).
# @env WEB_SEARCH_URL The full address of the engine's search endpoint, to use a proxied or self-hosted one instead of the engine's own.
# @env SEARXNG_URL The address of a SearXNG instance with the JSON format enabled, such as http://localhost:8888.
# @env BRAVE_API_KEY The key of the Brave Search API.
# @env TAVILY_API_KEY The key of the Tavily API.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local query=${argc_query:-} count=${argc_count:-8}
    local out=${LLM_OUTPUT:-/dev/stdout}
    local engine=${WEB_SEARCH_ENGINE:-duckduckgo}

    [[ -n ${query//[[:space:]]/} ]] || _die "query is required"
    [[ $count =~ ^[0-9]+$ ]] && ((10#$count >= 1 && 10#$count <= 20)) ||
        _die "count must be a whole number from 1 to 20, not \"$count\""
    count=$((10#$count))
    command -v curl >/dev/null 2>&1 || _die "curl is not installed"
    _tmp=$(mktemp -d "${TMPDIR:-/tmp}/coyote-search.XXXXXX") || _die "cannot create a temporary directory"
    trap 'rm -rf -- "$_tmp"' EXIT

    local results
    case ${engine,,} in
    duckduckgo | ddg) results=$(_duckduckgo) ;;
    searxng | searx) results=$(_searxng) ;;
    brave) results=$(_brave) ;;
    tavily) results=$(_tavily) ;;
    *) _die "unknown WEB_SEARCH_ENGINE \"$engine\": use duckduckgo, searxng, brave or tavily" ;;
    esac
    if [[ -z $results ]]; then
        printf 'No results for "%s".\n' "$query" >>"$out"
        return 0
    fi
    # Each result is TITLE<TAB>URL<TAB>SNIPPET on one line.
    printf '%s\n' "$results" | head -n "$count" |
        awk -F '\t' '{ printf "%d. %s\n   %s\n", NR, $1, $2; if ($3 != "") printf "   %s\n", $3; print "" }' >>"$out"
}

_duckduckgo() {
    local url=${WEB_SEARCH_URL:-https://html.duckduckgo.com/html/}
    _get "$url?q=$(_urlencode "$query")" || return 1
    # The page links each result as <a class="result__a" href="...">title</a>
    # and then <a class="result__snippet" ...>snippet</a>; the address is
    # often a redirect through /l/?uddg=<the real address, encoded>.
    tr '\n\r\t' '   ' <"$_tmp/body" | LC_ALL=C awk '
        function text(s) {
            gsub(/<[^>]*>/, "", s)
            gsub(/&amp;/, "\\&", s); gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s)
            gsub(/&quot;/, "\"", s); gsub(/&#x27;|&#39;/, "\047", s); gsub(/&nbsp;/, " ", s)
            gsub(/  +/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s)
            return s
        }
        function unescape(s,   out, i, c, hex) {
            out = ""
            for (i = 1; i <= length(s); i++) {
                c = substr(s, i, 1)
                if (c == "%" && i + 2 <= length(s)) {
                    hex = toupper(substr(s, i + 1, 2))
                    if (hex ~ /^[0-9A-F][0-9A-F]$/) {
                        out = out sprintf("%c", index("0123456789ABCDEF", substr(hex, 1, 1)) * 16 + index("0123456789ABCDEF", substr(hex, 2, 1)) - 17)
                        i += 2
                        continue
                    }
                }
                out = out (c == "+" ? " " : c)
            }
            return out
        }
        function flush() { if (title != "" && href != "") printf "%s\t%s\t%s\n", title, href, snippet; title = href = snippet = "" }
        {
            s = $0
            while (match(s, /<a[^>]*class="result__(a|snippet)"[^>]*>/)) {
                tag = substr(s, RSTART, RLENGTH)
                s = substr(s, RSTART + RLENGTH)
                end = index(s, "</a>")
                inner = end ? substr(s, 1, end - 1) : s
                if (tag ~ /result__a"/) {
                    flush()
                    title = text(inner)
                    href = ""
                    if (match(tag, /href="[^"]*"/)) href = substr(tag, RSTART + 6, RLENGTH - 7)
                    gsub(/&amp;/, "\\&", href)
                    if (match(href, /[?&]uddg=[^&]*/)) href = unescape(substr(href, RSTART + 6, RLENGTH - 6))
                    if (href ~ /^\/\//) href = "https:" href
                } else {
                    snippet = text(inner)
                }
            }
        }
        END { flush() }'
}

_searxng() {
    local url=${WEB_SEARCH_URL:-}
    if [[ -z $url ]]; then
        [[ -n ${SEARXNG_URL:-} ]] || _die "WEB_SEARCH_ENGINE is searxng but SEARXNG_URL is not set (the address of your SearXNG instance)"
        url=${SEARXNG_URL%/}/search
    fi
    _need_jq
    _get "$url?format=json&q=$(_urlencode "$query")" || return 1
    _jq '.results[]? | [.title // "", .url // "", .content // ""]'
}

_brave() {
    [[ -n ${BRAVE_API_KEY:-} ]] || _die "WEB_SEARCH_ENGINE is brave but BRAVE_API_KEY is not set"
    _need_jq
    local url=${WEB_SEARCH_URL:-https://api.search.brave.com/res/v1/web/search}
    _get "$url?count=$count&q=$(_urlencode "$query")" -H "X-Subscription-Token: $BRAVE_API_KEY" || return 1
    _jq '.web.results[]? | [.title // "", .url // "", .description // ""]'
}

_tavily() {
    [[ -n ${TAVILY_API_KEY:-} ]] || _die "WEB_SEARCH_ENGINE is tavily but TAVILY_API_KEY is not set"
    _need_jq
    local url=${WEB_SEARCH_URL:-https://api.tavily.com/search}
    local body
    body=$(jq -n --arg q "$query" --argjson n "$count" '{query: $q, max_results: $n}')
    _get "$url" -X POST -H "Content-Type: application/json" -H "Authorization: Bearer $TAVILY_API_KEY" --data-binary "$body" || return 1
    _jq '.results[]? | [.title // "", .url // "", .content // ""]'
}

# _get URL [CURL ARGS...]: the response body in $_tmp/body.
_get() {
    local url=$1
    shift
    local status=0
    curl --fail --silent --show-error --location --max-redirs 5 \
        --connect-timeout 20 --max-time 60 --max-filesize 10485760 \
        --user-agent "Mozilla/5.0 (compatible; coyote-web-search/1)" \
        --proto '=http,https' --proto-redir '=http,https' \
        -o "$_tmp/body" "$@" -- "$url" 2>"$_tmp/err" || status=$?
    ((status == 0)) || _die "the $engine search failed: $(tr '\n' ' ' <"$_tmp/err" | sed 's/[[:space:]]*$//') (curl status $status)"
}

# _jq FILTER: the rows FILTER makes of the body, as tab-separated lines
# with tabs and line breaks inside a field made spaces.
_jq() {
    jq -r "$1 | map(tostring | gsub(\"[\\t\\r\\n]+\"; \" \")) | @tsv" <"$_tmp/body" 2>"$_tmp/err" ||
        _die "the $engine search returned something that is not its JSON: $(head -c 200 "$_tmp/body")"
}

_need_jq() {
    command -v jq >/dev/null 2>&1 || _die "the $engine engine needs jq, which is not installed (Debian: apt-get install jq)"
}

# _urlencode TEXT: TEXT percent-encoded for a query string.
_urlencode() {
    local LC_ALL=C s=$1 i c out=
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        case $c in
        [A-Za-z0-9.~_-]) out+=$c ;;
        ' ') out+=+ ;;
        *) printf -v c '%%%02X' "'$c" && out+=$c ;;
        esac
    done
    printf '%s' "$out"
}

_die() {
    printf 'web_search: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
