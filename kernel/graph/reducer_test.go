package graph

import (
	"reflect"
	"testing"
)

func TestReducersMergeAsDocumented(t *testing.T) {
	for _, tc := range []struct {
		name, reducer string
		old           any
		had           bool
		v, want       any
	}{
		{"append to nothing", "append", nil, false, "a", []any{"a"}},
		{"append to a list", "append", []any{"a"}, true, "b", []any{"a", "b"}},
		{"append a list keeps it whole", "append", []any{"a"}, true, []any{"b", "c"}, []any{"a", []any{"b", "c"}}},
		{"append to empty text", "append", "", true, "a", []any{"a"}},
		{"extend flattens one level", "extend", []any{"a"}, true, []any{"b", "c"}, []any{"a", "b", "c"}},
		{"extend with one value", "extend", []any{"a"}, true, "b", []any{"a", "b"}},
		{"concat joins with a newline", "concat", "a", true, "b", "a\nb"},
		{"concat onto empty", "concat", "", true, "b", "b"},
		{"sum of integers stays an integer", "sum", int64(2), true, int64(3), int64(5)},
		{"sum with a float", "sum", int64(2), true, 0.5, 2.5},
		{"sum onto nothing", "sum", nil, false, int64(4), int64(4)},
		{"max", "max", int64(2), true, int64(7), int64(7)},
		{"max keeps the old", "max", 9.0, true, int64(7), 9.0},
		{"min", "min", int64(2), true, int64(7), int64(2)},
		{"merge: the new keys win", "merge", map[string]any{"a": int64(1), "b": int64(1)}, true, map[string]any{"b": int64(2)}, map[string]any{"a": int64(1), "b": int64(2)}},
		{"overwrite", "overwrite", "old", true, "new", "new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Reduce(tc.reducer, tc.old, tc.had, tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Reduce(%s, %v, %v) = %#v, want %#v", tc.reducer, tc.old, tc.v, got, tc.want)
			}
		})
	}
}

func TestReducersRefuseWhatTheyCannotMerge(t *testing.T) {
	for _, tc := range []struct {
		reducer string
		old, v  any
	}{
		{"sum", "a", int64(1)},
		{"max", int64(1), "b"},
		{"merge", []any{}, map[string]any{}},
		{"merge", map[string]any{}, "x"},
		{"glue", "a", "b"},
	} {
		if _, err := Reduce(tc.reducer, tc.old, true, tc.v); err == nil {
			t.Errorf("Reduce(%s, %v, %v) merged; want an error", tc.reducer, tc.old, tc.v)
		}
	}
}

func TestReduceDoesNotChangeTheOldList(t *testing.T) {
	old := []any{"a"}
	if _, err := Reduce("append", old, true, "b"); err != nil {
		t.Fatal(err)
	}
	if len(old) != 1 {
		t.Errorf("the old list changed: %v", old)
	}
}
