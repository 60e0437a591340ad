#!/usr/bin/env bash
set -eo pipefail

# @describe Run SQL with the duckdb command and return the result as CSV with a header line: on a DuckDB database file, or with no database on files directly, as in SELECT * FROM 'data.csv' or read_parquet('x.parquet'). The database is opened read-only unless --write is given; writing (INSERT, CREATE, COPY ... TO, EXPORT, ...) needs --write and the user's confirmation.
# @option --query! One or more SQL statements, separated by semicolons.
# @option --database A DuckDB database file; without it an in-memory database is used.
# @flag --write Allow statements that change the database or write files (creating the database if missing).
# @option --max-rows=500 The most result lines to return.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

main() {
    local db=${argc_database:-} query=${argc_query:-} max=${argc_max_rows:-500}
    local out=${LLM_OUTPUT:-/dev/stdout}
    _load_utils

    command -v duckdb >/dev/null 2>&1 || _die "the duckdb command is not installed (see https://duckdb.org/docs/installation)"
    [[ -n ${query//[[:space:]]/} ]] || _die "query is required"
    [[ $max =~ ^[0-9]+$ ]] && ((10#$max >= 1)) ||
        _die "max_rows must be a whole number of at least 1, not \"$max\""
    max=$((10#$max))
    [[ -z $db || ! -d $db ]] || _die "$db is a directory, not a database file"
    [[ $db != -* ]] || db=./$db
    if grep -q '^[[:space:]]*\.' <<<"$query"; then
        _die "dot-commands (lines starting with \".\") are not SQL; query information_schema.tables for the tables"
    fi
    local args=(-safe -batch -bail -csv)
    if [[ -n ${argc_write:-} ]]; then
        _load_guard
        guard_operation "Run this SQL, which may change ${db:-files}? $query"
    else
        # A read-only database refuses changes to itself, not the
        # statements that write files or load code.
        local upper
        upper=$(LC_ALL=C tr '[:lower:]' '[:upper:]' <<<"$query")
        if [[ $upper =~ (^|[^A-Z_])(COPY|EXPORT|INSTALL|LOAD|ATTACH|DETACH|CALL|PRAGMA|SET)([^A-Z_]|$) ]]; then
            _die "${BASH_REMATCH[2]} may write files, load code or change settings: pass --write to run it (it then needs the user's confirmation)"
        fi
        if [[ -n $db ]]; then
            [[ -e $db ]] || _die "no such database: $db (pass --write to create it)"
            args+=(-readonly)
        fi
    fi
    [[ -z $db ]] || args+=("$db")
    local result status=0
    result=$(duckdb "${args[@]}" <<<"$query" 2>&1) || status=$?
    if ((status != 0)); then
        _die "duckdb failed (exit status $status): $result"
    fi
    query_result "$result" "$max" >>"$out"
}

# _load_guard: defines guard_operation and guard_path from utils/ of the
# functions directory (LLM_ROOT_DIR, or the directory above this tool's).
_load_guard() {
    local guard=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils/guard_operation.sh
    # shellcheck source=../utils/guard_operation.sh
    source "$guard" && declare -F guard_operation >/dev/null ||
        _die "cannot load guard_operation from $guard; refusing to write without a confirmation guard"
}

# _load_utils: defines query_result from utils/ of the functions directory.
_load_utils() {
    local utils=${LLM_ROOT_DIR:-$(dirname -- "${BASH_SOURCE[0]}")/..}/utils
    # shellcheck source=../utils/query_result.sh
    source "$utils/query_result.sh" && declare -F query_result >/dev/null ||
        _die "cannot load query_result from $utils (coyote --build-tools installs it)"
}

_die() {
    printf 'duckdb_query: %s\n' "$1" >&2
    exit 1
}

eval "$(argc --argc-eval "$0" "$@")"
