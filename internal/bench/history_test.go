package main

import (
	"path/filepath"
	"testing"
	"time"
)

func TestChangeAgainstThePreviousRun(t *testing.T) {
	past := history{Values: map[string]string{
		"first byte": "20.00 ms", "rate": "2,800 chunks/s", "size": "100.0 MiB", "same": "5.00 ms", "unit": "5 ms",
	}}
	for _, tc := range []struct{ name, value, want string }{
		{"first byte", "10.00 ms", "-50%"},
		{"first byte", "25.00 ms", "+25% worse"},
		{"first byte", "21.00 ms", "+5%"},
		{"rate", "8,400 chunks/s", "+200%"},
		{"rate", "1,400 chunks/s", "-50% worse"},
		{"size", "130.0 MiB", "+30% worse"},
		{"same", "5.01 ms", "="},
		{"unit", "5 MiB", ""},
		{"new measure", "1 ms", ""},
		{"first byte", "-", ""},
	} {
		if got := past.change(row{name: tc.name, value: tc.value}); got != tc.want {
			t.Errorf("%s %q: change %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
}

func TestResultsAreKeptAcrossRunsOfOnePart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r", "results.json")
	h, err := loadHistory(path)
	if err != nil || len(h.Values) != 0 {
		t.Fatalf("a missing file: %v, %v", h, err)
	}
	if err := h.save(path, []row{{name: "a", value: "1.00 ms"}, {name: "b", value: "2.00 ms"}}, time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	h, _ = loadHistory(path)
	if err := h.save(path, []row{{name: "a", value: "3.00 ms"}, {name: "c", value: "not measured"}}, time.Unix(2, 0)); err != nil {
		t.Fatal(err)
	}
	h, err = loadHistory(path)
	if err != nil || h.Values["a"] != "3.00 ms" || h.Values["b"] != "2.00 ms" || h.Values["c"] != "" || !h.Saved.Equal(time.Unix(2, 0)) {
		t.Fatalf("after two runs: %+v, %v", h, err)
	}
}
