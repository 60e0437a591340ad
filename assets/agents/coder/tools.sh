#!/usr/bin/env bash
# Tools of the coder agent: read, list, search and edit the files of the
# workspace (the directory coyote runs in) and run commands there. Every
# change and every command needs the user's confirmation (or AUTO_CONFIRM).
set -eo pipefail

# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

# @cmd List the files and directories under a directory of the workspace, one path a line, directories ending in "/". Leaves out .git and node_modules.
# @option --path=. The directory, relative to the workspace.
# @option --depth=2 How many levels to go down (1: only the directory's own entries).
list_files() {
    _ws_path "${argc_path:-.}"
    local dir=$REPLY rel=$REL
    [[ -d $dir ]] || _die "$rel is not a directory"
    _number "${argc_depth:-2}" depth 1 20
    local depth=$REPLY list
    _temp
    list=$REPLY
    (
        cd -- "$dir" &&
            find . -mindepth 1 -maxdepth "$depth" \( -name .git -o -name node_modules \) -prune -o \
                \( -type d -exec printf '%s/\n' {} + \) -o -exec printf '%s\n' {} + |
            sed 's|^\./||' | LC_ALL=C sort
    ) >"$list" || _die "cannot list $rel"
    local count
    count=$(wc -l <"$list")
    _out "$rel/ ($((count)) entries, $depth level(s) deep):"
    _emit_capped "$list" 1000 "list a subdirectory or lower --depth"
}

# @cmd Read a text file of the workspace, with line numbers. Long files come in pieces: give --offset to read on from a line.
# @option --path! The file, relative to the workspace.
# @option --offset=1 The first line to show.
# @option --limit=500 How many lines to show at most.
read_file() {
    _ws_path "${argc_path:-}"
    _read_numbered "$REPLY" "$REL" "${argc_offset:-1}" "${argc_limit:-500}"
}

# @cmd Search the files of the workspace for lines matching a regular expression (extended syntax: write [0-9] rather than \d); prints path:line:text. Leaves out binary files, .git and node_modules (and, with ripgrep, files ignored by git).
# @option --pattern! The regular expression, e.g. "func [A-Z]" or "TODO|FIXME".
# @option --path=. The file or directory to search, relative to the workspace.
# @option --glob Only files whose name matches this pattern, e.g. "*.go".
# @flag --ignore-case Match letters of either case.
search() {
    _ws_path "${argc_path:-.}"
    _search "${argc_pattern:-}" "$REL" "${argc_glob:-}" "${argc_ignore_case:-}" 0
}

# @cmd Write a whole file of the workspace, creating it and any missing directories, or replacing its contents. Needs the user's confirmation. To change part of a file, use edit_file.
# @option --path! The file, relative to the workspace.
# @option --contents! The complete new contents of the file.
write_file() {
    _ws_path "${argc_path:-}"
    local path=$REPLY rel=$REL contents=${argc_contents-}
    [[ ! -d $path ]] || _die "$rel is a directory"
    local verb=Created question="Create $path (${#contents} characters)?"
    if [[ -e $path ]]; then
        verb=Replaced question="Replace the contents of $path (${#contents} characters)?"
    fi
    _load_guard
    guard_operation "$question"
    mkdir -p -- "${path%/*}" || _die "cannot create the directory of $rel"
    _write_atomic "$path" "$contents"
    _out "$verb $rel ($(_count_lines "$contents") lines)."
}

# @cmd Replace one exact snippet of a file of the workspace with new text. The snippet must occur exactly once in the file, whitespace and line breaks included: when it does not occur, or occurs more than once, nothing changes and the error says so (then read the file again, or include more surrounding lines). Needs the user's confirmation.
# @option --path! The file, relative to the workspace.
# @option --old! The exact text to replace.
# @option --new! The text to put in its place (empty to delete the snippet).
edit_file() {
    _ws_path "${argc_path:-}"
    local path=$REPLY rel=$REL old=${argc_old-} new=${argc_new-}
    [[ -n $old ]] || _die "old is empty: give the exact text to replace"
    [[ $old != "$new" ]] || _die "old and new are the same text: nothing to change"
    _text_file "$path" "$rel"
    [[ -w $path ]] || _die "cannot change $rel: permission denied"
    local size
    size=$(wc -c <"$path")
    ((size <= 4194304)) || _die "$rel is larger than 4 MiB; change it with a command instead"

    # The texts reach awk through the environment, where Linux allows at
    # most 128 KiB a variable.
    ((${#old} <= 100000 && ${#new} <= 100000)) ||
        _die "old and new must each be at most 100000 characters; rewrite the file with write_file instead"
    local found count line second
    found=$(_snippet find "$path" "$old" "$new") || _die "cannot read $rel"
    read -r count line second <<<"$found"
    case $count in
    0) _die "the old text does not occur in $rel (it must match exactly, whitespace and line breaks included); read the file again with read_file" ;;
    1) ;;
    *) _die "the old text occurs more than once in $rel (at line $line and at line $second); include more of the surrounding lines so that it occurs once" ;;
    esac
    local old_lines new_lines
    old_lines=$(_count_lines "$old")
    new_lines=$(_count_lines "$new")

    _load_guard
    guard_operation "Edit $path at line $line (replace $old_lines line(s) with $new_lines)?"
    local tmp
    tmp=$(mktemp "${path%/*}/.${path##*/}.coyote-XXXXXX") || _die "cannot create a temporary file beside $rel"
    if ! cp -p -- "$path" "$tmp" || ! _snippet apply "$path" "$old" "$new" "$tmp" || ! mv -f -- "$tmp" "$path"; then
        rm -f -- "$tmp"
        _die "cannot change $rel (did it change meanwhile? read it again)"
    fi
    _out "Changed $rel at line $line: replaced $old_lines line(s) with $new_lines."
}

# @cmd Run a command line with bash in the workspace and return its output (stdout and stderr together) and its exit status, e.g. to build or test. Needs the user's confirmation. The command reads no input; output beyond 64 KiB is cut in the middle.
# @option --command! The command line, e.g. "go test ./...".
run_command() {
    local command=${argc_command-} cap=65536 head_part=8192
    [[ -n ${command//[[:space:]]/} ]] || _die "command is empty"
    _load_guard
    _ws_root
    guard_operation "Run in $WS_ROOT: $command"
    local log status=0 size
    _temp
    log=$REPLY
    bash -c "$command" </dev/null >"$log" 2>&1 || status=$?
    size=$(wc -c <"$log")
    size=$((size))
    {
        if ((size == 0)); then
            printf '(no output)\n'
        elif ((size <= cap)); then
            cat -- "$log"
            [[ -z $(tail -c 1 -- "$log") ]] || printf '\n'
        else
            head -c "$head_part" -- "$log"
            printf '\n[... %d bytes of output left out ...]\n' "$((size - cap))"
            tail -c "$((cap - head_part))" -- "$log"
            [[ -z $(tail -c 1 -- "$log") ]] || printf '\n'
        fi
        printf '[exit status: %d]\n' "$status"
    } >>"${LLM_OUTPUT:-/dev/stdout}"
}

# _snippet find PATH OLD NEW: prints "COUNT LINE LINE": how many times
# OLD occurs in PATH (counting at most two, overlapping ones included) and
# the lines where the first two start.
# _snippet apply PATH OLD NEW OUT: writes PATH with its one occurrence of
# OLD replaced by NEW to OUT, and fails unless OLD occurs exactly once.
# The file is taken as lines, so awk never builds one large string.
_snippet() {
    local eol=
    [[ -n $(tail -c 1 -- "$2") ]] || eol=1
    LC_ALL=C SNIPPET_OLD=$3 SNIPPET_NEW=$4 SNIPPET_OUT=${5:-} SNIPPET_EOL=$eol \
        awk -v mode="$1" '
        { L[NR] = $0 }
        END {
            # L[1..N] are the pieces of the file between line breaks.
            N = NR
            if (ENVIRON["SNIPPET_EOL"] != "") L[++N] = ""
            k = split(ENVIRON["SNIPPET_OLD"], O, "\n")
            found = 0
            for (i = 1; i <= N && found < 2; i++) {
                if (k == 1) {
                    from = 1
                    while (found < 2 && (p = index(substr(L[i], from), O[1])) > 0) {
                        found++
                        at[found] = i
                        col[found] = from + p - 1
                        from += p
                    }
                } else if (i + k - 1 <= N && spans(i)) {
                    found++
                    at[found] = i
                    col[found] = length(L[i]) - length(O[1]) + 1
                }
            }
            if (mode == "find") {
                print found, at[1] + 0, at[2] + 0
                exit 0
            }
            if (found != 1) exit 3
            out = ENVIRON["SNIPPET_OUT"]
            i = at[1]
            e = i + k - 1
            printf "" > out
            for (j = 1; j < i; j++) printf "%s\n", L[j] > out
            printf "%s%s", substr(L[i], 1, col[1] - 1), ENVIRON["SNIPPET_NEW"] > out
            if (k == 1) printf "%s", substr(L[i], col[1] + length(O[1])) > out
            else printf "%s", substr(L[e], length(O[k]) + 1) > out
            for (j = e + 1; j <= N; j++) printf "\n%s", L[j] > out
            if (close(out) != 0) exit 4
        }
        # spans(i): whether OLD, of k lines, starts at the end of L[i]: L[i]
        # ends with its first line, the lines between are equal, and
        # L[i+k-1] starts with its last line.
        function spans(i,   j) {
            if (length(O[1]) > length(L[i])) return 0
            if (substr(L[i], length(L[i]) - length(O[1]) + 1) != O[1]) return 0
            for (j = 2; j < k; j++) if (L[i + j - 1] != O[j]) return 0
            return substr(L[i + k - 1], 1, length(O[k])) == O[k]
        }' <"$2"
}

# _count_lines TEXT: prints how many lines TEXT has (a last line without a
# line break counts; empty text has none).
_count_lines() {
    printf '%s' "$1" | awk 'END { printf "%d", NR }'
}

# _write_atomic PATH TEXT: replaces PATH with TEXT through a temporary file
# in its directory, keeping the old file's permissions.
_write_atomic() {
    local tmp
    tmp=$(mktemp "${1%/*}/.${1##*/}.coyote-XXXXXX") || _die "cannot create a temporary file beside $1"
    if [[ -e $1 ]]; then
        cp -p -- "$1" "$tmp" 2>/dev/null || true
    else
        chmod "$(printf '%o' $((0666 & ~$(umask))))" -- "$tmp" 2>/dev/null || true
    fi
    if ! printf '%s' "$2" >"$tmp" || ! mv -f -- "$tmp" "$1"; then
        rm -f -- "$tmp"
        _die "cannot write $1"
    fi
}

# _read_numbered PATH REL OFFSET LIMIT: appends lines OFFSET.. of the text
# file PATH, at most LIMIT, numbered, under a header line.
_read_numbered() {
    local path=$1 rel=$2 offset limit total
    _text_file "$path" "$rel"
    _number "$3" offset 1 100000000
    offset=$REPLY
    _number "$4" limit 1 5000
    limit=$REPLY
    total=$(awk 'END { print NR }' "$path")
    if ((total == 0)); then
        _out "$rel is empty."
        return
    fi
    ((offset <= total)) || _die "$rel has $total lines; offset $offset is past its end"
    local last=$((offset + limit - 1))
    ((last <= total)) || last=$total
    _out "$rel, lines $offset-$last of $total:"
    awk -v from="$offset" -v to="$last" 'NR > to { exit } NR >= from { printf "%6d\t%s\n", NR, $0 }' "$path" \
        >>"${LLM_OUTPUT:-/dev/stdout}"
    if ((last < total)); then
        _out "[... $((total - last)) more lines; read on with offset $((last + 1))]"
    fi
}

# _search PATTERN REL GLOB IGNORE_CASE CONTEXT: appends the lines under REL
# (relative to the workspace) that match PATTERN, as path:line:text, with
# ripgrep when it is installed, else grep; both leave out .git and
# node_modules, and ripgrep also what git ignores.
_search() {
    local pattern=$1 rel=$2 glob=$3 icase=$4 context=$5 hits status=0
    [[ -n $pattern ]] || _die "pattern is empty"
    [[ -e $rel ]] || _die "no such file or directory: $rel"
    _temp
    hits=$REPLY
    local -a opts=()
    [[ -z $icase ]] || opts+=(-i)
    ((context == 0)) || opts+=(-C "$context")
    if command -v rg >/dev/null 2>&1; then
        [[ -z $glob ]] || opts+=(--glob "$glob")
        rg --line-number --no-heading --with-filename --color=never --max-columns 400 \
            --hidden --glob '!.git' --glob '!node_modules' \
            "${opts[@]}" -e "$pattern" -- "$rel" >"$hits" 2>"$hits.err" || status=$?
    else
        [[ -z $glob ]] || opts+=(--include="$glob")
        grep -rnHIE --exclude-dir=.git --exclude-dir=node_modules \
            "${opts[@]}" -e "$pattern" -- "$rel" >"$hits" 2>"$hits.err" || status=$?
    fi
    _TEMPS+=("$hits.err")
    case $status in
    0) ;;
    1)
        _out "No match for $pattern in $rel."
        return
        ;;
    *) _die "search failed: $(head -c 2000 -- "$hits.err")" ;;
    esac
    local count
    count=$(wc -l <"$hits")
    _out "$((count)) line(s) under $rel:"
    sed 's|^\./||' "$hits" | cut -c 1-500 >"$hits.cut"
    _TEMPS+=("$hits.cut")
    _emit_capped "$hits.cut" 300 "narrow the pattern, --path or --glob"
}

# The helpers (_out, _die, _ws_path, _load_guard, …) are shared by the
# bundled agents: functions/utils/workspace.sh (LLM_ROOT_DIR, else the
# config directory's functions/ beside agents/).
# shellcheck source=/dev/null
source "${LLM_ROOT_DIR:-${BASH_SOURCE[0]%/*}/../../functions}/utils/workspace.sh" ||
    { echo "cannot load functions/utils/workspace.sh: coyote installs it with the bundled tools (coyote --build-tools)" >&2; exit 1; }

eval "$(argc --argc-eval "$0" "$@")"
