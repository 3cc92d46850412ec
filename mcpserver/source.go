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
	docs      []value.Value
	more      bool          // results remain after this page
	seen      int64         // results read, skipped ones included (all of them with countAll)
	limits    []value.Field // the caps that fired, with their values
	truncated bool          // some string was cut at max-string
	bytes     int           // of the documents kept
}

// readPage reads a page from src: it skips skip results, then keeps at
// most limit of them within the server's caps. With countAll it reads on
// to the end, so that seen is the number of results.
func (c *call) readPage(ctx context.Context, src agg.Source, skip, limit int64, countAll bool) (*page, error) {
	s := c.srv
	pg := &page{}
	max, capName := limit, "limit"
	if int64(s.cfg.MaxDocs) < limit {
		max, capName = int64(s.cfg.MaxDocs), "max_docs"
	}
	full := false
	for src.Next() {
		pg.seen++
		switch {
		case pg.seen <= skip:
			continue
		case full || int64(len(pg.docs)) >= max:
			if !pg.more && !full {
				pg.limits = append(pg.limits, value.Field{Key: capName, Value: value.LongValue(max)})
			}
			pg.more = true
			if !countAll {
				return pg.finish(src)
			}
			if pg.seen%1024 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		full = c.add(pg, src.Doc())
	}
	return pg.finish(src)
}

// add adds a document to the page within the byte cap, and reports
// whether the page is full. A document over the cap on its own is
// replaced by a stub, so that the page, and its cursor, move on.
func (c *call) add(pg *page, doc value.Value) bool {
	s := c.srv
	doc, cut := truncateStrings(doc, s.cfg.MaxString)
	if cut && !pg.truncated {
		pg.truncated = true
		pg.limits = append(pg.limits, value.Field{Key: "max_string", Value: value.LongValue(int64(s.cfg.MaxString))})
	}
	size := len(value.AppendJSON(nil, doc))
	if pg.bytes+size <= s.cfg.MaxBytes {
		pg.docs = append(pg.docs, doc)
		pg.bytes += size
		return false
	}
	if len(pg.docs) == 0 {
		pg.docs = append(pg.docs, oversized(doc, size, s.cfg.MaxBytes))
	} else {
		pg.more = true // this one opens the next page
	}
	pg.limits = append(pg.limits, value.Field{Key: "max_bytes", Value: value.LongValue(int64(s.cfg.MaxBytes))})
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
