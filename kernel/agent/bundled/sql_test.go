//go:build unix

package bundled

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sqliteDB creates a SQLite database in the workspace with the sqlite3
// program and returns its path.
func sqliteDB(t *testing.T, e *agentEnv, sql string) string {
	t.Helper()
	if _, err := exec.LookPath("sqlite3"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("sqlite3 is not installed (scripts/install-test-deps.sh installs it)")
		}
		t.Skip("sqlite3 is not installed (scripts/install-test-deps.sh installs it)")
	}
	path := filepath.Join(e.ws, "shop.db")
	cmd := exec.Command("sqlite3", path)
	cmd.Stdin = strings.NewReader(sql)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	return path
}

const shopSQL = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT);
CREATE INDEX customers_city ON customers(city);
CREATE VIEW paris AS SELECT * FROM customers WHERE city = 'Paris';
INSERT INTO customers (name, city) VALUES ('Ada', 'London'), ('Blaise', 'Paris'), ('Emmy', NULL), ('Alan', 'London');
`

func TestSQLListsDescribesAndQueries(t *testing.T) {
	e := newAgentEnv(t, "sql")
	db := sqliteDB(t, e, shopSQL)
	vars := []string{"DATABASE=" + db}
	tests := []struct {
		name, tool, args string
		env              []string
		want             []string
	}{
		{"list tables", "list_tables", `{}`, nil, []string{"Tables and views of " + db + " (sqlite):", "| table | customers |", "| view  | paris     |"}},
		{"describe", "describe_table", `{"table":"customers"}`, nil,
			[]string{"Columns of customers:", "| name   | TEXT    | NOT NULL |", "| id     | INTEGER |          |         | PRIMARY KEY |",
				"Indexes:", "customers_city", "Rows: 4", "First rows:", "| 1  | Ada    | London |"}},
		{"query", "query", `{"sql":"SELECT city, count(*) AS n FROM customers GROUP BY city ORDER BY n DESC, city;"}`, nil,
			[]string{"| London | 2 |", "| NULL   | 1 |", "| Paris  | 1 |"}},
		{"a query without rows", "query", `{"sql":"SELECT * FROM customers WHERE id > 100"}`, nil, []string{"(no rows)"}},
		{"the row limit", "query", `{"sql":"SELECT name FROM customers ORDER BY id"}`, []string{"ROW_LIMIT=2"},
			[]string{"| Ada    |", "| Blaise |", "[... 2 more lines not shown; aggregate, filter or add LIMIT to see the rest]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := ok(t, e.call(t, tt.tool, tt.args, append(vars, tt.env...)...), tt.want...)
			if tt.name == "the row limit" && strings.Contains(out, "Emmy") {
				t.Errorf("the row limit let more rows through:\n%s", out)
			}
		})
	}
}

func TestSQLChangesDataOnlyWhenConfirmed(t *testing.T) {
	e := newAgentEnv(t, "sql")
	db := sqliteDB(t, e, shopSQL)
	vars := []string{"DATABASE=" + db}
	count := func() string {
		t.Helper()
		return strings.TrimSpace(ok(t, e.call(t, "query", `{"sql":"SELECT count(*) AS n FROM customers"}`, vars...)))
	}
	before := count()

	// query opens the database read-only.
	fails(t, e.call(t, "query", `{"sql":"DELETE FROM customers"}`, vars...),
		"readonly database", "use execute, which asks the user first")
	// execute needs the user, and there is nobody to ask.
	fails(t, e.call(t, "execute", `{"sql":"DELETE FROM customers"}`, vars...),
		"this needs the user's confirmation, and there is no terminal")
	if got := count(); got != before {
		t.Fatalf("the data changed without confirmation: %s, was %s", got, before)
	}
	// Confirmed (AUTO_CONFIRM), it runs and says how many rows changed.
	ok(t, e.call(t, "execute", `{"sql":"DELETE FROM customers WHERE city = 'London';"}`, append(vars, "AUTO_CONFIRM")...),
		"| rows_changed |", "| 2            |")
	if got := count(); !strings.Contains(got, "| 2 |") {
		t.Fatalf("after the delete: %s", got)
	}
}

func TestSQLRefusesWhatIsNotSQLOrNotThere(t *testing.T) {
	e := newAgentEnv(t, "sql")
	db := sqliteDB(t, e, shopSQL)
	marker := filepath.Join(e.ws, "shell-ran")
	notDB := filepath.Join(e.ws, "notes.txt")
	writeFile(t, notDB, "just text, long enough to have a header\n", 0o644)
	tests := []struct {
		name, tool, args, db, want string
		env                        []string
	}{
		{"no database variable", "list_tables", `{}`, "", "no database given: set the agent variable database", nil},
		{"a missing file", "query", `{"sql":"SELECT 1"}`, filepath.Join(e.ws, "none.db"), "does not exist", nil},
		{"not a database", "list_tables", `{}`, notDB, "is neither a SQLite nor a DuckDB database", nil},
		{"a missing table", "describe_table", `{"table":"orders"}`, db, "has no table or view named orders", nil},
		{"a dot command", "query", `{"sql":"SELECT 1;\n.shell touch ` + marker + `"}`, db, `".shell" is a command of the sqlite program, not SQL`, nil},
		{"a dot command confirmed", "execute", `{"sql":".system touch ` + marker + `"}`, db, "not SQL", []string{"AUTO_CONFIRM"}},
		{"a file write in a query", "query", `{"sql":"SELECT writefile('` + marker + `', 'x')"}`, db, "", nil},
		{"a syntax error", "query", `{"sql":"SELEC 1"}`, db, `near "SELEC": syntax error`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env
			if tt.db != "" {
				env = append(env, "DATABASE="+tt.db)
			}
			fails(t, e.call(t, tt.tool, tt.args, env...), tt.want)
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the sqlite3 program ran a command or wrote a file")
			}
		})
	}
}

func TestSQLSaysWhenDuckDBIsNotInstalled(t *testing.T) {
	if _, err := exec.LookPath("duckdb"); err == nil {
		t.Skip("the duckdb program is installed")
	}
	e := newAgentEnv(t, "sql")
	// The first bytes of a DuckDB file: a checksum, then "DUCK".
	db := filepath.Join(e.ws, "data.bin")
	writeFile(t, db, "\x00\x01\x02\x03\x04\x05\x06\x07DUCK and more", 0o644)
	for _, path := range []string{db, filepath.Join(e.ws, "new.duckdb")} {
		fails(t, e.call(t, "list_tables", `{}`, "DATABASE="+path),
			"is a DuckDB database and the duckdb program is not installed")
	}
}
