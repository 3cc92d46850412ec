package store_test

import (
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Cases from MongoDB's jstests/core/query/distinct/distinct_semantics.js
// (the results without an index: Distinct reads documents, never index
// keys),
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

func TestCollection_Distinct_Semantics(t *testing.T) {
	for _, c := range distinctCases {
		t.Run(c.from, func(t *testing.T) {
			db := storetest.MustOpen(t)
			err := db.Update(store.Change{Kind: "test"}, func(tx *store.Tx) error {
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
			if err != nil {
				t.Fatal(err)
			}
			filter := `{}`
			if c.filter != "" {
				filter = c.filter
			}
			got, err := distinctOf(t, db, "c", c.field, filter)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("distinct(%q, %s) = %s, want %s", c.field, c.filter, got, c.want)
			}
		})
	}
}
