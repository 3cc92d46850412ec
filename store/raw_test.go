package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestFind_RawJSONIsTheDocument: where a find's stream hands out the
// stored JSON (collection scans, index scans, paging), the bytes are
// exactly the canonical encoding of the document it returns, so printing
// them prints what printing the decoded document would; where the stream
// changes documents (projection, redaction, in-memory sort) it hands out
// nothing.
func TestFind_RawJSONIsTheDocument(t *testing.T) {
	db := storetest.MustOpen(t)
	r := rand.New(rand.NewPCG(7, 8))
	vals := []string{"1", "-0.5", "1e300", `"x"`, `"é\u0000\"q"`, "null", "[3,[1,{}]]", "[]", `{"k":{"$date":5}}`,
		"true", `{"$oid":"665f1c2e9b1d4a3f5e6d7c8b"}`, `{"$numberDouble":"NaN"}`, "9223372036854775807", "2.50"}
	var docs []string
	for i := range 400 {
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"a":%d,"b":%s,"c":{"d":%s}}`, i, r.IntN(20), vals[r.IntN(len(vals))], vals[r.IntN(len(vals))]))
	}
	storetest.Insert(t, db, "c", docs...)
	if err := createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "a"}}}); err != nil {
		t.Fatal(err)
	}
	compile := func(f, s, p string) store.Query {
		var q store.Query
		var err error
		if f != "" {
			if q.Filter, err = query.CompileFilter(value.MustParse(f)); err != nil {
				t.Fatal(err)
			}
		}
		if s != "" {
			if q.Sort, err = query.CompileSort(value.MustParse(s)); err != nil {
				t.Fatal(err)
			}
		}
		if p != "" {
			if q.Projection, err = query.CompileProjection(value.MustParse(p)); err != nil {
				t.Fatal(err)
			}
		}
		return q
	}
	redact := func(v value.Value) value.Value { return v }
	for _, c := range []struct {
		name          string
		q             store.Query
		raw, anyMatch bool
	}{
		{"scan", compile(`{"b":{"$ne":null}}`, "", ""), true, true},
		{"all", compile("", "", ""), true, true},
		{"index range", compile(`{"a":{"$gte":3,"$lte":9},"c.d":{"$exists":true}}`, "", ""), true, true},
		{"index order", compile(`{"a":{"$gt":10}}`, `{"a":1}`, ""), true, true},
		{"paged", store.Query{Filter: compile(`{"a":{"$lt":5}}`, "", "").Filter, Skip: 3, Limit: 7}, true, true},
		{"in-memory sort", compile(`{"b":{"$exists":true}}`, `{"c.d":-1}`, ""), false, true},
		{"projection", compile(`{"a":4}`, "", `{"b":1}`), false, true},
		{"redacted", store.Query{Redact: redact}, false, true},
	} {
		var n, raw int
		err := db.View(func(tx *store.Tx) error {
			coll, err := tx.Collection("c")
			if err != nil {
				return err
			}
			src := coll.Find(context.Background(), c.q)
			defer src.Close()
			rs, _ := src.(store.RawSource)
			for src.Next() {
				n++
				var js []byte
				if rs != nil {
					js = rs.RawJSON()
				}
				if js == nil {
					continue
				}
				raw++
				if want := value.AppendJSON(nil, src.Doc()); string(js) != string(want) {
					t.Errorf("%s: raw %s, document %s", c.name, js, want)
				}
			}
			return src.Err()
		})
		switch {
		case err != nil:
			t.Fatalf("%s: %v", c.name, err)
		case n == 0 && c.anyMatch:
			t.Errorf("%s: no document matched", c.name)
		case c.raw && raw != n:
			t.Errorf("%s: %d of %d documents handed out as stored", c.name, raw, n)
		case !c.raw && raw != 0:
			t.Errorf("%s: %d documents handed out as stored, though the stream changes them", c.name, raw)
		}
	}
}
