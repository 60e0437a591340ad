package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/coyote-cli/coyote/kernel/plugins"
)

// lockBench measures the plugin lock (kernel/plugins/lock.go) with the
// real plugin binaries: what the check adds to a launch once the digests
// are cached (a fresh host each time, as each coyote run has, so the lock
// and the digest cache are read from disk), what it costs without a lock,
// and hashing the largest plugin, the DuckDB store, without the cache (the
// file itself is in the page cache: the first launch after an install or
// an upgrade).
func lockBench(bin string, runs int) ([]row, error) {
	dirs := []string{filepath.Join(bin, "plugins")}
	work, err := os.MkdirTemp("", "coyote-bench-lock-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	opts := plugins.Options{Dirs: dirs, LockFile: filepath.Join(work, "config", plugins.LockFileName), CacheDir: filepath.Join(work, "cache")}
	found := plugins.Discover(dirs)
	if _, err := plugins.New(opts).WriteLock(found); err != nil {
		return nil, err
	}
	var duck plugins.Found
	for _, f := range found {
		if f.Binary == "coyote-rag-duckdb" {
			duck = f
		}
	}
	if duck.Path == "" {
		return []row{{"plugin lock: not measured", "-", "", "", "coyote-rag-duckdb is not built"}}, nil
	}
	st, err := os.Stat(duck.Path)
	if err != nil {
		return nil, err
	}
	var checkErr error
	launch := func(o plugins.Options) func() time.Duration {
		return func() time.Duration {
			h := plugins.New(o)
			start := time.Now()
			err := h.CheckLaunch(duck)
			d := time.Since(start)
			if err != nil {
				checkErr = err
			}
			return d
		}
	}
	n := max(runs, 200)
	warm := median(n, launch(opts))
	noLock := opts
	noLock.LockFile = filepath.Join(work, "config", "absent.lock")
	none := median(n, launch(noLock))
	cold := median(5, func() time.Duration {
		h := plugins.New(plugins.Options{Dirs: dirs, LockFile: opts.LockFile})
		start := time.Now()
		_, checks, err := h.CheckLock([]plugins.Found{duck}, true)
		d := time.Since(start)
		if err == nil && checks[0].State != plugins.Locked {
			err = fmt.Errorf("%s: %s", duck.Binary, checks[0].State)
		}
		if err != nil {
			checkErr = err
		}
		return d
	})
	if checkErr != nil {
		return nil, fmt.Errorf("plugin lock: %w", checkErr)
	}
	fine := func(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }
	return []row{
		{fmt.Sprintf("plugin lock: check per launch, %d plugins locked, digest cached (median of %d)", len(found), n), fine(warm), "≤ 1 ms",
			"reads the lock and the digest cache, stats the binary; " + fine(none) + " without a lock", withinTarget(warm, time.Millisecond)},
		{fmt.Sprintf("plugin lock: hash coyote-rag-duckdb (%.0f MB) without the cache (median of 5)", float64(st.Size())/1e6), ms(cold), "report",
			"once per changed binary; `coyote plugins lock` and `verify` always hash", "measured"},
	}, nil
}
