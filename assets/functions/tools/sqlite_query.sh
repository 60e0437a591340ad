#!/usr/bin/env bash
set -eo pipefail

# @describe Run SQL on a SQLite database file with the sqlite3 command and return the result as CSV with a header line. The database is opened read-only unless --write is given; writing (INSERT, UPDATE, CREATE, ...) needs --write and the user's confirmation. Dot-commands, ATTACH and extensions are refused. To learn the schema, query sqlite_schema.
# @option --database! The SQLite database file.
# @option --query! One or more SQL statements, separated by semicolons.
# @flag --write Open the database for writing (creating it if missing).
# @option --max-rows=500 The most result lines to return.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local db=${argc_database:-} query=${argc_query:-} max=${argc_max_rows:-500}
    local out=${LLM_OUTPUT:-/dev/stdout}
    _load_utils

    command -v sqlite3 >/dev/null 2>&1 || _die "the sqlite3 command is not installed (Debian: apt-get install sqlite3; macOS has it)"
    [[ -n $db ]] || _die "database is required"
    [[ -n ${query//[[:space:]]/} ]] || _die "query is required"
    [[ $max =~ ^[0-9]+$ ]] && ((10#$max >= 1)) ||
        _die "max_rows must be a whole number of at least 1, not \"$max\""
    max=$((10#$max))
    [[ ! -d $db ]] || _die "$db is a directory, not a database file"
    # sqlite3 has no "--": a name that starts with - would be an option.
    [[ $db != -* ]] || db=./$db
    # -safe refuses dot-commands that run programs or touch other files,
    # ATTACH and load_extension; a line of the query that starts with a dot
    # would still be read as a dot-command, so none may.
    if grep -q '^[[:space:]]*\.' <<<"$query"; then
        _die "dot-commands (lines starting with \".\") are not SQL; query sqlite_schema for the tables"
    fi
    local mode=(-readonly)
    if [[ -n ${argc_write:-} ]]; then
        mode=()
        _load_guard
        guard_path "$db" "Run this SQL, which may change $db? $query"
    else
        [[ -e $db ]] || _die "no such database: $db (pass --write to create it)"
    fi
    local result status=0
    result=$(sqlite3 -safe -batch -bail "${mode[@]}" -header -csv "$db" <<<"$query" 2>&1) || status=$?
    if ((status != 0)); then
        _die "sqlite3 failed (exit status $status): $result"
    fi
    query_result "$result" "$max" >>"$out"
}

# _load_guard: defines guard_operation and guard_path from utils/ of the
# functions directory (LLM_ROOT_DIR, or the directory above this tool's).
_load_guard() {
    local guard=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils/guard_operation.sh
    # shellcheck source=../utils/guard_operation.sh
    source "$guard" && declare -F guard_path >/dev/null ||
        _die "cannot load guard_path from $guard; refusing to write without a confirmation guard"
}

# _load_utils: defines query_result from utils/ of the functions directory.
_load_utils() {
    local utils=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils
    # shellcheck source=../utils/query_result.sh
    source "$utils/query_result.sh" && declare -F query_result >/dev/null ||
        _die "cannot load query_result from $utils (coyote --build-tools installs it)"
}

_die() {
    printf 'sqlite_query: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
