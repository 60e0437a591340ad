#!/usr/bin/env bash
#
# The result of a database tool (sqlite_query, duckdb_query): its first
# lines, and how many were left out. Sourced by those tools.

# query_result TEXT MAX: TEXT's first MAX lines, then how many more there
# were; "(no rows)" for an empty TEXT.
query_result() {
    if [[ -z $1 ]]; then
        printf '(no rows)\n'
        return 0
    fi
    local n
    n=$(printf '%s\n' "$1" | wc -l)
    printf '%s\n' "$1" | head -n "$2"
    ((n <= $2)) || printf '[... %d more lines left out; add a LIMIT or narrow the query ...]\n' "$((n - $2))"
}
