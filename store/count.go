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
		// b.err may already hold the reader's error (a damaged page
		// after these values); it stands unless the work fails first.
		for _, raw := range b.vals {
			if err := ctx.Err(); err != nil {
				b.err = err
				return
			}
			js, err := docJSON(raw)
			if err != nil {
				b.err = err
				return
			}
			ok, err := b.match.Match(js)
			if err != nil {
				b.err = matchFailed(err)
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
	err = c.scanParallel(ctx, func() *scanBatch { return &scanBatch{match: filter.JSONMatcherContext(ctx)} }, work, use)
	return n, true, err
}

// CountCovered counts the documents matching q.Filter from an index
// alone, fetching no document, when an index covers the filter (see
// Explain's COUNT_SCAN). ok is false, and nothing is counted, when none
// does; a redacting query never uses an index. It honours q.Hint and
// ignores the sort, projection and paging.
func (c *Collection) CountCovered(ctx context.Context, q Query) (n int64, ok bool, err error) {
	ch, err := c.planQuery(Query{Filter: q.Filter, Hint: q.Hint, Redact: q.Redact}, true)
	if err != nil || !ch.plan.covered {
		return 0, false, err
	}
	n, _, err = ch.plan.countCovered(ctx)
	return n, true, err
}
