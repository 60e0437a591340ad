package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// history is the results of earlier runs, by measure: each run's values
// are saved, and the next run prints its change against them, so a
// regression shows in the output rather than in numbers someone
// remembers.
type history struct {
	// Saved is when the file was last written.
	Saved time.Time `json:"saved"`
	// Values maps a measure's name to its value as printed ("18.30 ms").
	Values map[string]string `json:"values"`
}

// loadHistory reads the results file; a missing one is an empty history.
func loadHistory(path string) (history, error) {
	h := history{Values: map[string]string{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return history{Values: map[string]string{}}, fmt.Errorf("%s: %v (delete it to start afresh)", path, err)
	}
	if h.Values == nil {
		h.Values = map[string]string{}
	}
	return h, nil
}

// save records the rows measured in this run over the earlier values
// (a run of one part keeps the others'), atomically.
func (h history) save(path string, rows []row, now time.Time) error {
	for _, r := range rows {
		if _, ok := leadingNumber(r.value); ok {
			h.Values[r.name] = r.value
		}
	}
	h.Saved = now
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".results-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// change is a row's value against the earlier run's: "+12%", "-3%", "="
// within half a percent, "" when there is nothing to compare (a new
// measure, another unit).
func (h history) change(r row) string {
	old, ok := h.Values[r.name]
	if !ok {
		return ""
	}
	was, ok1 := leadingNumber(old)
	now, ok2 := leadingNumber(r.value)
	if !ok1 || !ok2 || unitOf(old) != unitOf(r.value) || was == 0 {
		return ""
	}
	pct := 100 * (now - was) / was
	if math.Abs(pct) < 0.5 {
		return "="
	}
	s := fmt.Sprintf("%+.0f%%", pct)
	// A rate is better higher; a time, a size or a share lower. A change
	// of a tenth or more the wrong way is called out.
	higherBetter := strings.Contains(unitOf(r.value), "/s")
	if math.Abs(pct) >= 10 && (pct > 0) != higherBetter {
		s += " worse"
	}
	return s
}

var numberRE = regexp.MustCompile(`^\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*(.*)$`)

// leadingNumber is the number a value starts with ("2,800 chunks/s" is
// 2800).
func leadingNumber(v string) (float64, bool) {
	m := numberRE.FindStringSubmatch(v)
	if m == nil {
		return 0, false
	}
	digits := make([]byte, 0, len(m[1]))
	for i := 0; i < len(m[1]); i++ {
		if m[1][i] != ',' {
			digits = append(digits, m[1][i])
		}
	}
	f, err := strconv.ParseFloat(string(digits), 64)
	return f, err == nil
}

// unitOf is what follows a value's number ("ms", "MiB", "chunks/s").
func unitOf(v string) string {
	if m := numberRE.FindStringSubmatch(v); m != nil {
		return m[2]
	}
	return ""
}
