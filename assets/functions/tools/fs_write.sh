#!/usr/bin/env bash
set -eo pipefail

# @describe Write text to a file, creating the file and any missing parent directories. Replacing an existing file needs the user's confirmation. To change part of a file, use fs_patch.
# @option --path! The file to write.
# @option --contents! The complete text of the file.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local path=${argc_path:-} contents=${argc_contents-}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n $path ]] || _die "path is required"
    [[ ! -d $path ]] || _die "$path is a directory"
    _load_guard
    local verb=Created
    if [[ -e $path || -L $path ]]; then
        guard_path "$path" "Replace the contents of $path?"
        verb=Replaced
    fi
    local parent=.
    [[ $path != */* ]] || parent=${path%/*}
    [[ -n $parent ]] || parent=/
    mkdir -p -- "$parent" || _die "cannot create the directory $parent"
    printf '%s' "$contents" >"$path" || _die "cannot write $path"
    local size unit=bytes
    size=$(wc -c <"$path")
    size=$((size))
    ((size != 1)) || unit=byte
    printf '%s %s (%d %s).\n' "$verb" "$path" "$size" "$unit" >>"$out"
}

# _load_guard: defines guard_operation and guard_path from utils/ of the
# functions directory (LLM_ROOT_DIR, or the directory above this tool's).
_load_guard() {
    local guard=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils/guard_operation.sh
    # shellcheck source=../utils/guard_operation.sh
    source "$guard" && declare -F guard_path >/dev/null ||
        _die "cannot load guard_path from $guard; refusing to write without a confirmation guard"
}

_die() {
    printf 'fs_write: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
