package query_test

import (
	"testing"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// TestNullThroughArrays pins equality to null on a dotted path through
// arrays as MongoDB 8.x does it (before SERVER-36681, which changes it
// for 9.0): an empty array or an array of scalars on the path gives no
// value at all, so {"a.b": null} does not match it and {"a.b": {"$ne":
// null}} does; an object element without the field gives null. The
// documents are those of MongoDB's jstests/core/query/ne_null.js and
// dotted_path_in_null.js (see docs/differences.md).
func TestNullThroughArrays(t *testing.T) {
	docs := []string{`{"a":[1,{"c":1}]}`, `{"a":[1]}`, `{"a":[]}`, `{"a":[[]]}`, `{"a":[{}]}`, `{}`, `{"a":{}}`, `{"a":null}`}
	for _, tc := range []struct {
		filter string
		want   []bool // per document
	}{
		{`{"a.b":null}`, []bool{true, false, false, false, true, true, true, true}},
		{`{"a.b":{"$ne":null}}`, []bool{false, true, true, true, false, false, false, false}},
		{`{"a.b":{"$in":[null]}}`, []bool{true, false, false, false, true, true, true, true}},
		{`{"a.b":{"$nin":[null]}}`, []bool{false, true, true, true, false, false, false, false}},
		{`{"b":{"$ne":null}}`, []bool{false, false, false, false, false, false, false, false}},
	} {
		f, err := query.CompileFilter(value.MustParse(tc.filter))
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range docs {
			if got := f.Match(value.MustParse(d)); got != tc.want[i] {
				t.Errorf("%s on %s = %v, want %v", tc.filter, d, got, tc.want[i])
			}
		}
	}
}
