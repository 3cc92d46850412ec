package store

import (
	"context"

	"github.com/omgdb/omgdb/query"
)

// Query is a find: a compiled filter plus paging. The zero Query returns
// every document in _id order.
type Query struct {
	Filter *query.Filter // nil matches everything
	Skip   int64
	Limit  int64 // 0 means no limit
}

// Find returns a stream of the documents matching q.
func (c *Collection) Find(ctx context.Context, q Query) query.Source {
	return &findCursor{ctx: ctx, cur: c.Scan(), q: q}
}

// CountMatching counts the documents matching filter (all of them, in
// O(1), when filter is nil).
func (c *Collection) CountMatching(ctx context.Context, filter *query.Filter) (int64, error) {
	if filter == nil {
		return c.Count(), nil
	}
	src := c.Find(ctx, Query{Filter: filter})
	defer src.Close()
	var n int64
	for src.Next() {
		n++
	}
	return n, src.Err()
}

type findCursor struct {
	ctx      context.Context
	cur      *Cursor
	q        Query
	skipped  int64
	returned int64
	n        int
	err      error
}

func (f *findCursor) Next() bool {
	if f.err != nil || (f.q.Limit > 0 && f.returned >= f.q.Limit) {
		return false
	}
	for f.cur.Next() {
		if f.n++; f.n%1024 == 0 {
			if f.err = f.ctx.Err(); f.err != nil {
				return false
			}
		}
		doc := f.cur.Doc()
		if f.cur.Err() != nil {
			return false
		}
		if f.q.Filter != nil && !f.q.Filter.Match(doc) {
			continue
		}
		if f.skipped < f.q.Skip {
			f.skipped++
			continue
		}
		f.returned++
		return true
	}
	return false
}

func (f *findCursor) Doc() query.Value { return f.cur.Doc() }

func (f *findCursor) Err() error {
	if f.err != nil {
		return f.err
	}
	return f.cur.Err()
}

func (f *findCursor) Close() error { return f.cur.Close() }
