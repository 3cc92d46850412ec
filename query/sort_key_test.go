package query_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// TestSortAppendKey_MatchesCompare checks that the byte keys external
// sorts order documents by agree with Sort.Compare, on random documents
// whose sort fields hold every type, arrays (empty ones included), null
// and missing values, and mixed numbers, under random compound sorts.
func TestSortAppendKey_MatchesCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	paths := []string{"a", "b", "a.b", "c.0", "a.x"}
	field := func() value.Value {
		switch r.IntN(8) {
		case 0:
			return value.ArrayValue(nil)
		case 1:
			return value.ArrayValue([]value.Value{testgen.Long(r), testgen.Double(r)})
		case 2:
			return value.MustParse(fmt.Sprintf(`{"b":%d,"x":[1,"s",null]}`, r.IntN(3)))
		}
		return testgen.Value(r, 2)
	}
	docs := make([]value.Value, 400)
	for i := range docs {
		var fields []value.Field
		fields = append(fields, value.Field{Key: "_id", Value: testgen.Value(r, 0)})
		for _, k := range []string{"a", "b", "c"} {
			if r.IntN(4) > 0 {
				fields = append(fields, value.Field{Key: k, Value: field()})
			}
		}
		docs[i] = value.ObjectValue(fields)
	}
	for range 60 {
		var spec []value.Field
		for range 1 + r.IntN(3) {
			spec = append(spec, value.Field{Key: paths[r.IntN(len(paths))], Value: value.LongValue(int64(1 - 2*r.IntN(2)))})
		}
		s, err := query.CompileSort(value.ObjectValue(dedupe(spec)))
		if err != nil {
			t.Fatal(err)
		}
		keys := make([][]byte, len(docs))
		for i, d := range docs {
			keys[i] = s.AppendKey(nil, d)
		}
		for i := range docs {
			for j := range docs {
				want, got := s.Compare(docs[i], docs[j]), bytes.Compare(keys[i], keys[j])
				if want != got {
					t.Fatalf("sort %v: Compare(%s, %s) = %d, keys compare %d", s.Keys(), value.JSON(docs[i]), value.JSON(docs[j]), want, got)
				}
			}
		}
	}
}

func dedupe(fs []value.Field) []value.Field {
	seen := map[string]bool{}
	var out []value.Field
	for _, f := range fs {
		if !seen[f.Key] {
			seen[f.Key], out = true, append(out, f)
		}
	}
	return out
}
