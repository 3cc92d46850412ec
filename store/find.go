package store

import (
	"container/heap"
	"context"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// DefaultMaxSortBytes bounds the documents an in-memory sort may hold.
const DefaultMaxSortBytes = 256 << 20

// Query is a find: a compiled filter, sort and projection, plus paging. The
// zero Query returns every document in _id order.
type Query struct {
	Filter     *query.Filter     // nil matches everything
	Sort       *query.Sort       // nil or empty: _id order
	Projection *query.Projection // nil: whole documents
	Skip       int64
	Limit      int64 // 0 means no limit
	// MaxSortBytes bounds what an in-memory sort without a limit may hold;
	// 0 means DefaultMaxSortBytes. Past it, a sort spills to SpillDir, or
	// fails when SpillDir is empty.
	MaxSortBytes int64
	// SpillDir, when set, lets a sort bigger than MaxSortBytes continue as
	// an external merge sort in temporary files there (MongoDB's
	// allowDiskUse). The CLI sets it; the MCP server does not, so an
	// agent's call keeps its memory cap and never writes to disk.
	SpillDir string
	// Hint names the index to use, or "$natural" for a collection scan;
	// "" lets the planner choose.
	Hint string
	// Redact, when set, rewrites each document as it is read, before the
	// filter, sort and projection see it: the MCP server removes redacted
	// fields with it, so that no query can test their values. A redacting
	// query always scans the collection: index bounds, index order and
	// covered counts would all reveal the values it hides.
	Redact func(value.Value) value.Value
	// fields, when set, limits what a collection scan decodes of each
	// document it returns (Collection.Aggregate sets it from
	// Pipeline.Fields).
	fields *value.FieldSet
	// keepScore leaves a $text query's textScore in each document
	// (query.TextScoreField), for the pipeline that reads it.
	keepScore bool
}

func (q *Query) sorted() bool { return q.Sort != nil && len(q.Sort.Keys()) > 0 }

// RawSource is a stream of documents that can also hand out the current
// document as the canonical JSON it is stored as, so that a caller that
// prints it writes those bytes instead of decoding and encoding it again.
// The streams of Find and Scan implement it.
type RawSource interface {
	agg.Source
	// RawJSON returns the current document's canonical JSON when the
	// stream passes the document on as stored, nil when it changed it
	// (projected, redacted, decoded in part) or met an error (then Err
	// says which). The bytes are valid only until Next and must not be
	// modified.
	RawJSON() []byte
}

// Find returns a stream of the documents matching q. The planner chooses
// between a collection scan and an index (see planner.go); either way the
// results are the same, in the same order: by the sort, then _id, or by
// _id when there is no sort.
func (c *Collection) Find(ctx context.Context, q Query) agg.Source {
	if q.Filter != nil {
		if path, n := q.Filter.Near(); n != nil {
			return c.findNear(ctx, q, path, n)
		}
	}
	ch, err := c.planQuery(q, false)
	if err != nil {
		return &sliceSource{err: err}
	}
	return c.execute(ctx, q, ch.plan)
}

// execute runs a plan.
func (c *Collection) execute(ctx context.Context, q Query, p *Plan) agg.Source {
	return c.wrap(ctx, q, p, c.baseSource(ctx, q, p))
}

// baseSource reads what a plan reads: the matching documents, in index or
// _id order, before any sort, paging or projection.
func (c *Collection) baseSource(ctx context.Context, q Query, p *Plan) agg.Source {
	switch p.Stage {
	case "IXSCAN":
		return c.indexSource(ctx, p, q.Filter, q.sorted())
	case "TEXT":
		return c.textSource(ctx, q, p)
	}
	return &scanSource{ctx: ctx, cur: c.Scan(), filter: q.Filter, redact: q.Redact, fields: q.fields}
}

// wrap adds the sort, paging and projection stages to a base source.
func (c *Collection) wrap(ctx context.Context, q Query, p *Plan, src agg.Source) agg.Source {
	if q.sorted() && p.sortGroup == 0 {
		src = sortSource(ctx, src, q)
	} else {
		src = &pageSource{src: src, skip: q.Skip, limit: q.Limit}
	}
	if q.Projection != nil {
		src = &projectSource{ctx: ctx, src: src, p: q.Projection, filter: q.Filter}
	}
	if p.Stage == "TEXT" && !q.keepScore {
		src = stripScore{src}
	}
	return src
}

// CountMatching counts the documents matching filter (all of them, in
// O(1), when filter is nil).
func (c *Collection) CountMatching(ctx context.Context, filter *query.Filter) (int64, error) {
	if filter == nil {
		return c.Count(), nil
	}
	return c.CountQuery(ctx, Query{Filter: filter})
}

// CountQuery counts the documents matching q.Filter, ignoring its sort,
// projection and paging, and honouring its Hint. When an index covers the
// filter it counts index entries without reading a document.
func (c *Collection) CountQuery(ctx context.Context, q Query) (int64, error) {
	q = Query{Filter: q.Filter, Hint: q.Hint, Redact: q.Redact}
	ch, err := c.planQuery(q, true)
	if err != nil {
		return 0, err
	}
	if ch.plan.covered {
		n, _, err := ch.plan.countCovered(ctx)
		return n, err
	}
	if ch.plan.Stage == "COLLSCAN" && q.Redact == nil && q.Filter != nil {
		if n, ok, err := c.countParallel(ctx, q.Filter); ok {
			return n, err
		}
	}
	src := c.execute(ctx, q, ch.plan)
	defer src.Close()
	var n int64
	for src.Next() {
		n++
	}
	return n, src.Err()
}

// scanSource streams the documents of a cursor that match a filter.
// Without redaction it matches on the stored JSON (Filter.MatchJSON),
// decoding only what the filter reads, and decodes a document (only the
// fields, when set) when Doc asks for it.
type scanSource struct {
	ctx     context.Context
	cur     *Cursor
	filter  *query.Filter
	match   *query.JSONMatcher // the filter's, made on first use
	redact  func(value.Value) value.Value
	fields  *value.FieldSet // when set, Doc decodes only these fields
	doc     value.Value     // the current document, redacted, once decoded
	decoded bool
	n       int // documents examined
	err     error
}

func (s *scanSource) Next() bool {
	if s.err != nil {
		return false
	}
	for s.cur.Next() {
		if s.n++; s.ctx.Err() != nil {
			s.err = s.ctx.Err()
			return false
		}
		if s.redact != nil {
			// The filter must not see redacted values: decode, redact,
			// then match.
			doc := s.cur.Doc()
			if s.cur.Err() != nil {
				return false
			}
			doc = s.redact(doc)
			ok := s.filter == nil
			if !ok {
				if ok, s.err = s.filter.MatchContext(s.ctx, doc); s.err != nil {
					return false
				}
			}
			if ok {
				s.doc, s.decoded = doc, true
				return true
			}
			continue
		}
		s.decoded = false
		if s.filter == nil {
			return true
		}
		js, err := s.cur.JSON()
		if err != nil {
			return false
		}
		if s.match == nil {
			s.match = s.filter.JSONMatcherContext(s.ctx)
		}
		ok, err := s.match.Match(js)
		if err != nil {
			s.err = matchFailed(err)
			return false
		}
		if ok {
			return true
		}
	}
	return false
}

func (s *scanSource) storedFields(d *value.Decoder, fs *value.FieldSet) (value.Value, []byte, bool, error) {
	if s.decoded || s.redact != nil || s.fields != nil {
		return value.Value{}, nil, false, nil
	}
	js, err := s.cur.JSON()
	if err != nil {
		return value.Value{}, nil, false, err
	}
	doc, err := d.DecodeFields(js, fs)
	if err != nil {
		return value.Value{}, nil, false, corruptValue(err.Error())
	}
	return doc, js, true, nil
}

func (s *scanSource) Doc() value.Value {
	if s.decoded {
		return s.doc
	}
	s.decoded = true
	if s.fields == nil {
		s.doc = s.cur.Doc()
		return s.doc
	}
	s.doc = value.Value{}
	if js, err := s.cur.JSON(); err == nil {
		if s.doc, err = value.ParseFields(js, s.fields); err != nil {
			s.err = corruptValue(err.Error())
		}
	}
	return s.doc
}

// RawJSON implements RawSource: the stored JSON, unless the document is
// redacted or decoded in part.
func (s *scanSource) RawJSON() []byte {
	if s.redact != nil || s.fields != nil {
		return nil
	}
	return s.cur.RawJSON()
}

func (s *scanSource) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.cur.Err()
}

func (s *scanSource) Close() error { return s.cur.Close() }

// pageSource applies skip and limit to a stream.
type pageSource struct {
	src          agg.Source
	skip, limit  int64
	skipped, out int64
}

func (p *pageSource) Next() bool {
	if p.limit > 0 && p.out >= p.limit {
		return false
	}
	for p.src.Next() {
		if p.skipped < p.skip {
			p.skipped++
			continue
		}
		p.out++
		return true
	}
	return false
}

func (p *pageSource) Doc() value.Value { return p.src.Doc() }

// RawJSON implements RawSource when the stream it pages does.
func (p *pageSource) RawJSON() []byte {
	if rs, ok := p.src.(RawSource); ok {
		return rs.RawJSON()
	}
	return nil
}

func (p *pageSource) Err() error   { return p.src.Err() }
func (p *pageSource) Close() error { return p.src.Close() }

// projectSource applies a projection to each document of a stream.
type projectSource struct {
	ctx    context.Context
	src    agg.Source
	p      *query.Projection
	filter *query.Filter
	doc    value.Value
	err    error
}

func (p *projectSource) Next() bool {
	if p.err != nil || !p.src.Next() {
		return false
	}
	p.doc, p.err = p.p.ApplyContext(p.ctx, p.src.Doc(), p.filter)
	return p.err == nil
}

func (p *projectSource) Doc() value.Value { return p.doc }

func (p *projectSource) Err() error {
	if p.err != nil {
		return p.err
	}
	return p.src.Err()
}

func (p *projectSource) Close() error { return p.src.Close() }

// sortSource reads the whole stream and returns it sorted, keeping only
// skip+limit documents in a heap when there is a limit, and refusing to
// hold more than MaxSortBytes otherwise.
func sortSource(ctx context.Context, src agg.Source, q Query) agg.Source {
	defer src.Close()
	h := &docHeap{s: q.Sort}
	keep := q.Skip + q.Limit
	budget := q.MaxSortBytes
	if budget <= 0 {
		budget = DefaultMaxSortBytes
	}
	if _, ok := src.(fieldsSource); ok && q.SpillDir != "" && q.Limit == 0 {
		// A scan that may spill sorts its stored bytes from the start:
		// they are smaller than decoded documents and print as they are.
		return spillSort(src, q, nil)
	}
	var held int64
	for src.Next() {
		doc := src.Doc()
		if q.Limit > 0 {
			if int64(h.Len()) < keep {
				heap.Push(h, doc)
			} else if q.Sort.Compare(doc, h.docs[0]) < 0 {
				h.docs[0] = doc
				heap.Fix(h, 0)
			}
			continue
		}
		if held += approxSize(doc); held > budget {
			if q.SpillDir != "" {
				return spillSort(src, q, append(h.docs, doc))
			}
			return &sliceSource{err: errs.Errorf(errs.Limit, "sort would hold more than %d bytes of documents in memory", budget).
				WithHint("add --limit, narrow the filter, or sort on an indexed field")}
		}
		h.docs = append(h.docs, doc)
	}
	if err := src.Err(); err != nil {
		return &sliceSource{err: err}
	}
	docs := h.docs
	if err := expr.SortStable(ctx, docs, q.Sort.Compare); err != nil {
		return &sliceSource{err: err}
	}
	docs = docs[min(int64(len(docs)), q.Skip):]
	if q.Limit > 0 && int64(len(docs)) > q.Limit {
		docs = docs[:q.Limit]
	}
	return &sliceSource{docs: docs}
}

// approxSize estimates the memory a document value holds.
func approxSize(v value.Value) int64 {
	n := int64(64)
	switch v.Kind() {
	case value.String, value.Binary:
		n += int64(len(v.Str()) + len(v.Bytes()))
	case value.Array:
		for _, e := range v.Array() {
			n += approxSize(e)
		}
	case value.Object:
		for _, f := range v.Fields() {
			n += int64(len(f.Key)) + approxSize(f.Value)
		}
	}
	return n
}

// docHeap is a max-heap under the sort: its root is the document that
// sorts last, the first to drop when a better one arrives.
type docHeap struct {
	s    *query.Sort
	docs []value.Value
}

func (h *docHeap) Len() int           { return len(h.docs) }
func (h *docHeap) Less(i, j int) bool { return h.s.Compare(h.docs[i], h.docs[j]) > 0 }
func (h *docHeap) Swap(i, j int)      { h.docs[i], h.docs[j] = h.docs[j], h.docs[i] }
func (h *docHeap) Push(x any)         { h.docs = append(h.docs, x.(value.Value)) }
func (h *docHeap) Pop() any {
	x := h.docs[len(h.docs)-1]
	h.docs = h.docs[:len(h.docs)-1]
	return x
}

// sliceSource streams documents held in memory.
type sliceSource struct {
	docs []value.Value
	i    int
	err  error
}

func (s *sliceSource) Next() bool {
	if s.err != nil || s.i >= len(s.docs) {
		return false
	}
	s.i++
	return true
}

func (s *sliceSource) Doc() value.Value { return s.docs[s.i-1] }
func (s *sliceSource) Err() error       { return s.err }
func (s *sliceSource) Close() error     { return nil }
