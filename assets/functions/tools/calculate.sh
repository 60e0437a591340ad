#!/usr/bin/env bash
set -eo pipefail

# @describe Evaluate an arithmetic expression exactly as written and return its value, to up to 15 significant digits. Knows + - * / % ^ (or **), parentheses, numbers such as 2.5 or 1e-3, the constant pi and the functions sqrt, exp, log (natural), log10, sin, cos, tan, atan2(y, x), abs, floor, ceil and int. Use it instead of doing arithmetic in your head.
# @option --expression! The expression, such as "(3.5 * 2^10) / sqrt(7)".
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local expr=${argc_expression:-}
    local out=${LLM_OUTPUT:-/dev/stdout}

    [[ -n ${expr//[[:space:]]/} ]] || _die "expression is required"
    ((${#expr} <= 2000)) || _die "the expression is longer than 2000 characters"
    # Only numbers, operators, parentheses and the known names may reach
    # awk, which could otherwise run commands (system) or read files.
    local rest
    rest=$(printf '%s' "$expr" | LC_ALL=C sed -E \
        -e 's/(sqrt|exp|log10|log|sin|cos|tan|atan2|abs|floor|ceil|int|pi)//g' \
        -e 's/([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?//g')
    [[ $rest =~ ^[-+*/%^(),[:space:]]*$ ]] ||
        _die "the expression may hold only numbers, + - * / % ^ ( ) , pi and the functions sqrt exp log log10 sin cos tan atan2 abs floor ceil int; it has \"${rest//[-+*\/%^(),[:space:]]/}\""
    local prog=${expr//\*\*/^}
    prog=$(printf '%s' "$prog" | LC_ALL=C sed -E 's/(^|[^a-z0-9_])pi([^a-z0-9_(]|$)/\1_pi()\2/g; s/(^|[^a-z0-9_])pi([^a-z0-9_(]|$)/\1_pi()\2/g')
    local result
    result=$(LC_ALL=C awk "
        function _pi() { return atan2(0, -1) }
        function log10(x) { return log(x) / log(10) }
        function tan(x) { return sin(x) / cos(x) }
        function abs(x) { return x < 0 ? -x : x }
        function floor(x) { return x == int(x) || x >= 0 ? int(x) : int(x) - 1 }
        function ceil(x) { return x == int(x) || x < 0 ? int(x) : int(x) + 1 }
        BEGIN { r = ($prog); printf \"%.15g\\n\", r }" 2>&1) ||
        _die "cannot evaluate \"$expr\": ${result##*awk: }"
    case $result in
    *nan* | *inf*) _die "\"$expr\" has no finite value ($result): check for a division by zero or the log or square root of a negative number" ;;
    esac
    printf '%s = %s\n' "$expr" "$result" >>"$out"
}

_die() {
    printf 'calculate: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
