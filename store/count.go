package store

import (
	"context"
	"runtime"

	"github.com/omgdb/omgdb/query"
)

// countParallel counts the documents matching filter on several
// goroutines when the collection is large and the machine has two cores
// or more. ok is false when it did not run.
func (c *Collection) countParallel(ctx context.Context, filter *query.Filter) (n int64, ok bool, err error) {
	if c.tx.writable || c.count < parallelScanMin || runtime.GOMAXPROCS(0) < 2 {
		return 0, false, nil
	}
	work := func(b *scanBatch) {
		for _, raw := range b.vals {
			js, err := docJSON(raw)
			if err != nil {
				b.err = err
				return
			}
			ok, err := b.match.Match(js)
			if err != nil {
				b.err = corruptValue(err.Error())
				return
			}
			if ok {
				b.n++
			}
		}
	}
	use := func(b *scanBatch) error {
		n += b.n
		return b.err
	}
	err = c.scanParallel(ctx, func() *scanBatch { return &scanBatch{match: filter.JSONMatcher()} }, work, use)
	return n, true, err
}
