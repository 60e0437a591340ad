package graph

import (
	"fmt"
	"maps"
	"math"
)

// Reduce merges a write into a state key's value with the named reducer:
//
//	append    old list + [new]
//	extend    old list + new (a list; another value is appended)
//	concat    old + "\n" + new (text; an empty old is just new)
//	sum       old + new (integers stay integers)
//	max, min  the larger, the smaller
//	merge     old mapping with new's keys over it
//	overwrite new
//
// A key that has no value yet (had is false, or the value is null) starts
// from the reducer's empty value. An unknown reducer or values it cannot
// merge (sum of text) is an error naming both.
func Reduce(reducer string, old any, had bool, v any) (any, error) {
	if !had {
		old = nil
	}
	switch reducer {
	case "overwrite", "":
		return v, nil
	case "append":
		return append(asList(old), v), nil
	case "extend":
		if l, ok := v.([]any); ok {
			return append(asList(old), l...), nil
		}
		return append(asList(old), v), nil
	case "concat":
		a, b := text(old), text(v)
		switch {
		case a == "":
			return b, nil
		case b == "":
			return a, nil
		}
		return a + "\n" + b, nil
	case "sum", "max", "min":
		if old == nil {
			if _, ok := number(v); !ok {
				return nil, fmt.Errorf("reducer %s needs numbers, not %s", reducer, text(v))
			}
			return v, nil
		}
		a, aok := number(old)
		b, bok := number(v)
		if !aok || !bok {
			return nil, fmt.Errorf("reducer %s needs numbers, not %s and %s", reducer, text(old), text(v))
		}
		switch reducer {
		case "sum":
			ai, aInt := old.(int64)
			bi, bInt := v.(int64)
			if aInt && bInt {
				return ai + bi, nil
			}
			return a + b, nil
		case "max":
			if b > a {
				return v, nil
			}
			return old, nil
		}
		if b < a {
			return v, nil
		}
		return old, nil
	case "merge":
		out := map[string]any{}
		if old != nil {
			m, ok := old.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("reducer merge needs mappings, not %s", text(old))
			}
			maps.Copy(out, m)
		}
		if v == nil {
			return out, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("reducer merge needs mappings, not %s", text(v))
		}
		maps.Copy(out, m)
		return out, nil
	}
	return nil, fmt.Errorf("unknown reducer %q (reducers are append, extend, concat, sum, max, min, merge, overwrite)", reducer)
}

// asList is old as a list to add to: nil and "" are empty, a list is
// copied, anything else is its first item.
func asList(old any) []any {
	switch x := old.(type) {
	case nil:
		return []any{}
	case string:
		if x == "" {
			return []any{}
		}
	case []any:
		return append(make([]any, 0, len(x)+1), x...)
	}
	return []any{old}
}

// number reads a state value as a number: int64 and float64 (JSON and YAML
// numbers, normalized), other ints.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x)
	}
	return 0, false
}
