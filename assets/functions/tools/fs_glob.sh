#!/usr/bin/env bash
set -eo pipefail

# @describe Find files and directories by a glob pattern. A pattern without a slash, such as "*.go", matches names at any depth; one with a slash, such as "src/*.md" or "**/test_*.py", matches paths relative to "path". * and ? never match a slash, ** matches any number of directories, [abc] and {go,mod} work as in bash. Returns one path a line, sorted; directories end with a slash; .git directories are skipped.
# @option --pattern! The glob pattern.
# @option --path=. The directory to search in.
# @option --max-results=500 The most paths to return.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local pattern=${argc_pattern:-} dir=${argc_path:-.} max=${argc_max_results:-500}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n $pattern ]] || _die "pattern is required"
    [[ $max =~ ^[0-9]+$ ]] && ((10#$max >= 1)) ||
        _die "max_results must be a whole number of at least 1, not \"$max\""
    max=$((10#$max))
    [[ -e $dir ]] || _die "no such directory: $dir"
    [[ -d $dir ]] || _die "$dir is not a directory"

    # Move the pattern's leading literal directories into the directory to
    # search, so that "src/**/*.go" walks src only, and "/etc/*.conf" works.
    local base=${dir%/} rest=${pattern#./} seg
    [[ -n $base ]] || base=/
    if [[ $rest == /* ]]; then
        base=/
        rest=${rest#/}
    fi
    while [[ $rest == */* ]]; do
        seg=${rest%%/*}
        case $seg in
        *[\*\?\[\{]*) break ;;
        esac
        rest=${rest#*/}
        [[ -n $seg ]] || continue
        case $base in
        /) base=/$seg ;;
        .) base=$seg ;;
        *) base=$base/$seg ;;
        esac
    done
    [[ -n $rest ]] || _die "pattern \"$pattern\" names no files (it ends with a slash)"

    # A slash-free pattern matches names at any depth.
    local anywhere=
    [[ $pattern == */* ]] || anywhere=1
    local regex
    regex=$(_glob_to_ere "$rest") || exit 1
    if [[ -n $anywhere ]]; then
        regex="(^|/)${regex#^}"
    fi

    local depth=()
    if [[ -z $anywhere && $rest != *'**'* && $rest != *'{'* ]]; then
        local slashes=${rest//[!\/]/}
        depth=(-maxdepth "$((${#slashes} + 1))")
    fi

    local matches=()
    if [[ -d $base ]]; then
        local prefix=$base/
        [[ $base == . ]] && prefix=
        [[ $base == / ]] && prefix=/
        mapfile -t matches < <(
            cd -- "$base" &&
                find . "${depth[@]}" -name .git -prune -o -print 2>/dev/null |
                sed -e '/^\.$/d' -e 's|^\./||' |
                grep -E -- "$regex" |
                LC_ALL=C sort
        )
    fi

    if ((${#matches[@]} == 0)); then
        printf 'No paths match "%s" (searched in %s)\n' "$pattern" "$dir" >>"$out"
        return 0
    fi
    local m n=0
    {
        for m in "${matches[@]}"; do
            ((n < max)) || break
            if [[ -d $base/$m ]]; then
                printf '%s%s/\n' "$prefix" "$m"
            else
                printf '%s%s\n' "$prefix" "$m"
            fi
            n=$((n + 1))
        done
        if ((${#matches[@]} > max)); then
            printf '(%d more paths not shown: narrow the pattern or the directory)\n' "$((${#matches[@]} - max))"
        fi
    } >>"$out"
}

# _glob_to_ere GLOB: the extended regular expression, anchored at both
# ends, that matches the relative paths GLOB matches.
_glob_to_ere() {
    local glob=$1 re='' c i=0 n=${#1} braces=0 j class
    while ((i < n)); do
        c=${glob:i:1}
        case $c in
        '*')
            if [[ ${glob:i:3} == '**/' ]]; then
                re+='(.*/)?'
                i=$((i + 3))
                continue
            elif [[ ${glob:i:2} == '**' ]]; then
                re+='.*'
                i=$((i + 2))
                continue
            fi
            re+='[^/]*'
            ;;
        '?') re+='[^/]' ;;
        '[')
            j=$((i + 1))
            class='['
            if [[ ${glob:j:1} == '!' || ${glob:j:1} == '^' ]]; then
                class+='^'
                j=$((j + 1))
            fi
            if [[ ${glob:j:1} == ']' ]]; then
                class+=']'
                j=$((j + 1))
            fi
            while ((j < n)) && [[ ${glob:j:1} != ']' ]]; do
                class+=${glob:j:1}
                j=$((j + 1))
            done
            if ((j < n)); then
                re+="$class]"
                i=$((j + 1))
                continue
            fi
            re+='\['
            ;;
        '{')
            re+='('
            braces=$((braces + 1))
            ;;
        '}')
            if ((braces > 0)); then
                re+=')'
                braces=$((braces - 1))
            else
                re+='\}'
            fi
            ;;
        ',')
            if ((braces > 0)); then re+='|'; else re+=','; fi
            ;;
        '\')
            # An escaped character stands for itself.
            i=$((i + 1))
            c=${glob:i:1}
            [[ -n $c ]] || c='\'
            _ere_append_literal "$c"
            ;;
        *) _ere_append_literal "$c" ;;
        esac
        i=$((i + 1))
    done
    ((braces == 0)) || _die "pattern \"$glob\" has an unclosed {"
    printf '^%s$\n' "$re"
}

# _ere_append_literal CHAR: appends to the caller's re an extended regular
# expression that matches CHAR itself.
_ere_append_literal() {
    case $1 in
    '^') re+='\^' ;;
    [].[\\*+?\(\)\|\$\{\}]) re+="[$1]" ;;
    *) re+=$1 ;;
    esac
}

_die() {
    printf 'fs_glob: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
