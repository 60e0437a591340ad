#!/usr/bin/env bash
# Tools of the reviewer agent: read the changes of the git work tree that
# coyote runs in, without changing anything.
set -eo pipefail

# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

# @cmd Show the state of the work tree: the branch and how far it is ahead of or behind its upstream, then one line per changed file (XY path: X is the staged state, Y the unstaged one; M modified, A added, D deleted, R renamed, ?? untracked).
git_status() {
    _git_repo
    _git_capped 500 "too many changed files; use git_diff with --stat" status --short --branch --untracked-files=all
}

# @cmd Show changes as a unified diff. By default every uncommitted change (staged and unstaged) against HEAD; --staged for what is staged for the next commit only; --unstaged for what is not staged yet; --ref to compare against another commit or branch (e.g. main, HEAD~3), which with --staged compares the staged state to it. Untracked files are listed after the diff; read them with show_file.
# @option --ref The commit or branch to compare against.
# @flag --staged Only staged changes.
# @flag --unstaged Only changes that are not staged.
# @option --path Only changes to this file or directory.
# @flag --stat Only the list of changed files with line counts, no diff.
# @option --context=3 Lines of context around each change.
git_diff() {
    _git_repo
    local ref=${argc_ref:-} staged=${argc_staged:-} unstaged=${argc_unstaged:-}
    [[ -z $staged || -z $unstaged ]] || _die "--staged and --unstaged exclude each other (give neither for both)"
    [[ -z $ref || -z $unstaged ]] || _die "--ref compares against a commit; --unstaged compares against the staged state: give one of them"
    _number "${argc_context:-3}" context 0 100
    local -a args=(diff --no-ext-diff)
    # -U implies the patch, so --stat leaves it out.
    if [[ -n ${argc_stat:-} ]]; then args+=(--stat=120); else args+=("-U$REPLY"); fi
    if [[ -n $staged ]]; then
        args+=(--cached)
    fi
    if [[ -n $ref ]]; then
        _git_ref_arg "$ref"
        git rev-parse --verify --quiet "$ref^{commit}" >/dev/null || _die "no commit named $ref in this repository"
        args+=("$ref")
    elif [[ -z $staged && -z $unstaged ]]; then
        # Both staged and unstaged: against HEAD, or against nothing in a
        # repository without commits yet.
        if git rev-parse --verify --quiet HEAD >/dev/null; then
            args+=(HEAD)
        else
            args+=("$(git hash-object -t tree /dev/null)")
        fi
    fi
    args+=(--)
    local pathspec=.
    if [[ -n ${argc_path:-} ]]; then
        _ws_path "$argc_path"
        pathspec=$REL
        args+=("$REL")
    fi
    local out
    _temp
    out=$REPLY
    git -c color.ui=never -c core.quotepath=off "${args[@]}" >"$out" 2>"$out.err" ||
        _die "git diff failed: $(head -c 2000 -- "$out.err")"
    _TEMPS+=("$out.err")
    if [[ -s $out ]]; then
        _emit_capped "$out" 3000 "give --path for one file, or --stat for the list"
    else
        _out "No changes."
    fi
    if [[ -z $staged && -z $ref ]]; then
        local untracked
        untracked=$(git -c core.quotepath=off ls-files --others --exclude-standard -- "$pathspec" | head -n 101)
        if [[ -n $untracked ]]; then
            _out "" "Untracked files (not in the diff):"
            printf '%s\n' "$untracked" | head -n 100 >>"${LLM_OUTPUT:-/dev/stdout}"
        fi
    fi
}

# @cmd Show a file with line numbers: as it is in the work tree, or as it was at a commit (--ref). Long files come in pieces: give --offset to read on.
# @option --path! The file, relative to the workspace.
# @option --ref Show the file as it is at this commit or branch instead.
# @option --offset=1 The first line to show.
# @option --limit=500 How many lines to show at most.
show_file() {
    _ws_path "${argc_path:-}"
    local path=$REPLY rel=$REL ref=${argc_ref:-}
    if [[ -z $ref ]]; then
        _read_numbered "$path" "$rel" "${argc_offset:-1}" "${argc_limit:-500}"
        return
    fi
    _git_repo
    _git_ref_arg "$ref"
    git rev-parse --verify --quiet "$ref^{commit}" >/dev/null || _die "no commit named $ref in this repository"
    local copy
    _temp
    copy=$REPLY
    # <rev>:./<path> is relative to the working directory.
    git cat-file -e "$ref:./$rel" 2>/dev/null || _die "$rel does not exist at $ref"
    git show "$ref:./$rel" >"$copy" 2>/dev/null || _die "cannot show $rel at $ref"
    _read_numbered "$copy" "$rel at $ref" "${argc_offset:-1}" "${argc_limit:-500}"
}

# @cmd Read the history: one line per commit (short hash, date, author, subject), newest first. Use a range such as main..HEAD for the commits of a branch.
# @option --ref=HEAD The commit, branch or tag to start from, or a range.
# @option --path Only commits that changed this file or directory.
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

# The helpers (_out, _die, _ws_path, _load_guard, …) are shared by the
# bundled agents: functions/utils/workspace.sh (LLM_ROOT_DIR, else the
# config directory's functions/ beside agents/).
# shellcheck source=/dev/null
source "${LLM_ROOT_DIR:-${BASH_SOURCE[0]%/*}/../../functions}/utils/workspace.sh" ||
    { echo "cannot load functions/utils/workspace.sh: coyote installs it with the bundled tools (coyote --build-tools)" >&2; exit 1; }

eval "$(argc --argc-eval "$0" "$@")"
