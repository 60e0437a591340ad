// Package suggest finds the name a user probably meant when they typed one
// that does not exist (a client type, a setting, a command), for the
// "did you mean" part of an error.
package suggest

// Closest returns the candidate nearest to word by edit distance, or ""
// when none is near enough to be a plausible typo: at most a third of the
// word's length, and never more than 3 edits. A candidate that starts with
// word (openai for "open") also counts.
func Closest(word string, candidates []string) string {
	best, bestDist := "", 0
	limit := min(3, max(1, len(word)/3))
	for _, c := range candidates {
		if c == word {
			return "" // it exists: nothing to suggest
		}
		d := distance(word, c)
		if len(word) >= 3 && len(c) > len(word) && c[:len(word)] == word {
			d = min(d, limit)
		}
		if d <= limit && (best == "" || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// distance is the Damerau–Levenshtein distance (optimal string alignment)
// between a and b, counted in bytes: a swap of two neighbours is one edit,
// the commonest typo.
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
