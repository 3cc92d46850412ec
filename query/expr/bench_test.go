package expr_test

import (
	"testing"

	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// BenchmarkEval evaluates typical expressions against one document: the
// per-operation cost that step counting must not raise.
func BenchmarkEval(b *testing.B) {
	doc := value.MustParse(`{"_id":1,"a":5,"b":2.5,"name":"Ada Lovelace","tags":["x","y","z"],"scores":[3,9,4,7,1,8,2,6,5,0]}`)
	for _, c := range []struct{ name, spec string }{
		{"arith", `{"$add":[{"$multiply":["$a","$b"]},1]}`},
		{"cond", `{"$cond":[{"$gte":["$a",3]},"big","small"]}`},
		{"string", `{"$concat":[{"$toUpper":"$name"}," #",{"$toString":"$a"}]}`},
		{"map", `{"$map":{"input":"$scores","in":{"$multiply":["$$this",2]}}}`},
		{"filter", `{"$filter":{"input":"$scores","cond":{"$gt":["$$this",4]}}}`},
		{"reduce", `{"$reduce":{"input":"$scores","initialValue":0,"in":{"$add":["$$value","$$this"]}}}`},
		{"sum", `{"$sum":"$scores"}`},
		{"sortArray", `{"$sortArray":{"input":"$scores","sortBy":1}}`},
		{"range", `{"$size":{"$range":[0,1000]}}`},
	} {
		e, err := expr.Compile(value.MustParse(c.spec))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Eval(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
