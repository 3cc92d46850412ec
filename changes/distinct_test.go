package changes_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Cases from MongoDB's jstests/core/query/distinct/distinct_semantics.js
// (the results without an index: omgdb's distinct never reads an index),
// distinct_array1.js and distinct1.js, in BSON order (MongoDB's order is
// unspecified; the jstests compare as sets). Documents get _ids 1, 2, …
// when they have none.
var distinctCases = []struct {
	from   string
	docs   []string
	field  string
	filter string
	want   string // the values as a JSON array
}{
	{"distinct_semantics.js: empty", nil, "a", "", `[]`},
	{"distinct_semantics.js: missing field", []string{`{}`}, "a", "", `[]`},
	{"distinct_semantics.js: empty array", []string{`{"a":[]}`}, "a", "", `[]`},
	{"distinct_semantics.js: other field", []string{`{"a":1}`}, "b", "", `[]`},
	{"distinct_semantics.js: null", []string{`{"a":null}`}, "a", "", `[null]`},
	{"distinct_semantics.js: empty object", []string{`{"a":{}}`}, "a", "", `[{}]`},
	{"distinct_semantics.js: nested empty array", []string{`{"a":[[]]}`}, "a", "", `[[]]`},
	{"distinct_semantics.js: numeric types", []string{`{"a":2.0}`, `{"a":3}`, `{"a":1}`, `{"a":{"$numberInt":"2"}}`}, // omgdb has no decimal: NumberDecimal(1) left out
		"a", "", `[1,2.0,3]`},
	{"distinct_semantics.js: non-numeric types", []string{`{"a":{"b":1}}`, `{"a":"str"}`, `{"a":null}`, `{"a":"str"}`, `{"a":null}`, `{"a":{"b":1}}`},
		"a", "", `[null,"str",{"b":1}]`},
	{"distinct_semantics.js: type bracketing in the filter", []string{`{"a":2}`, `{"a":"str"}`, `{"a":null}`, `{"a":3}`, `{"a":{"$numberInt":"3"}}`, `{"a":{"b":1}}`},
		"a", `{"a":{"$gt":2}}`, `[3]`},
	{"distinct_semantics.js: filter on another field", []string{`{"a":1,"b":5}`, `{"a":2,"b":7}`, `{"a":1,"b":7}`, `{"a":1,"b":5}`, `{"a":3,"b":"str"}`, `{"a":4}`},
		"a", `{"b":5}`, `[1]`},
	{"distinct_semantics.js: arrays flattened one level", []string{`{"a":[2,3]}`, `{"a":1}`, `{"a":2}`, `{"a":[1,[2,3]]}`, `{"a":[3,"str"]}`},
		"a", "", `[1,2,3,"str",[2,3]]`},
	{"distinct_semantics.js: filter on the whole array", []string{`{"a":0}`, `{"a":[1,2]}`, `{"a":[-1,3]}`, `{"a":[-2,[3]]}`, `{"a":[3,"str"]}`, `{"a":[3,null]}`},
		"a", `{"a":{"$gt":2}}`, `[null,-1,3,"str"]`},
	{"distinct_semantics.js: numeric path component", []string{`{"a":0}`, `{"a":[1,2]}`, `{"a":[1,3]}`, `{"a":[[2,3],"str"]}`, `{"a":[[[4]],null]}`},
		"a.0", "", `[1,2,3,[4]]`},
	{"distinct_semantics.js: arrays on the path", []string{`{"a":[{"b":{"c":1}},{"b":{"c":[2,20]}},{"b":{"c":[3]}}]}`, `{"a":{"b":[{"c":[3,30]},{"c":[4]}]}}`, `{"a":{"b":{"c":[1,10]}}}`},
		"a.b.c", "", `[1,2,3,4,10,20,30]`},
	{"distinct_semantics.js: numeric components through arrays", []string{`{"a":[{"b":[{"c":2},{"c":[1,10]}]},{"b":[{"c":3},{"c":4}]}]}`, `{"a":[{"b":[{"c":5},{"c":10}]}]}`, `{"a":[{"b":[{"c":6}]}]}`, `{"a":{"b":{"c":7}}}`},
		"a.0.b.1.c", "", `[1,10]`},
	{"distinct_semantics.js: missing paths", []string{`{"a":{"b":{"c":0}}}`, `{"x":0}`, `{"a":1}`, `{"a":null}`, `{"a":[]}`, `{"a":{"x":2}}`, `{"a":{"b":3}}`, `{"a":{"b":null}}`, `{"a":{"b":{"x":4}}}`, `{"a":{"b":[]}}`},
		"a.b.c", "", `[0]`},
	{"distinct_semantics.js: arrays on the path filtered whole", []string{`{"a":[{"b":2},{"b":4}]}`, `{"a":[{"b":0},{"b":1}]}`},
		"a.b", `{"a.b":{"$gt":3}}`, `[2,4]`},
	{"distinct_semantics.js: _id", []string{`{"_id":1,"a":42}`, `{"_id":2,"a":42}`}, "_id", "", `[1,2]`},
	{"distinct_semantics.js: _id with filter", []string{`{"_id":1,"a":42}`, `{"_id":2,"a":42}`}, "_id", `{"_id":{"$gt":1}}`, `[2]`},
	{"distinct_semantics.js: _id.a", []string{`{"_id":{"a":[1,2]}}`, `{"_id":{"a":[2,3]}}`, `{"_id":{"a":3}}`, `{"_id":{"a":4}}`}, "_id.a", "", `[1,2,3,4]`},
	{"distinct_array1.js: a.b over arrays of objects", []string{`{"a":[{"b":"a"},{"b":"d"}]}`, `{"a":[{"b":"b"},{"b":"d"}]}`, `{"a":[{"b":"c"},{"b":"e"}]}`, `{"a":[{"b":"c"},{"b":"f"}]}`, `{"a":[]}`, `{"a":{"b":"z"}}`},
		"a.b", "", `["a","b","c","d","e","f","z"]`},
	{"distinct_array1.js: a.1", []string{`{"a":[1,2,3]}`, `{"a":[2,3,4]}`, `{"a":[3,4,5]}`, `{"a":9}`}, "a.1", "", `[2,3,4]`},
	{"distinct1.js: with a filter", []string{`{"a":1}`, `{"a":2}`, `{"a":2}`, `{"a":2}`, `{"a":3}`}, "a", `{"a":{"$lt":3}}`, `[1,2]`},
	{"distinct2.js: a.b under null", []string{`{"a":null}`}, "a.b", "", `[]`},
}

func TestDistinct_MongoDBCases(t *testing.T) {
	for _, c := range distinctCases {
		t.Run(c.from, func(t *testing.T) {
			db := storetest.MustOpen(t)
			write(t, db, func(tx *store.Tx) error {
				coll, err := tx.CreateCollection("c")
				for i, d := range c.docs {
					doc := value.MustParse(d)
					if doc.Get("_id").IsMissing() {
						doc = value.ObjectValue(append([]value.Field{{Key: "_id", Value: value.LongValue(int64(i + 1))}}, doc.Fields()...))
					}
					if _, err = coll.Insert(doc); err != nil {
						return err
					}
				}
				return err
			})
			filter := value.MustParse(`{}`)
			if c.filter != "" {
				filter = value.MustParse(c.filter)
			}
			got, err := changes.Distinct(ctx, db, "c", c.field, filter, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s := value.ArrayValue(got).String(); s != c.want {
				t.Errorf("distinct(%q, %s) = %s, want %s", c.field, c.filter, s, c.want)
			}
		})
	}
}

func TestDistinct_KeepsTheFirstOfEqualNumbers(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"a":2.0}`, `{"_id":2,"a":{"$numberLong":"2"}}`)
	got, err := changes.Distinct(ctx, db, "c", "a", value.MustParse(`{}`), nil)
	if err != nil || len(got) != 1 || got[0].Kind() != value.Double {
		t.Fatalf("distinct = %v, %v; want the double 2.0 (first in _id order)", got, err)
	}
}

func TestDistinct_Errors(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"a":"x"}`, `{"_id":2,"a":"yy"}`)
	if _, err := changes.Distinct(ctx, db, "user", "a", value.MustParse(`{}`), nil); !errors.Is(err, store.ErrNotFound) ||
		!strings.Contains(err.Error(), "did you mean `users`") {
		t.Errorf("missing collection: %v", err)
	}
	for _, field := range []string{"", "$a", "a..b", "a\x00b", "a."} {
		if _, err := changes.Distinct(ctx, db, "users", field, value.MustParse(`{}`), nil); errs.KindOf(err) != errs.Invalid || errs.HintOf(err) == "" {
			t.Errorf("field %q: %v", field, err)
		}
	}
	if _, err := changes.Distinct(ctx, db, "users", "a", value.MustParse(`{"a":{"$gtt":1}}`), nil); !strings.Contains(fmtErr(err), "did you mean `$gt`") {
		t.Errorf("bad filter: %v", err)
	}
	_, err := changes.Distinct(ctx, db, "users", "a", value.MustParse(`{}`), &changes.DistinctOptions{MaxBytes: 4})
	if errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), "larger than 4 bytes") {
		t.Errorf("over the size cap: %v", err)
	}
}

func TestDistinct_AtRevisionAndRedacted(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"a":1,"s":"x"}`)
	rev := lastLSN(t, db)
	storetest.Insert(t, db, "c", `{"_id":2,"a":2,"s":"y"}`)
	got, err := changes.Distinct(ctx, db, "c", "a", value.MustParse(`{}`), &changes.DistinctOptions{At: value.LongValue(int64(rev)).String()})
	if err != nil || value.ArrayValue(got).String() != `[1]` {
		t.Errorf("distinct at lsn %d = %v, %v", rev, got, err)
	}
	drop := func(d value.Value) value.Value {
		var f []value.Field
		for _, x := range d.Fields() {
			if x.Key != "s" {
				f = append(f, x)
			}
		}
		return value.ObjectValue(f)
	}
	got, err = changes.Distinct(ctx, db, "c", "a", value.MustParse(`{"s":"x"}`), &changes.DistinctOptions{Redact: drop})
	if err != nil || len(got) != 0 {
		t.Errorf("a filter on a redacted field matched: %v, %v", got, err)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
