package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// distinctOf runs Distinct on coll and returns its values as JSON.
func distinctOf(t *testing.T, db *store.DB, coll, field, filter string) (string, error) {
	t.Helper()
	f, err := query.CompileFilter(value.MustParse(filter))
	if err != nil {
		t.Fatal(err)
	}
	var out []value.Value
	err = db.View(func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		out, err = c.Distinct(context.Background(), field, store.Query{Filter: f}, 0)
		return err
	})
	return string(value.AppendJSON(nil, value.ArrayValue(out))), err
}

// TestCollection_Distinct follows MongoDB's distinct: cases from
// jstests/core/distinct1.js (A1, A2, B1, C1, C2) and
// jstests/core/distinct_array1.js (flattened arrays, numeric
// components), plus null against missing and mixed numeric types.
func TestCollection_Distinct(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "d1", `{"_id":1,"a":1}`, `{"_id":2,"a":2}`, `{"_id":3,"a":2}`, `{"_id":4,"a":2}`, `{"_id":5,"a":3}`)
	storetest.Insert(t, db, "d1b", `{"a":{"b":"a"},"c":12}`, `{"a":{"b":"b"},"c":12}`, `{"a":{"b":"c"},"c":12}`, `{"a":{"b":"c"},"c":12}`)
	storetest.Insert(t, db, "arr", `{"a":[1,2,3]}`, `{"a":[2,3,4]}`, `{"a":[3,4,5]}`, `{"a":9}`)
	storetest.Insert(t, db, "nested", `{"a":[{"b":1},{"b":[2,[3]]}]}`, `{"a":{"b":[1,4]}}`, `{"a":[]}`, `{}`)
	storetest.Insert(t, db, "nulls", `{"_id":1,"a":null}`, `{"_id":2}`, `{"_id":3,"a":[null,1]}`)
	storetest.Insert(t, db, "nums", `{"_id":1,"a":1}`, `{"_id":2,"a":1.0}`, `{"_id":3,"a":{"$numberLong":"1"}}`,
		`{"_id":4,"a":"1"}`, `{"_id":5,"a":2.5}`, `{"_id":6,"a":{"$numberLong":"9007199254740993"}}`, `{"_id":7,"a":9007199254740992.0}`)
	cases := []struct{ coll, field, filter, want string }{
		{"d1", "a", `{}`, `[1,2,3]`},                                 // distinct1.js A1
		{"d1", "a", `{"a":{"$lt":3}}`, `[1,2]`},                      // distinct1.js A2
		{"d1b", "a.b", `{}`, `["a","b","c"]`},                        // distinct1.js B1
		{"d1", "_id", `{}`, `[1,2,3,4,5]`},                           // distinct1.js C1
		{"d1", "a", `{"_id":1}`, `[1]`},                              // distinct1.js C2
		{"d1", "zzz", `{}`, `[]`},                                    // a field no document has
		{"arr", "a", `{}`, `[1,2,3,4,5,9]`},                          // distinct_array1.js
		{"arr", "a.0", `{}`, `[1,2,3]`},                              // distinct_array1.js
		{"arr", "a.1", `{}`, `[2,3,4]`},                              // distinct_array1.js
		{"nested", "a.b", `{}`, `[1,2,4,[3]]`},                       // one level flattened; arrays sort after numbers
		{"nested", "a", `{}`, `[{"b":1},{"b":[1,4]},{"b":[2,[3]]}]`}, // [] contributes nothing
		{"nulls", "a", `{}`, `[null,1]`},                             // null is a value, missing is not
		{"nulls", "a", `{"a":null}`, `[null,1]`},                     // {a:null} matches missing too
		{"nums", "a", `{}`, `[1,2.5,9007199254740992.0,9007199254740993,"1"]`},
	}
	for _, tc := range cases {
		got, err := distinctOf(t, db, tc.coll, tc.field, tc.filter)
		if err != nil {
			t.Errorf("distinct %s %s %s: %v", tc.coll, tc.field, tc.filter, err)
			continue
		}
		if got != tc.want {
			t.Errorf("distinct %s %s %s = %s, want %s", tc.coll, tc.field, tc.filter, got, tc.want)
		}
	}
}

// TestCollection_Distinct_IndexEqualsScan checks that an index on the
// field (multikey here) gives what a collection scan gives.
func TestCollection_Distinct_IndexEqualsScan(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "arr", `{"a":[1,2,3],"b":1}`, `{"a":[2,3,4],"b":2}`, `{"a":[3,4,5],"b":3}`, `{"a":9,"b":4}`)
	before, _ := distinctOf(t, db, "arr", "a", `{"b":{"$gte":2}}`)
	err := db.Update(store.Change{Kind: "create_index"}, func(tx *store.Tx) error {
		c, err := tx.Collection("arr")
		if err != nil {
			return err
		}
		if _, err := c.CreateBTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "a"}}}); err != nil {
			return err
		}
		_, err = c.CreateBTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "b"}}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := distinctOf(t, db, "arr", "a", `{"b":{"$gte":2}}`)
	if before != `[2,3,4,5,9]` || after != before {
		t.Errorf("distinct without index %s, with %s; want [2,3,4,5,9] both", before, after)
	}
}

func TestCollection_Distinct_Errors(t *testing.T) {
	db := storetest.MustOpen(t)
	var docs []string
	for i := 0; i < 50; i++ {
		docs = append(docs, fmt.Sprintf(`{"a":%d}`, i%20))
	}
	storetest.Insert(t, db, "c", docs...)
	for _, field := range []string{"", "$a", "a..b", ".a", "a."} {
		if _, err := distinctOf(t, db, "c", field, `{}`); errs.KindOf(err) != errs.Invalid || errs.HintOf(err) == "" {
			t.Errorf("distinct field %q: got %v (kind %v), want an invalid-input error with a hint", field, err, errs.KindOf(err))
		}
	}
	err := db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.Distinct(context.Background(), "a", store.Query{}, 19)
		return err
	})
	if errs.KindOf(err) != errs.Limit {
		t.Errorf("20 values with max 19: got %v, want a limit error", err)
	}
	if _, err := distinctOf(t, db, "nope", "a", `{}`); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing collection: got %v, want not found", err)
	}
}
