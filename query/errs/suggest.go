package errs

// Suggest returns the candidate closest to word within edit distance 2
// (Levenshtein), for "did you mean" messages. Ties go to the earlier
// candidate. ok is false when no candidate is close enough.
func Suggest(word string, candidates []string) (best string, ok bool) {
	bestDist := 3
	for _, c := range candidates {
		if d := editDistance(word, c, bestDist); d < bestDist {
			best, bestDist, ok = c, d, true
		}
	}
	return best, ok
}

// DidYouMean returns " (did you mean `x`?)" for the closest candidate, or "".
func DidYouMean(word string, candidates []string) string {
	if s, ok := Suggest(word, candidates); ok {
		return " (did you mean `" + s + "`?)"
	}
	return ""
}

// editDistance returns the Levenshtein distance between a and b over
// runes, or max when it is at least max.
func editDistance(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= max || -d >= max {
		return max
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= max {
			return max
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], max)
}
