#!/usr/bin/env bash
set -eo pipefail

# @describe Fetch a web page or other text resource over HTTP(S) and return it as plain text: HTML is turned into readable text (scripts, styles and markup removed), other text is returned as it is. Pages over 5 MiB are cut, and the text returned is at most 100 KiB.
# @option --url! The http:// or https:// address to fetch.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local url=${argc_url:-}
    local out=${LLM_OUTPUT:-/dev/stdout}
    local max_download=5242880 max_text=102400

    [[ -n $url ]] || _die "url is required"
    case $url in
    [hH][tT][tT][pP]://?* | [hH][tT][tT][pP][sS]://?*) ;;
    *) _die "only http:// and https:// addresses can be fetched, not \"$url\"" ;;
    esac
    command -v curl >/dev/null 2>&1 || _die "curl is not installed"

    _tmp=$(mktemp -d "${TMPDIR:-/tmp}/coyote-fetch.XXXXXX") || _die "cannot create a temporary directory"
    local body=$_tmp/body headers=$_tmp/headers text=$_tmp/text

    # head stops the download at the size limit; curl then fails with a
    # write error (23) or SIGPIPE (141), which is not a failure here.
    local status=0
    curl --fail --silent --show-error --location --max-redirs 10 \
        --connect-timeout 20 --max-time 120 \
        --user-agent "coyote-fetch/1 (+curl)" \
        --proto '=http,https' --proto-redir '=http,https' \
        --dump-header "$headers" -- "$url" 2>"$_tmp/err" |
        head -c "$((max_download + 1))" >"$body" || status=${PIPESTATUS[0]}
    local size
    size=$(wc -c <"$body")
    size=$((size))
    if ((status != 0)) && ! ((size > max_download && (status == 23 || status == 141))); then
        _die "cannot fetch $url: $(tr '\n' ' ' <"$_tmp/err")(curl status $status)"
    fi

    # The content type of the last response (after any redirects).
    local type
    type=$(LC_ALL=C awk 'tolower($0) ~ /^content-type:/ { sub(/^[^:]*:[ \t]*/, ""); sub(/[ \t\r]*$/, ""); t = tolower($0) } END { print t }' <"$headers")
    case $type in
    '' | text/html* | application/xhtml*)
        if [[ -z $type ]] && ! LC_ALL=C grep -qi '<html\|<body\|<p[ >]\|<div' <"$body"; then
            cp -- "$body" "$text"
        else
            _html_to_text <"$body" >"$text"
        fi
        ;;
    text/* | application/json* | application/*+json* | application/xml* | application/*+xml* | application/javascript* | application/x-yaml* | application/yaml*)
        cp -- "$body" "$text"
        ;;
    *)
        _die "$url is not text (its content type is $type)"
        ;;
    esac
    if [[ -s $text ]] && ! LC_ALL=C grep -qI '' <"$text"; then
        _die "$url is not text (it holds binary data)"
    fi

    local length
    length=$(wc -c <"$text")
    length=$((length))
    {
        if ((length == 0)); then
            printf '(the page has no text)\n'
        elif ((length > max_text)); then
            head -c "$max_text" <"$text"
            printf '\n[... the rest of the text, %d bytes, left out ...]\n' "$((length - max_text))"
        else
            cat <"$text"
        fi
        if ((size > max_download)); then
            printf '[the page is larger than %d bytes: only its beginning was read]\n' "$max_download"
        fi
    } >>"$out"
    rm -rf -- "$_tmp"
}

# _html_to_text: HTML on stdin, readable text on stdout. Uses w3m or lynx
# when installed, and otherwise a rough conversion in awk.
_html_to_text() {
    if command -v w3m >/dev/null 2>&1; then
        w3m -dump -T text/html -cols 100 -O UTF-8
        return
    fi
    if command -v lynx >/dev/null 2>&1; then
        lynx -dump -stdin -nolist -width=100 -display_charset=UTF-8
        return
    fi
    # One record a tag: with RS="<" each record after the first is
    # "TAG ATTRIBUTES>TEXT", so one pass does, in time linear in the page.
    LC_ALL=C awk -v RS='<' '
        BEGIN {
            split("script style noscript svg template iframe object", names, " ")
            for (i in names) hidden[names[i]] = 1
            split("address article aside blockquote br dd div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr main nav ol p pre section table tr ul", names, " ")
            for (i in names) block[names[i]] = 1
        }
        NR == 1 { text($0); next }
        in_comment {
            if ((e = index($0, "-->")) > 0) {
                in_comment = 0
                text(substr($0, e + 3))
            }
            next
        }
        substr($0, 1, 3) == "!--" {
            rest = substr($0, 4)
            if ((e = index(rest, "-->")) > 0) text(substr(rest, e + 3))
            else in_comment = 1
            next
        }
        {
            gt = index($0, ">")
            low = tolower($0)
            if (gt == 0 || !match(low, /^\/?[a-z!?][a-z0-9-]*/)) {
                # Not a tag: a "<" in the text.
                if (hiding == "") text("<" $0)
                next
            }
            closing = substr(low, 1, 1) == "/"
            name = substr(low, RSTART + closing, RLENGTH - closing)
            after = substr($0, gt + 1)
            if (hiding != "") {
                if (closing && name == hiding) {
                    hiding = ""
                    text(after)
                }
                next
            }
            if (name == "title") {
                if (closing) {
                    in_title = 0
                    t = entities(title_text)
                    gsub(/[ \t\r\n]+/, " ", t)
                    gsub(/^ | $/, "", t)
                    if (t != "") {
                        print t
                        printed = blank = 1
                    }
                } else {
                    in_title = 1
                    title_text = ""
                }
                text(after)
                next
            }
            if (!closing && (name in hidden) && substr($0, gt - 1, 1) != "/") {
                hiding = name
                next
            }
            if (name == "li" && !closing) {
                end_line()
                line = "- "
            } else if (name in block) {
                end_line()
            } else if (name == "td" || name == "th") {
                line = line " "
            }
            text(after)
        }
        END { end_line() }

        function text(t) {
            if (in_title) {
                title_text = title_text t
                return
            }
            gsub(/[ \t\r\n]+/, " ", t)
            line = line t
        }
        # end_line: prints the line gathered so far; runs of empty lines
        # become one blank line.
        function end_line(   l) {
            l = entities(line)
            line = ""
            gsub(/^ +| +$/, "", l)
            if (l == "" || l == "-") {
                if (printed) blank = 1
                return
            }
            if (blank && printed) print ""
            blank = 0
            print l
            printed = 1
        }
        function entities(s) {
            gsub(/&nbsp;|&#160;|&#[xX][aA]0;/, " ", s)
            gsub(/&lt;|&#60;/, "<", s)
            gsub(/&gt;|&#62;/, ">", s)
            gsub(/&quot;|&#34;/, "\"", s)
            gsub(/&apos;|&#39;|&#[xX]27;/, "\047", s)
            gsub(/&amp;|&#38;/, "\\&", s)
            return s
        }'
}

_tmp=
_die() {
    printf 'fetch_url_as_text: %s\n' "$1" >&2
    [[ -z $_tmp ]] || rm -rf -- "$_tmp"
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
