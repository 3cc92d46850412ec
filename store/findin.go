package store

import (
	"context"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// FindIn runs q (filter, sort, skip, limit, projection) over a stream of
// documents in _id order that does not come from a collection scan, such
// as a collection as it was at a past revision (package changes). It
// takes ownership of src: closing the result closes it.
func FindIn(ctx context.Context, src agg.Source, q Query) agg.Source {
	src = &matchSource{ctx: ctx, src: src, filter: q.Filter}
	if q.sorted() {
		src = sortSource(ctx, src, q)
	} else {
		src = &pageSource{src: src, skip: q.Skip, limit: q.Limit}
	}
	if q.Projection != nil {
		src = &projectSource{ctx: ctx, src: src, p: q.Projection, filter: q.Filter}
	}
	return src
}

// matchSource streams the documents of a source that match a filter.
type matchSource struct {
	ctx    context.Context
	src    agg.Source
	filter *query.Filter
	n      int
	err    error
}

func (m *matchSource) Next() bool {
	for m.err == nil && m.src.Next() {
		if m.err = m.ctx.Err(); m.err != nil {
			return false
		}
		if m.filter == nil {
			return true
		}
		ok, err := m.filter.MatchContext(m.ctx, m.src.Doc())
		if m.err = err; ok || err != nil {
			return ok
		}
	}
	return false
}

func (m *matchSource) Doc() value.Value { return m.src.Doc() }

func (m *matchSource) Err() error {
	if m.err != nil {
		return m.err
	}
	return m.src.Err()
}

func (m *matchSource) Close() error { return m.src.Close() }
