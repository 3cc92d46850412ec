package mcpserver

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/store"
)

// scan returns the documents of a collection that match filter (nil:
// all), in _id order, as the agent may see them: redacted fields are
// removed where the documents are read, before the filter sees them, so a
// filter cannot probe a redacted value. Without redaction the store
// filters by itself.
func (c *call) scan(ctx context.Context, col *store.Collection, filter *query.Filter) query.Source {
	paths := c.srv.policy.redactions(col.Name())
	if len(paths) == 0 {
		return col.Find(ctx, store.Query{Filter: filter})
	}
	return &redactedSource{src: col.Find(ctx, store.Query{}), paths: paths, filter: filter}
}

// redactedSource removes fields from each document of src, then filters.
type redactedSource struct {
	src    query.Source
	paths  [][]string
	filter *query.Filter
	doc    query.Value
}

func (r *redactedSource) Next() bool {
	for r.src.Next() {
		r.doc = redact(r.src.Doc(), r.paths)
		if r.filter == nil || r.filter.Match(r.doc) {
			return true
		}
	}
	return false
}

func (r *redactedSource) Doc() query.Value { return r.doc }
func (r *redactedSource) Err() error       { return r.src.Err() }
func (r *redactedSource) Close() error     { return r.src.Close() }

// page is one page of a find: the documents returned, and what stopped it.
type page struct {
	docs      []query.Value
	matched   int64         // every match, not just this page's
	limits    []query.Field // the caps that fired, with their values
	truncated bool          // some string was cut at max-string
	bytes     int
}

// readPage reads the matches of src after skipping skip of them, keeping
// at most limit documents within the server's caps, and counts every
// match. ctx bounds the scan.
func (c *call) readPage(ctx context.Context, src query.Source, skip, limit int64) (*page, error) {
	s := c.srv
	pg := &page{}
	max, capName := limit, "limit"
	if int64(s.cfg.MaxDocs) < limit {
		max, capName = int64(s.cfg.MaxDocs), "max_docs"
	}
	full := false
	for src.Next() {
		pg.matched++
		if pg.matched <= skip {
			continue
		}
		if full || int64(len(pg.docs)) >= max {
			if !full {
				pg.limits = append(pg.limits, query.Field{Key: capName, Value: query.LongValue(max)})
				full = true
			}
			if pg.matched%1024 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		doc, cut := truncateStrings(src.Doc(), s.cfg.MaxString)
		pg.truncated = pg.truncated || cut
		size := len(query.AppendJSON(nil, doc))
		if pg.bytes+size > s.cfg.MaxBytes {
			if len(pg.docs) == 0 { // alone over the cap: return a stub so the cursor moves on
				doc = oversized(doc, size, s.cfg.MaxBytes)
				pg.docs = append(pg.docs, doc)
			}
			pg.limits = append(pg.limits, query.Field{Key: "max_bytes", Value: query.LongValue(int64(s.cfg.MaxBytes))})
			full = true
			continue
		}
		pg.docs = append(pg.docs, doc)
		pg.bytes += size
	}
	if pg.truncated {
		pg.limits = append(pg.limits, query.Field{Key: "max_string", Value: query.LongValue(int64(s.cfg.MaxString))})
	}
	return pg, src.Err()
}

// oversized replaces a document too large for --max-bytes on its own.
func oversized(doc query.Value, size, max int) query.Value {
	return obj("_id", doc.Get("_id"), "_omgdb_omitted",
		fmt.Sprintf("document is %d bytes, over the %d-byte result limit (--max-bytes)", size, max))
}

// truncateStrings cuts strings longer than max characters, marking each
// cut, and reports whether it cut any.
func truncateStrings(v query.Value, max int) (query.Value, bool) {
	switch v.Kind() {
	case query.String:
		s := v.Str()
		if len(s) <= max || utf8.RuneCountInString(s) <= max {
			return v, false
		}
		n, i := 0, 0
		for i = range s {
			if n == max {
				break
			}
			n++
		}
		rest := utf8.RuneCountInString(s[i:])
		return query.StringValue(fmt.Sprintf("%s…[%d more characters cut by --max-string]", s[:i], rest)), true
	case query.Array:
		var elems []query.Value
		cut := false
		for i, e := range v.Array() {
			t, c := truncateStrings(e, max)
			if c && elems == nil {
				elems = append([]query.Value(nil), v.Array()...)
			}
			if elems != nil {
				elems[i] = t
			}
			cut = cut || c
		}
		if elems != nil {
			return query.ArrayValue(elems), true
		}
		return v, cut
	case query.Object:
		var fields []query.Field
		for i, f := range v.Fields() {
			t, c := truncateStrings(f.Value, max)
			if c && fields == nil {
				fields = append([]query.Field(nil), v.Fields()...)
			}
			if fields != nil {
				fields[i].Value = t
			}
		}
		if fields != nil {
			return query.ObjectValue(fields), true
		}
	}
	return v, false
}
