package duckdbstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// schemaVersion is the layout of the tables below. A file of layout 1
// (term counts in a table of their own) is migrated in place (migrate.go);
// a file with another version is refused (read-only) or rebuilt
// (read-write).
const schemaVersion = "2"

// FilePath returns the DuckDB file of the RAG whose yaml is yamlPath:
// rags/docs.yaml → rags/docs.duckdb.
func FilePath(yamlPath string) string {
	switch ext := filepath.Ext(yamlPath); strings.ToLower(ext) {
	case ".yaml", ".yml":
		return strings.TrimSuffix(yamlPath, ext) + ".duckdb"
	}
	return yamlPath + ".duckdb"
}

// readOnlyMemoryLimit caps DuckDB's buffer pool in a query-only process.
// The vectors live in the plugin's own memory; without a cap DuckDB would
// also keep every block it read while loading them (100,000 × 384
// floats: 480 MB resident instead of 360 MB), and loading is faster when
// it does not (0.8 s instead of 1.2 s here). Keyword searches and fetches
// need far less.
const readOnlyMemoryLimit = "128MB"

// readWriteMemoryLimit caps DuckDB's buffer pool while indexing, where
// DuckDB's default is 80% of the machine's memory: indexing 100,000
// chunks peaked at 1.6 GB in the plugin without a cap, 1.3 GB with 512MB
// (when the plugin also kept every vector), and at 614 MiB with 512MB and
// 400 MiB with 256MB once it no longer did, at the same speed (what
// DuckDB cannot hold it spills to <name>.duckdb.tmp). Once upserts and
// embedding overlapped, 256MB peaked at 395–405 MiB and 192MB at 329–340
// MiB, at the same rate. driver_config memory_limit overrides it.
const readWriteMemoryLimit = "192MB"

// writeCheckpointThreshold is how much WAL a writer gathers before DuckDB
// folds it into the file, in place of DuckDB's 16MB. A checkpoint rewrites
// the tables' last row groups, so checkpointing every few upserts cost
// more than the upserts themselves: 20,000 chunks in batches of 1,000
// spent 3.0–4.7 s committing at 16MB, 2.2 s at 64MB or 256MB (the end's
// CHECKPOINT included). Indexing 100,000 chunks end to end: 3,980
// chunks/s and a 371 MiB peak at 16MB, 4,808 and 354 MiB at 64MB, 3,876
// and 463 MiB at 256MB (what is committed but not checkpointed stays in
// the buffer pool). Since the term counts moved onto the chunks' rows and
// the buffer pool shrank to 192MB, the plugin's CPU for those 100,000
// chunks is 9.5–10.4 s at 64MB, 7.8–9.0 s at 160MB and 7.6–8.6 s at
// 400MB, peaking at 325–343, 318–331 and 344–356 MiB. A crash replays at
// most this much WAL.
const writeCheckpointThreshold = "160MB"

// writeThreads is DuckDB's worker threads in a writer. Its statements are
// small appends and deletes on one connection, which extra workers only
// slow down with their locking and polling (14% of the plugin's CPU in
// pthread mutexes with two): indexing 100,000 chunks cost the plugin
// 26.7 s of CPU with DuckDB's default (one a core, here two), 21.4 s with
// one.
const writeThreads = "1"

// dbOptions are DuckDB settings given at open, so that no statement can
// trigger a download: known extensions are neither installed nor loaded
// behind our back, and community extensions are refused. The RAG's
// driver_config may set memory_limit (DuckDB's syntax: "1GB").
func dbOptions(mode ragstore.Mode, cfg map[string]any) ([][2]string, error) {
	access, limit := "READ_WRITE", readWriteMemoryLimit
	if mode == ragstore.ReadOnly {
		access, limit = "READ_ONLY", readOnlyMemoryLimit
	}
	if v, ok := cfg["memory_limit"]; ok {
		s, ok := v.(string)
		if !ok || !memoryLimit.MatchString(s) {
			return nil, fmt.Errorf("driver_config memory_limit %v: want a size such as \"512MB\" or \"2GB\": %w", v, sdk.ErrInvalidArgument)
		}
		limit = s
	}
	opts := [][2]string{
		{"access_mode", access},
		{"autoinstall_known_extensions", "false"},
		{"autoload_known_extensions", "false"},
		{"allow_community_extensions", "false"},
	}
	if limit != "" {
		opts = append(opts, [2]string{"memory_limit", limit})
	}
	if mode == ragstore.ReadWrite {
		opts = append(opts, [2]string{"checkpoint_threshold", writeCheckpointThreshold}, [2]string{"threads", writeThreads})
	}
	return opts, nil
}

// memoryLimit is the form of a memory_limit this plugin passes on.
var memoryLimit = regexp.MustCompile(`^\s*[0-9]+(\.[0-9]+)?\s*([KMGT]i?B|[KMGT]|bytes)?\s*$`)

// dsn is the duckdb-go data source name of a file opened with opts.
func dsn(path string, opts [][2]string) string {
	var b strings.Builder
	b.WriteString(path)
	for i, o := range opts {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(o[0] + "=" + o[1])
	}
	return b.String()
}

// LockedError says that another process holds the store's file. DuckDB
// allows one read-write process or several read-only ones per file.
type LockedError struct {
	// Store is the RAG's name.
	Store string
	// PID is the other process, or 0 when DuckDB did not say.
	PID int
	// Reading is set when the other process only reads (so this one
	// wanted to index, or to delete); otherwise it is indexing.
	Reading bool
	// Want is what this process wanted to do that a reader prevents:
	// "indexed" when empty, "deleted" for Drop.
	Want string
	// Cause is DuckDB's message.
	Cause string
}

func (e *LockedError) Error() string {
	who := "another coyote process"
	if e.PID > 0 {
		who += fmt.Sprintf(" (PID %d)", e.PID)
	}
	if e.Reading {
		want := e.Want
		if want == "" {
			want = "indexed"
		}
		return fmt.Sprintf("RAG %s is open in %s; it can be %s once that process has closed it", e.Store, who, want)
	}
	return fmt.Sprintf("RAG %s is being indexed by %s; try again once it has finished", e.Store, who)
}

// Unwrap makes a LockedError match sdk.ErrUnavailable.
func (e *LockedError) Unwrap() error { return sdk.ErrUnavailable }

// lockPID finds the process in DuckDB's lock message: `Could not set lock
// on file "…": Conflicting lock is held in /usr/bin/coyote-rag-duckdb (PID
// 1234)`.
var lockPID = regexp.MustCompile(`\(PID (\d+)\)`)

// classifyOpenError turns DuckDB's open errors into the SDK's classes.
func classifyOpenError(store, path string, err error) error {
	msg := err.Error()
	if isLockError(err) {
		le := &LockedError{Store: store, Cause: msg}
		if m := lockPID.FindStringSubmatch(msg); m != nil {
			le.PID, _ = strconv.Atoi(m[1])
		}
		// DuckDB adds this sentence when the holder only reads.
		le.Reading = strings.Contains(msg, "able to open this database in read-only mode")
		return le
	}
	return fmt.Errorf("open RAG %s store %s: %w", store, path, err)
}

// isLockError reports whether DuckDB refused the file because another
// process holds it.
func isLockError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Could not set lock") || strings.Contains(msg, "Conflicting lock")
}

// openDB opens the file with opts (dbOptions). It never waits for a lock.
func openDB(store, path string, opts [][2]string) (*sql.DB, error) {
	if err := replayWAL(path, opts); err != nil {
		// A read-write open applies the log too, so a rebuild would meet
		// the same error: the store's files must go.
		return nil, fmt.Errorf("RAG %s: the log an interrupted indexing left (%s.wal) cannot be applied (%w): delete the RAG (.delete rag in the REPL) and add it again",
			store, path, err)
	}
	conn, err := duckdb.NewConnector(dsn(path, opts), nil)
	if err != nil {
		return nil, classifyOpenError(store, path, err)
	}
	db := sql.OpenDB(conn)
	return db, nil
}

// replayWAL applies the write-ahead log a killed writer left beside the
// file before a read-only open: DuckDB replays a WAL at open, which
// writes to the file, and fails in a read-only process ("Could not write
// file ... Bad file descriptor"). A short read-write open replays and
// checkpoints it. While a live writer holds the file, that open fails on
// the lock and the read-only open reports the lock as usual.
func replayWAL(path string, opts [][2]string) error {
	readOnly := slices.Contains(opts, [2]string{"access_mode", "READ_ONLY"})
	if !readOnly {
		return nil
	}
	if _, err := os.Stat(path + ".wal"); err != nil {
		return nil // no WAL (or none we can see): nothing to replay
	}
	conn, err := duckdb.NewConnector(dsn(path, readWrite(opts)), nil)
	if err != nil {
		if isLockError(err) {
			return nil
		}
		return err
	}
	db := sql.OpenDB(conn)
	_, err = db.Exec("CHECKPOINT")
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// readWrite is opts with read-write access.
func readWrite(opts [][2]string) [][2]string {
	rw := make([][2]string, 0, len(opts))
	for _, o := range opts {
		if o[0] == "access_mode" {
			o[1] = "READ_WRITE"
		}
		rw = append(rw, o)
	}
	return rw
}

// extensions reports which optional DuckDB extensions load from the local
// extension directory. LOAD never downloads; with auto-install off a
// missing extension is just an error, which is the usual case.
type extensions struct {
	fts, vss bool
}

func probeExtensions(ctx context.Context, conn *sql.Conn) extensions {
	var ext extensions
	_, err := conn.ExecContext(ctx, "LOAD fts")
	ext.fts = err == nil
	_, err = conn.ExecContext(ctx, "LOAD vss")
	ext.vss = err == nil
	return ext
}

// createSchema creates the tables of a new store (or of one whose layout
// is another version, after dropping it) with vectors of dim floats.
func createSchema(ctx context.Context, conn *sql.Conn, dim int) error {
	if dim <= 0 {
		return fmt.Errorf("vector dimension %d: %w", dim, sdk.ErrInvalidArgument)
	}
	err := inTx(ctx, conn, func() error {
		return execAll(ctx, conn,
			"DROP TABLE IF EXISTS chunks",
			"DROP TABLE IF EXISTS terms",
			"DROP TABLE IF EXISTS vocab",
			"CREATE OR REPLACE TABLE coyote_meta(key VARCHAR NOT NULL, value VARCHAR NOT NULL)",
			chunksDDL("chunks", dim),
			"CREATE TABLE vocab(term VARCHAR NOT NULL, tid INTEGER NOT NULL)",
			fmt.Sprintf("INSERT INTO coyote_meta VALUES ('schema', '%s'), ('dimension', '%d')", schemaVersion, dim))
	})
	if err != nil {
		return fmt.Errorf("create store: %w", err)
	}
	return nil
}

// chunksDDL creates a chunks table: each chunk's key (a number, in the
// order the chunks were added), id, file, text, metadata as JSON, number
// of terms, vector and term counts (terms.go).
func chunksDDL(table string, dim int) string {
	return fmt.Sprintf(`CREATE TABLE %s(
		key BIGINT NOT NULL,
		id VARCHAR NOT NULL,
		file_id VARCHAR NOT NULL,
		text VARCHAR NOT NULL,
		metadata VARCHAR NOT NULL,
		length INTEGER NOT NULL,
		embedding FLOAT[%d] NOT NULL,
		terms BLOB NOT NULL)`, table, dim)
}

// The index on chunks(id) turns FetchContent from a scan of every chunk's
// text (160 ms at 100,000 chunks) into lookups. It is not UNIQUE (an
// upsert deletes and re-inserts an id in one transaction; the merge keeps
// ids unique). Keeping an ART index of random strings up to date cost
// more than half of each upsert's time, so a writer drops it at Open
// (upserts of new ids need no lookup: see idSet) and Rebuild, which ends
// every indexing pass, creates it again in one go.
const (
	dropIDIndex   = "DROP INDEX IF EXISTS chunks_id"
	createIDIndex = "CREATE INDEX IF NOT EXISTS chunks_id ON chunks(id)"
)

// readMeta returns the layout version and dimension of an existing store;
// ok is false when the file has no coyote tables (a new file, or one the
// original's driver wrote).
func readMeta(ctx context.Context, conn *sql.Conn) (version string, dim int, ok bool, err error) {
	var n int
	if err := conn.QueryRowContext(ctx,
		"SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = 'coyote_meta'").Scan(&n); err != nil {
		return "", 0, false, err
	}
	if n == 0 {
		return "", 0, false, nil
	}
	rows, err := conn.QueryContext(ctx, "SELECT key, value FROM coyote_meta")
	if err != nil {
		return "", 0, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return "", 0, false, err
		}
		switch k {
		case "schema":
			version = v
		case "dimension":
			dim, _ = strconv.Atoi(v)
		}
	}
	return version, dim, true, rows.Err()
}

// fileExists reports whether the store's file is there.
func fileExists(path string) (bool, error) {
	_, err := os.Stat(path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return false, err
}
