#!/usr/bin/env bash
# Tools of the sql agent: look at and query one SQLite database (with the
# sqlite3 program) or DuckDB database (with the duckdb program, when it is
# installed). The file is the agent variable database; queries open it
# read-only, and a statement that changes anything runs only after the
# user confirms it (or AUTO_CONFIRM is set).
set -eo pipefail

# @env LLM_OUTPUT=/dev/stdout The file to write the result to.

# @cmd List the tables and views of the database.
list_tables() {
    _db
    local sql
    case $ENGINE in
    sqlite) sql="SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY type, name;" ;;
    duckdb) sql="SELECT table_schema AS schema, table_name AS name, table_type AS type FROM information_schema.tables WHERE table_schema NOT IN ('information_schema', 'pg_catalog') ORDER BY 1, 2;" ;;
    esac
    _sql ro table "$sql"
    if [[ ! -s $SQL_OUT ]]; then
        _out "$DB has no tables or views."
        return
    fi
    _out "Tables and views of $DB ($ENGINE):"
    _emit_capped "$SQL_OUT" 1000 "too many to show"
}

# @cmd Describe a table or view: its columns (name, type, constraints), its indexes, how many rows it has and its first three rows.
# @option --table! The table or view name, as list_tables shows it.
describe_table() {
    _db
    local table=${argc_table:-}
    [[ -n $table ]] || _die "table is empty"
    local lit=${table//\'/\'\'} id=\"${table//\"/\"\"}\"
    local exists
    case $ENGINE in
    sqlite) exists="SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') AND name = '$lit';" ;;
    duckdb) exists="SELECT count(*) FROM information_schema.tables WHERE table_name = '$lit';" ;;
    esac
    _sql ro value "$exists"
    [[ $(<"$SQL_OUT") != 0 ]] || _die "$DB has no table or view named $table (list_tables lists them)"
    _out "Columns of $table:"
    case $ENGINE in
    sqlite)
        _sql ro table "SELECT name AS \"column\", type, CASE WHEN \"notnull\" THEN 'NOT NULL' ELSE '' END AS \"null\", coalesce(dflt_value, '') AS \"default\", CASE WHEN pk > 0 THEN 'PRIMARY KEY' ELSE '' END AS \"key\" FROM pragma_table_info('$lit');"
        _emit_capped "$SQL_OUT" 500 "too many columns to show"
        _sql ro table "SELECT name AS \"index\", sql AS definition FROM sqlite_master WHERE type = 'index' AND tbl_name = '$lit' AND sql IS NOT NULL ORDER BY name;"
        ;;
    duckdb)
        _sql ro table "DESCRIBE $id;"
        _emit_capped "$SQL_OUT" 500 "too many columns to show"
        _sql ro table "SELECT index_name AS \"index\", sql AS definition FROM duckdb_indexes() WHERE table_name = '$lit' ORDER BY 1;"
        ;;
    esac
    if [[ -s $SQL_OUT ]]; then
        _out "" "Indexes:"
        _emit_capped "$SQL_OUT" 100 "too many indexes to show"
    fi
    _sql ro value "SELECT count(*) FROM $id;"
    _out "" "Rows: $(<"$SQL_OUT")"
    _sql ro table "SELECT * FROM $id LIMIT 3;"
    if [[ -s $SQL_OUT ]]; then
        _out "" "First rows:"
        _emit_capped "$SQL_OUT" 40 "rows with long values"
    fi
}

# @cmd Run a read-only SQL query (SELECT, WITH, EXPLAIN, or a PRAGMA that reads) and return the result as a table. The database is opened read-only: a statement that changes anything fails here; use execute for it. Results are cut after the agent's row_limit rows: aggregate, filter or add LIMIT for large tables.
# @option --sql! The query, in the SQL of the database (SQLite or DuckDB).
query() {
    _db
    [[ -e $DB ]] || _die "the database $DB does not exist"
    local sql=${argc_sql:-}
    [[ -n ${sql//[[:space:]]/} ]] || _die "sql is empty"
    _sql ro table "$sql"
    _rows
}

# @cmd Run SQL statements that change the database (INSERT, UPDATE, DELETE, CREATE, ALTER, DROP…), in one go, stopping at the first error. Needs the user's confirmation: say first what the statements will do and why.
# @option --sql! The statements, separated by semicolons.
execute() {
    _db
    local sql=${argc_sql:-}
    [[ -n ${sql//[[:space:]]/} ]] || _die "sql is empty"
    _check_sql "$sql"
    _load_guard
    guard_operation "Change the database $DB with: $sql"
    if [[ $ENGINE == sqlite ]]; then
        sql+=$'\n;\nSELECT total_changes() AS rows_changed;'
    fi
    _sql rw table "$sql"
    _rows
}

# _db: sets DB to the database file (the agent variable database) and
# ENGINE to sqlite or duckdb, from the file's header (by its extension
# for a file that does not exist yet), and fails when the program for it
# is not installed.
_db() {
    DB=${LLM_AGENT_VAR_DATABASE:-}
    [[ -n $DB ]] || _die "no database given: set the agent variable database to the file (coyote -a sql --agent-variable database ./app.db)"
    [[ $DB != -* ]] || DB=./$DB
    ENGINE=
    if [[ -e $DB ]]; then
        [[ -f $DB ]] || _die "the database $DB is not a file"
        [[ -r $DB ]] || _die "cannot read the database $DB: permission denied"
        if [[ $(head -c 15 -- "$DB" | tr -d '\0') == "SQLite format 3" ]]; then
            ENGINE=sqlite
        elif [[ $(head -c 12 -- "$DB" | tail -c 4 | tr -d '\0') == DUCK ]]; then
            ENGINE=duckdb
        elif [[ -s $DB ]]; then
            _die "$DB is neither a SQLite nor a DuckDB database"
        fi
    fi
    if [[ -z $ENGINE ]]; then
        case $DB in
        *.duckdb | *.ddb) ENGINE=duckdb ;;
        *) ENGINE=sqlite ;;
        esac
    fi
    case $ENGINE in
    sqlite)
        command -v sqlite3 >/dev/null 2>&1 ||
            _die "the sqlite3 program is not installed; install it (for example apt install sqlite3, or brew install sqlite) to use $DB"
        ;;
    duckdb)
        command -v duckdb >/dev/null 2>&1 ||
            _die "$DB is a DuckDB database and the duckdb program is not installed: install the DuckDB command-line client (see duckdb.org) to use it; SQLite databases work without it"
        ;;
    esac
}

# _check_sql SQL: refuses what the command-line programs would run as
# something other than SQL: a line that starts with "." is a command of
# theirs (.shell, .output…), not a statement.
_check_sql() {
    local line
    while IFS= read -r line; do
        [[ $line != .* ]] || _die "\"${line%% *}\" is a command of the $ENGINE program, not SQL; only SQL statements can be run"
    done <<<"$1"
}

# _sqlite_version: sets REPLY to sqlite3's version as a number (3.40.1 → 3040001).
_sqlite_version() {
    local v major minor patch
    v=$(sqlite3 -version 2>/dev/null) || v=0
    IFS=. read -r major minor patch <<<"${v%% *}"
    REPLY=$((10#${major:-0} * 1000000 + 10#${minor:-0} * 1000 + 10#${patch:-0}))
}

# _sql MODE FORMAT SQL: runs SQL on DB, read-only (MODE ro) or not (rw),
# its result as a markdown table (FORMAT table, with a header) or as bare
# values (value), into the file SQL_OUT; fails with the program's error.
_sql() {
    local mode=$1 format=$2 sql=$3
    _check_sql "$sql"
    _temp
    SQL_OUT=$REPLY
    _TEMPS+=("$SQL_OUT.err")
    local -a cmd
    case $ENGINE in
    sqlite)
        _sqlite_version
        local version=$REPLY
        cmd=(sqlite3 -bail -batch)
        [[ $mode == rw ]] || cmd+=(-readonly)
        if ((version >= 3037000)); then
            # No .shell, no writefile(), no ATTACH: only this database.
            cmd+=(-safe)
        elif grep -qiE '(writefile|readfile|edit|load_extension)[[:space:]]*\(|attach' <<<"$sql"; then
            _die "this sqlite3 ($((version / 1000000)).$((version / 1000 % 1000))) has no safe mode, so statements that touch other files (ATTACH, readfile, writefile, edit, load_extension) are refused"
        fi
        if [[ $format == value ]]; then
            cmd+=(-noheader -list)
        elif ((version >= 3033000)); then
            cmd+=(-header -markdown -nullvalue NULL)
        else
            cmd+=(-header -list -separator ' | ' -nullvalue NULL)
        fi
        ;;
    duckdb)
        cmd=(duckdb -bail -batch)
        [[ $mode == rw ]] || cmd+=(-readonly)
        # Only this database: no other files, no extensions to download.
        cmd+=(-cmd 'SET enable_external_access = false;')
        if [[ $format == value ]]; then
            cmd+=(-noheader -list)
        else
            cmd+=(-markdown -nullvalue NULL)
        fi
        ;;
    esac
    if ! "${cmd[@]}" "$DB" <<<"$sql" >"$SQL_OUT" 2>"$SQL_OUT.err"; then
        local err hint=
        err=$(head -c 2000 -- "$SQL_OUT.err")
        [[ -n $err ]] || err=$(head -c 2000 -- "$SQL_OUT")
        if [[ $mode == ro && $err == *[Rr]ead*[Oo]nly* ]]; then
            hint=" (query only reads; to change the database use execute, which asks the user first)"
        fi
        _die "${err%$'\n'}$hint"
    fi
}

# _rows: appends SQL_OUT, cut after the agent's row_limit rows.
_rows() {
    if [[ ! -s $SQL_OUT ]]; then
        _out "(no rows)"
        return
    fi
    _number "${LLM_AGENT_VAR_ROW_LIMIT:-200}" "the agent variable row_limit" 1 100000
    _emit_capped "$SQL_OUT" $((REPLY + 2)) "aggregate, filter or add LIMIT to see the rest"
}

# The helpers (_out, _die, _ws_path, _load_guard, …) are shared by the
# bundled agents: functions/utils/workspace.sh (LLM_ROOT_DIR, else the
# config directory's functions/ beside agents/).
# shellcheck source=/dev/null
source "${LLM_ROOT_DIR:-${BASH_SOURCE[0]%/*}/../../functions}/utils/workspace.sh" ||
    { echo "cannot load functions/utils/workspace.sh: coyote installs it with the bundled tools (coyote --build-tools)" >&2; exit 1; }

eval "$(argc --argc-eval "$0" "$@")"
