#!/usr/bin/env bash
# Tools of the explore agent: look around a repository without changing
# anything. Every path stays inside the workspace (the directory coyote
# runs in).
set -eo pipefail

# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

# @cmd Show the layout of a directory as an indented tree with the number of files under each directory. In a git repository, files ignored by git are left out; .git and node_modules always are.
# @option --path=. The directory, relative to the workspace.
# @option --depth=3 How many levels to show; deeper files are only counted.
tree() {
    _ws_path "${argc_path:-.}"
    local dir=$REPLY rel=$REL
    [[ -d $dir ]] || _die "$rel is not a directory"
    _number "${argc_depth:-3}" depth 1 20
    local depth=$REPLY files shown
    _temp
    files=$REPLY
    _list_files "$dir" >"$files"
    _temp
    shown=$REPLY
    LC_ALL=C awk -v max="$depth" '
        { line[NR] = $0; n = split($0, p, "/"); path = ""
          for (i = 1; i < n; i++) { path = path p[i] "/"; count[path]++ } }
        END {
            for (r = 1; r <= NR; r++) {
                n = split(line[r], p, "/"); path = ""
                for (i = 1; i < n && i <= max; i++) {
                    path = path p[i] "/"
                    if (!(path in done)) {
                        done[path] = 1
                        printf "%s%s/ (%d file%s)\n", indent(i), p[i], count[path], count[path] == 1 ? "" : "s"
                    }
                }
                if (n <= max) printf "%s%s\n", indent(n), p[n]
            }
        }
        function indent(level,   s) {
            s = ""
            while (--level > 0) s = s "  "
            return s
        }' "$files" >"$shown"
    local total
    total=$(wc -l <"$files")
    _out "$rel/ ($((total)) files):"
    _emit_capped "$shown" 1500 "show a subdirectory or lower --depth"
}

# @cmd Find the files whose path matches a glob pattern. A pattern without "/" is matched against file names at any depth ("*.go", "*config*"); one with "/" against the path from --path ("cmd/*/main.go", "src/**/*.ts", where **/ stands for any number of directories). Leaves out what tree leaves out.
# @option --pattern! The glob pattern.
# @option --path=. The directory to search, relative to the workspace.
find_files() {
    local pattern=${argc_pattern:-}
    [[ -n $pattern ]] || _die "pattern is empty"
    _ws_path "${argc_path:-.}"
    local dir=$REPLY rel=$REL prefix=
    [[ -d $dir ]] || _die "$rel is not a directory"
    [[ $rel == . ]] || prefix=$rel/
    local files found f
    _temp
    files=$REPLY
    _temp
    found=$REPLY
    _list_files "$dir" >"$files"
    local loose=${pattern//\*\*\//}
    while IFS= read -r f; do
        if [[ $pattern == */* ]]; then
            # shellcheck disable=SC2053 # the pattern is a glob
            [[ $f == $pattern || $f == $loose ]] || continue
        else
            # shellcheck disable=SC2053
            [[ ${f##*/} == $pattern ]] || continue
        fi
        printf '%s%s\n' "$prefix" "$f"
    done <"$files" >"$found"
    local count
    count=$(wc -l <"$found")
    if ((count == 0)); then
        _out "No file under $rel matches $pattern."
        return
    fi
    _out "$((count)) file(s) under $rel match $pattern:"
    _emit_capped "$found" 500 "make the pattern narrower"
}

# @cmd Search the files of the workspace for lines matching a regular expression (extended syntax: write [0-9] rather than \d); prints path:line:text. Leaves out binary files, .git and node_modules (and, with ripgrep, files ignored by git).
# @option --pattern! The regular expression, e.g. "func [A-Z]" or "TODO|FIXME".
# @option --path=. The file or directory to search, relative to the workspace.
# @option --glob Only files whose name matches this pattern, e.g. "*.go".
# @flag --ignore-case Match letters of either case.
# @option --context=0 How many lines to show around each match.
grep_files() {
    _ws_path "${argc_path:-.}"
    local rel=$REL
    _number "${argc_context:-0}" context 0 20
    _search "${argc_pattern:-}" "$rel" "${argc_glob:-}" "${argc_ignore_case:-}" "$REPLY"
}

# @cmd Read a text file of the workspace, with line numbers. Long files come in pieces: give --offset to read on from a line.
# @option --path! The file, relative to the workspace.
# @option --offset=1 The first line to show.
# @option --limit=500 How many lines to show at most.
read_file() {
    _ws_path "${argc_path:-}"
    _read_numbered "$REPLY" "$REL" "${argc_offset:-1}" "${argc_limit:-500}"
}

# @cmd Summarise the history of the repository, or of one file or directory: one line per commit (short hash, date, author, subject), newest first.
# @option --path Only commits that changed this file or directory.
# @option --ref=HEAD The commit, branch or tag to start from, or a range such as main..HEAD.
# @option --limit=20 How many commits to show at most.
# @flag --stat Also list the files each commit changed, with line counts.
git_log() {
    _git_repo
    _number "${argc_limit:-20}" limit 1 500
    local limit=$REPLY ref=${argc_ref:-HEAD}
    _git_ref_arg "$ref"
    local -a args=(log --date=short "--format=%h %ad %an: %s" -n "$limit")
    [[ -z ${argc_stat:-} ]] || args+=(--stat=120)
    args+=("$ref" --)
    if [[ -n ${argc_path:-} ]]; then
        _ws_path "$argc_path"
        args+=("$REL")
    fi
    _git_capped 600 "lower --limit or give --path" "${args[@]}"
}

# @cmd Show one commit: its author, date and message, the files it changed with line counts, and its diff (long diffs are cut; give --path for one file's change).
# @option --rev! The commit: a hash, branch, tag or an expression such as HEAD~2.
# @option --path Only the change to this file or directory.
git_show() {
    _git_repo
    local rev=${argc_rev:-}
    [[ -n $rev ]] || _die "rev is empty"
    _git_ref_arg "$rev"
    git rev-parse --verify --quiet "$rev^{commit}" >/dev/null || _die "no commit named $rev in this repository"
    local -a args=(show --stat=120 --patch --format=fuller "$rev" --)
    if [[ -n ${argc_path:-} ]]; then
        _ws_path "$argc_path"
        args+=("$REL")
    fi
    _git_capped 2000 "give --path to see one file's change" "${args[@]}"
}

# @cmd Who last changed the lines of a file. With --start (and --end), each line of that range with its commit, author and date; without, a summary: how many lines each author last changed, and the latest commits that touched the file.
# @option --path! The file, relative to the workspace.
# @option --start The first line of the range.
# @option --end The last line of the range (default: 40 lines from --start).
git_blame() {
    _git_repo
    _ws_path "${argc_path:-}"
    local rel=$REL
    _text_file "$REPLY" "$rel"
    git ls-files --error-unmatch -- "$rel" >/dev/null 2>&1 || _die "$rel is not tracked by git"
    if [[ -n ${argc_start:-} ]]; then
        _number "$argc_start" start 1 100000000
        local start=$REPLY end
        _number "${argc_end:-$((start + 39))}" end "$start" 100000000
        end=$REPLY
        _git_capped 1000 "ask for a smaller range" blame --date=short -L "$start,$end" -- "$rel"
        return
    fi
    local summary
    _temp
    summary=$REPLY
    git blame --line-porcelain -- "$rel" 2>/dev/null | LC_ALL=C awk '
        /^author / { sub(/^author /, ""); lines[$0]++; total++ }
        END { for (a in lines) printf "%7d  %5.1f%%  %s\n", lines[a], 100 * lines[a] / total, a }' |
        LC_ALL=C sort -rn >"$summary" || _die "git blame failed on $rel"
    _out "$rel: lines last changed, by author:"
    _emit_capped "$summary" 30 "only the 30 largest shares are shown"
    _out "" "Latest commits that touched $rel:"
    _git_capped 10 "" log --date=short "--format=%h %ad %an: %s" -n 10 -- "$rel"
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

# _git_repo: fails unless the workspace is in a git work tree.
_git_repo() {
    command -v git >/dev/null 2>&1 || _die "git is not installed"
    _ws_root
    git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
        _die "the workspace $WS_ROOT is not inside a git repository"
}

# _git_ref_arg REF: refuses a revision that git would take for an option.
_git_ref_arg() {
    [[ $1 != -* ]] || _die "\"$1\" is not a revision (it starts with -)"
}

# _git_capped MAX NOTE ARG...: runs git ARG... and appends at most MAX
# lines of its output (see _emit_capped), or fails with its error.
_git_capped() {
    local max=$1 note=$2 out
    shift 2
    _temp
    out=$REPLY
    _TEMPS+=("$out.err")
    git -c color.ui=never -c core.quotepath=off "$@" >"$out" 2>"$out.err" ||
        _die "git $1 failed: $(head -c 2000 -- "$out.err")"
    _emit_capped "$out" "$max" "$note"
}

# _list_files DIR: prints the files under DIR relative to it, in byte
# order: in a git work tree the tracked and untracked ones that git does
# not ignore, else every file; never those under .git or node_modules.
_list_files() {
    if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        # Tracked files deleted from the work tree are left out.
        LC_ALL=C comm -23 \
            <(git -C "$1" -c core.quotepath=off ls-files --cached --others --exclude-standard | LC_ALL=C sort -u) \
            <(git -C "$1" -c core.quotepath=off ls-files --deleted | LC_ALL=C sort -u) |
            grep -Ev '(^|/)node_modules/' || true
    else
        (cd -- "$1" && find . \( -name .git -o -name node_modules \) -prune -o -type f -print) |
            sed 's|^\./||' | LC_ALL=C sort
    fi
}

# The helpers (_out, _die, _ws_path, _load_guard, …) are shared by the
# bundled agents: functions/utils/workspace.sh (LLM_ROOT_DIR, else the
# config directory's functions/ beside agents/).
# shellcheck source=/dev/null
source "${LLM_ROOT_DIR:-${BASH_SOURCE[0]%/*}/../../functions}/utils/workspace.sh" ||
    { echo "cannot load functions/utils/workspace.sh: coyote installs it with the bundled tools (coyote --build-tools)" >&2; exit 1; }

eval "$(argc --argc-eval "$0" "$@")"
