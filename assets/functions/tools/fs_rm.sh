#!/usr/bin/env bash
set -eo pipefail

# @describe Delete a file, a symbolic link or a directory with everything in it. Needs the user's confirmation, which names how many files a directory holds.
# @option --path! The file or directory to delete.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local path=${argc_path:-}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n $path ]] || _die "path is required"
    # A path that names a root, the working directory or its parents would
    # delete far more than the model can mean.
    local trimmed=${path%/}
    case /$trimmed/ in
    // | /./ | */../* | */./ | /~/) _die "refusing to delete $path: name the file or directory itself" ;;
    esac
    local real
    real=$(cd -P -- "$(dirname -- "$trimmed")" 2>/dev/null && pwd -P)/$(basename -- "$trimmed")
    case $(pwd -P)/ in
    "$real"/*) _die "refusing to delete $path: it holds the working directory" ;;
    esac
    [[ $real != "${HOME%/}" ]] || _die "refusing to delete the home directory"
    [[ -e $path || -L $path ]] || _die "no such file or directory: $path"

    local what
    if [[ -d $path && ! -L $path ]]; then
        local n
        n=$(find "$path" -mindepth 1 -type f 2>/dev/null | wc -l)
        what="the directory $path and the $((n)) files in it"
    else
        what=$path
    fi
    _load_guard
    guard_path "$path" "Delete $what?"
    rm -rf -- "$path" || _die "cannot delete $path"
    [[ ! -e $path && ! -L $path ]] || _die "$path is still there after deleting (permission denied?)"
    printf 'Deleted %s.\n' "$what" >>"$out"
}

# _load_guard: defines guard_operation and guard_path from utils/ of the
# functions directory (LLM_ROOT_DIR, or the directory above this tool's).
_load_guard() {
    local guard=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils/guard_operation.sh
    # shellcheck source=../utils/guard_operation.sh
    source "$guard" && declare -F guard_path >/dev/null ||
        _die "cannot load guard_path from $guard; refusing to delete without a confirmation guard"
}

_die() {
    printf 'fs_rm: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
