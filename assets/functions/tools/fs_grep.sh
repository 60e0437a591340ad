#!/usr/bin/env bash
set -eo pipefail

# @describe Search the contents of files for a regular expression (extended syntax) and return the matching lines as "PATH:LINE:TEXT". Searches a single file, or a directory recursively, skipping binary files and .git (and, when ripgrep is installed, hidden files and whatever .gitignore lists).
# @option --pattern! The regular expression to search for.
# @option --path=. The directory or file to search.
# @option --include Only search files whose name matches this glob, such as "*.go" (ignored when path is a file).
# @flag --ignore-case Match upper and lower case letters alike.
# @option --max-results=200 The most matching lines to return.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local pattern=${argc_pattern:-} path=${argc_path:-.} include=${argc_include:-}
    local max=${argc_max_results:-200}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n $pattern ]] || _die "pattern is required"
    [[ $max =~ ^[0-9]+$ ]] && ((10#$max >= 1)) ||
        _die "max_results must be a whole number of at least 1, not \"$max\""
    max=$((10#$max))
    [[ -e $path ]] || _die "no such file or directory: $path"
    [[ -r $path ]] || _die "cannot read $path: permission denied"
    [[ -d $path ]] || include=

    local cmd
    if command -v rg >/dev/null 2>&1; then
        cmd=(rg --line-number --with-filename --no-heading --color=never --sort=path)
        [[ -z ${argc_ignore_case:-} ]] || cmd+=(--ignore-case)
        [[ -z $include ]] || cmd+=(--glob "$include")
    else
        cmd=(grep -r -n -H -I -E -s --exclude-dir=.git)
        [[ -z ${argc_ignore_case:-} ]] || cmd+=(-i)
        [[ -z $include ]] || cmd+=("--include=$include")
    fi
    cmd+=(-e "$pattern" -- "$path")

    # The search's status is taken from the pipe: 0 found, 1 found nothing,
    # 141 stopped by head once enough lines were read, others an error.
    local found rc=0
    found=$(
        "${cmd[@]}" | head -n "$((max + 1))" | LC_ALL=C awk -v width=500 '
            {
                sub(/^\.\//, "")
                if (length($0) > width) $0 = substr($0, 1, width) " [line cut]"
                print
            }'
        exit "${PIPESTATUS[0]}"
    ) || rc=$?

    if [[ -z $found ]]; then
        case $rc in
        0 | 1) printf 'No matches for /%s/ in %s\n' "$pattern" "$path" >>"$out" ;;
        *) _die "the search failed (status $rc): is the regular expression valid?" ;;
        esac
        return 0
    fi
    local lines=()
    mapfile -t lines <<<"$found"
    {
        if ((${#lines[@]} > max)); then
            printf '%s\n' "${lines[@]:0:max}"
            printf '(more matches not shown: narrow the pattern, path or include)\n'
        else
            printf '%s\n' "${lines[@]}"
        fi
    } >>"$out"
}

_die() {
    printf 'fs_grep: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
