package mcpserver

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// redactor returns the function that removes the collection's redacted
// fields from a document, or nil when none are.
func (c *call) redactor(coll string) func(value.Value) value.Value {
	paths := c.srv.policy.redactions(coll)
	if len(paths) == 0 {
		return nil
	}
	return func(doc value.Value) value.Value { return redact(doc, paths) }
}

// scan runs a find on a collection as the agent may see it: redacted
// fields are removed where documents are read, before the filter, the
// sort, the projection or a pipeline sees them, so no query can test a
// redacted value.
func (c *call) scan(ctx context.Context, col *store.Collection, q store.Query) agg.Source {
	q.Redact = c.redactor(col.Name())
	return col.Find(ctx, q)
}

// view opens the store read-only and runs fn on a collection the agent
// may see, in one read transaction.
func (c *call) view(coll string, fn func(*store.Tx, *store.Collection) error) error {
	db, err := c.openStore(false)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(func(tx *store.Tx) error {
		col, err := c.collection(tx, coll)
		if err != nil {
			return err
		}
		return fn(tx, col)
	})
}

// count counts the documents of a collection that match filter, as the
// agent sees them.
func (c *call) count(ctx context.Context, col *store.Collection, filter *query.Filter) (int64, error) {
	if filter == nil {
		return col.Count(), nil
	}
	return col.CountQuery(ctx, store.Query{Filter: filter, Redact: c.redactor(col.Name())})
}

// drain reads a stream to its end, closes it, and returns how many
// documents it had.
func drain(src agg.Source) (int64, error) {
	defer src.Close()
	var n int64
	for src.Next() {
		n++
	}
	return n, src.Err()
}

// page is one page of results and what cut it.
type page struct {
	docs      []value.Value // the kept documents as values; missing for those kept as stored
	js        [][]byte      // the kept documents' JSON, as the result holds it
	more      bool          // results remain after this page
	seen      int64         // results read, skipped and counted ones included
	limits    []value.Field // the caps that fired, with their values
	truncated bool          // some string was cut at max-string
	bytes     int           // of the documents kept
}

// pageMax is how many documents a page may hold: limit, or --max-docs
// when it is lower, with the name of the cap.
func (c *call) pageMax(limit int64) (int64, string) {
	if max := int64(c.srv.cfg.MaxDocs); max < limit {
		return max, "max_docs"
	}
	return limit, "limit"
}

// readPage reads a page from src: it skips skip results, then keeps at
// most limit of them within the server's caps. When results remain, it
// stops on the first one past the page, which pg.seen counts; countOn
// reads on from there.
func (c *call) readPage(ctx context.Context, src agg.Source, skip, limit int64) (*page, error) {
	pg := &page{}
	max, capName := c.pageMax(limit)
	full := false
	for src.Next() {
		pg.seen++
		switch {
		case pg.seen <= skip:
			if pg.seen%1024 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		case full || int64(len(pg.js)) >= max:
			if !pg.more && !full {
				pg.limits = append(pg.limits, value.Field{Key: capName, Value: value.LongValue(max)})
			}
			pg.more = true
			return pg.finish(src)
		}
		full = c.addFrom(pg, src)
	}
	return pg.finish(src)
}

// countOn reads on past a full page, counting results without decoding
// them, until pg.seen reaches to or the stream ends. It reports whether
// the stream ended, so that pg.seen is the number of results.
func (pg *page) countOn(ctx context.Context, src agg.Source, to int64) (bool, error) {
	for pg.seen < to {
		if !src.Next() {
			return true, src.Err()
		}
		if pg.seen++; pg.seen%1024 == 0 && ctx.Err() != nil {
			return false, ctx.Err()
		}
	}
	return false, nil
}

// addFrom adds the current document of a stream to the page, in relaxed
// Extended JSON: transcoded from its stored bytes, without decoding it,
// when the stream hands it out unchanged (no projection, no redaction)
// and it is too short to hold a string over --max-string; else decoded.
func (c *call) addFrom(pg *page, src agg.Source) bool {
	if rs, ok := src.(store.RawSource); ok {
		if js := rs.RawJSON(); js != nil && len(js) <= c.srv.cfg.MaxString {
			if out, err := relaxedJSON(js); err == nil {
				return c.keep(pg, out, value.MissingValue, src.Doc)
			}
		}
	}
	return c.add(pg, src.Doc())
}

// add adds a document to the page, its strings cut at --max-string, and
// reports whether the page is full.
func (c *call) add(pg *page, doc value.Value) bool {
	s := c.srv
	doc, cut := truncateStrings(doc, s.cfg.MaxString)
	if cut && !pg.truncated {
		pg.truncated = true
		pg.limits = append(pg.limits, value.Field{Key: "max_string", Value: value.LongValue(int64(s.cfg.MaxString))})
	}
	return c.keep(pg, encodeJSON(nil, doc), doc, func() value.Value { return doc })
}

// keep adds a document, as its JSON and its value (missing when it is
// kept as stored), within the byte cap, and reports whether the page is
// full. A document over the cap on its own is replaced by a stub naming
// its _id (whole decodes it), so that the page, and its cursor, move on.
func (c *call) keep(pg *page, js []byte, doc value.Value, whole func() value.Value) bool {
	max := c.maxBytes()
	if pg.bytes+len(js) <= max {
		pg.docs, pg.js = append(pg.docs, doc), append(pg.js, js)
		pg.bytes += len(js)
		return false
	}
	if len(pg.js) == 0 {
		stub := oversized(whole(), len(js), max)
		pg.docs, pg.js = append(pg.docs, stub), append(pg.js, encodeJSON(nil, stub))
	} else {
		pg.more = true // this one opens the next page
	}
	pg.limits = append(pg.limits, value.Field{Key: "max_bytes", Value: value.LongValue(int64(max))})
	return true
}

func (pg *page) finish(src agg.Source) (*page, error) { return pg, src.Err() }

// oversized replaces a document too large for --max-bytes on its own.
func oversized(doc value.Value, size, max int) value.Value {
	return obj("_id", doc.Get("_id"), "_omgdb_omitted",
		fmt.Sprintf("document is %d bytes, over the %d-byte result limit (--max-bytes)", size, max))
}

// truncateStrings cuts strings longer than max characters, marking each
// cut, and reports whether it cut any.
func truncateStrings(v value.Value, max int) (value.Value, bool) {
	switch v.Kind() {
	case value.String:
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
		return value.StringValue(fmt.Sprintf("%s…[%d more characters cut by --max-string]", s[:i], rest)), true
	case value.Array:
		var elems []value.Value
		cut := false
		for i, e := range v.Array() {
			t, c := truncateStrings(e, max)
			if c && elems == nil {
				elems = append([]value.Value(nil), v.Array()...)
			}
			if elems != nil {
				elems[i] = t
			}
			cut = cut || c
		}
		if elems != nil {
			return value.ArrayValue(elems), true
		}
		return v, cut
	case value.Object:
		var fields []value.Field
		for i, f := range v.Fields() {
			t, c := truncateStrings(f.Value, max)
			if c && fields == nil {
				fields = append([]value.Field(nil), v.Fields()...)
			}
			if fields != nil {
				fields[i].Value = t
			}
		}
		if fields != nil {
			return value.ObjectValue(fields), true
		}
	}
	return v, false
}
