package expr

import (
	"context"
	"slices"
)

// SortStable sorts s stably by cmp, as slices.SortStableFunc does, and
// stops when ctx is done, consulted every CheckEvery comparisons: it then
// returns ctx's error and leaves s in some order. A nil ctx is never done.
// Sorts of large inputs ($sortArray, the $sort stage, a find's sort in
// memory) use it so that a deadline holds inside them.
func SortStable[T any](ctx context.Context, s []T, cmp func(a, b T) int) (err error) {
	if ctx == nil || len(s) < 64 {
		slices.SortStableFunc(s, cmp)
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			stop, ok := r.(sortStop)
			if !ok {
				panic(r)
			}
			err = stop.err
		}
	}()
	n := 0
	slices.SortStableFunc(s, func(a, b T) int {
		if n++; n%CheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				panic(sortStop{err}) // recovered above: the sort has no other way out
			}
		}
		return cmp(a, b)
	})
	return nil
}

// sortStop carries the error that stopped a sort out of its comparisons.
type sortStop struct{ err error }
