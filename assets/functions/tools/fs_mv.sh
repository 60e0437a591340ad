#!/usr/bin/env bash
set -eo pipefail

# @describe Move or rename a file or directory, creating the destination's missing parent directories. Never replaces an existing destination. Needs the user's confirmation.
# @option --source! The file or directory to move.
# @option --destination! The new path (not an existing file or directory).
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local src=${argc_source:-} dst=${argc_destination:-}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n $src ]] || _die "source is required"
    [[ -n $dst ]] || _die "destination is required"
    [[ -e $src || -L $src ]] || _die "no such file or directory: $src"
    [[ ! -e $dst && ! -L $dst ]] || _die "$dst already exists; delete it first with fs_rm or choose another name"
    _load_guard
    guard_path "$src" "Move $src to $dst?"
    local parent=.
    [[ $dst != */* ]] || parent=${dst%/*}
    [[ -n $parent ]] || parent=/
    mkdir -p -- "$parent" || _die "cannot create the directory $parent"
    # -n: a destination that appeared meanwhile is kept, and the check
    # below says so.
    mv -n -- "$src" "$dst" || _die "cannot move $src to $dst"
    [[ ! -e $src && ! -L $src ]] || _die "$src was not moved: $dst appeared meanwhile"
    printf 'Moved %s to %s.\n' "$src" "$dst" >>"$out"
}

# _load_guard: defines guard_operation and guard_path from utils/ of the
# functions directory (LLM_ROOT_DIR, or the directory above this tool's).
_load_guard() {
    local guard=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils/guard_operation.sh
    # shellcheck source=../utils/guard_operation.sh
    source "$guard" && declare -F guard_path >/dev/null ||
        _die "cannot load guard_path from $guard; refusing to move files without a confirmation guard"
}

_die() {
    printf 'fs_mv: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
