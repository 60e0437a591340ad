#!/usr/bin/env bash
set -eo pipefail

# @describe Replace one exact piece of text in a file with another. The old text must occur exactly once in the file (whitespace and line breaks included); when it occurs more than once, add surrounding lines to make it unique. Needs the user's confirmation.
# @option --path! The file to change.
# @option --old! The exact text to replace; it must occur once in the file.
# @option --new! The text to put in its place (empty to delete the old text).
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local path=${argc_path:-} old=${argc_old-} new=${argc_new-}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n $path ]] || _die "path is required"
    [[ -n $old ]] || _die "old must not be empty"
    [[ $old != "$new" ]] || _die "old and new are the same text: nothing to change"
    [[ -e $path ]] || _die "no such file: $path (create it with fs_write)"
    [[ ! -d $path ]] || _die "$path is a directory"
    [[ -r $path && -w $path ]] || _die "cannot change $path: permission denied"
    if [[ -s $path ]] && ! LC_ALL=C grep -qI '' <"$path"; then
        _die "$path looks like a binary file, not text"
    fi

    # The texts reach awk through the environment, where Linux allows at
    # most 128 KiB a variable.
    local LC_ALL=C
    ((${#old} <= 100000 && ${#new} <= 100000)) ||
        _die "old and new must each be at most 100000 bytes (rewrite the whole file with fs_write instead)"

    local found count first second
    found=$(_patch find) || _die "cannot read $path"
    read -r count first second <<<"$found"
    case $count in
    0) _die "the old text does not occur in $path (it must match exactly, whitespace and line breaks included; read the file again with fs_read)" ;;
    1) ;;
    *) _die "the old text occurs more than once in $path (from line $first and from line $second); include more of the surrounding text so that it occurs once" ;;
    esac

    _load_guard
    guard_path "$path" "Change $path at line $first?"

    _patch apply || _die "$path changed while being patched; read it again"
    printf 'Changed %s at line %d: replaced %d bytes with %d.\n' "$path" "$first" "${#old}" "${#new}" >>"$out"
}

# _patch find|apply: finds the first two occurrences (overlapping ones
# count) of old in path and prints "COUNT LINE LINE"; or, when old occurs
# exactly once, replaces it with new in path (and fails otherwise). The file
# is taken as lines, so that no awk has to build one large string.
_patch() {
    local eol=
    [[ -n $(tail -c 1 <"$path") ]] || eol=1
    LC_ALL=C FS_PATCH_OLD=$old FS_PATCH_NEW=$new FS_PATCH_FILE=$path FS_PATCH_EOL=$eol \
        awk -v mode="$1" '
        { L[NR] = $0 }
        END {
            # L[1..N] are the pieces of the file between line breaks.
            N = NR
            if (ENVIRON["FS_PATCH_EOL"] != "") L[++N] = ""
            k = split(ENVIRON["FS_PATCH_OLD"], O, "\n")
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
                print found, at[1], at[2]
                exit 0
            }
            if (found != 1) exit 3

            out = ENVIRON["FS_PATCH_FILE"]
            i = at[1]
            e = i + k - 1
            for (j = 1; j < i; j++) printf "%s\n", L[j] > out
            printf "%s%s", substr(L[i], 1, col[1] - 1), ENVIRON["FS_PATCH_NEW"] > out
            if (k == 1) printf "%s", substr(L[i], col[1] + length(O[1])) > out
            else printf "%s", substr(L[e], length(O[k]) + 1) > out
            for (j = e + 1; j <= N; j++) printf "\n%s", L[j] > out
            close(out)
        }
        # spans(i): whether the lines of old, from the second on, match the
        # lines from i on: L[i] ends with O[1], the lines between are equal,
        # and L[i+k-1] starts with O[k].
        function spans(i,   j) {
            if (length(O[1]) > length(L[i])) return 0
            if (substr(L[i], length(L[i]) - length(O[1]) + 1) != O[1]) return 0
            for (j = 2; j < k; j++) if (L[i + j - 1] != O[j]) return 0
            return substr(L[i + k - 1], 1, length(O[k])) == O[k]
        }' <"$path"
}

# _load_guard: defines guard_operation and guard_path from utils/ of the
# functions directory (LLM_ROOT_DIR, or the directory above this tool's).
_load_guard() {
    local guard=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils/guard_operation.sh
    # shellcheck source=../utils/guard_operation.sh
    source "$guard" && declare -F guard_path >/dev/null ||
        _die "cannot load guard_path from $guard; refusing to change files without a confirmation guard"
}

_die() {
    printf 'fs_patch: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
