package agg_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// TestParseFields_LookupUnchanged: every path of a FieldSet finds the same
// values in the pruned document as in the whole one, for random documents
// and paths (with array positions).
func TestParseFields_LookupUnchanged(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 2000; it++ {
		doc := testgen.Document(r)
		var paths []string
		var vals []value.Value
		testgen.Collect(doc, "", &paths, &vals)
		paths = append(paths, "nope", "aa.0.ba")
		var pick []string
		for n := 1 + r.IntN(3); n > 0; n-- {
			pick = append(pick, paths[r.IntN(len(paths))])
		}
		got, err := value.ParseFields(value.JSON(doc), value.NewFieldSet(pick))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pick {
			if a, b := fmt.Sprint(query.Lookup(doc, p)), fmt.Sprint(query.Lookup(got, p)); a != b {
				t.Fatalf("paths %q of %s: Lookup(%q) = %s in ParseFields' %s, %s in the document", pick, doc, p, b, got, a)
			}
		}
	}
}

// TestPipeline_Fields: pipelines that end in $group or $count after
// $match and $unwind say which fields they read, and give the same output
// on documents decoded with only those fields; other pipelines say they
// need whole documents.
func TestPipeline_Fields(t *testing.T) {
	docs := numberedDocs(60, func(i int) string {
		return fmt.Sprintf(`{"_id":%d,"a":{"b":%d,"c":"x%d","d":[%d,{"e":%d}]},"tags":["t%d","t%d"],"n":%d.5,"s":"%c","deep":[[1,2],[%d]],"other":{"big":"%0100d"}}`,
			i, i%7, i%3, i%4, i%5, i%3, i%2, i%10, 'a'+i%5, i%6, i)
	})
	pruned := []string{
		`[{"$group":{"_id":"$a.c","n":{"$sum":1},"avg":{"$avg":"$n"}}}]`,
		`[{"$match":{"a.b":{"$gte":2}}},{"$group":{"_id":null,"max":{"$max":"$a.d"},"first":{"$first":"$a.d.1.e"}}}]`,
		`[{"$unwind":"$tags"},{"$group":{"_id":"$tags","n":{"$sum":"$n"},"all":{"$push":"$s"}}}]`,
		`[{"$group":{"_id":{"k":"$s","b":"$a.b"},"deep":{"$addToSet":"$deep.1"}}}]`,
		`[{"$group":{"_id":"$s","top":{"$top":{"sortBy":{"n":-1,"a.b":1},"output":["$_id","$a.c"]}}}}]`,
		`[{"$group":{"_id":"$$ROOT.s","x":{"$sum":{"$cond":[{"$gt":["$$CURRENT.n",3]},1,0]}}}}]`,
		`[{"$match":{"tags":"t1"}},{"$count":"n"}]`,
		`[{"$group":{"_id":{"$concat":["$s","-","$a.c"]},"m":{"$push":{"$map":{"input":"$a.d","as":"v","in":{"$type":"$$v"}}}}}}]`,
	}
	for _, spec := range pruned {
		p, err := agg.CompilePipeline(value.MustParse(spec), nil)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		paths, ok := p.Fields()
		if !ok || slices.Contains(paths, "other") || slices.Contains(paths, "other.big") {
			t.Errorf("%s: Fields() = %q, %v", spec, paths, ok)
			continue
		}
		fs := value.NewFieldSet(paths)
		part := make([]value.Value, len(docs))
		for i, d := range docs {
			if part[i], err = value.ParseFields(value.JSON(d), fs); err != nil {
				t.Fatal(err)
			}
		}
		want, err1 := aggregate(t, spec, nil, nil, docs...)
		got, err2 := aggregate(t, spec, nil, nil, part...)
		if fmt.Sprint(got, err2) != fmt.Sprint(want, err1) || len(want) == 0 {
			t.Errorf("%s over fields %q:\n got %v %v\nwant %v %v", spec, paths, got, err2, want, err1)
		}
	}
	whole := []string{
		`[{"$project":{"a":1}},{"$group":{"_id":"$a"}}]`,
		`[{"$group":{"_id":"$s","docs":{"$push":"$$ROOT"}}}]`,
		`[{"$group":{"_id":{"$getField":"s"}}}]`,
		`[{"$match":{"$expr":{"$gt":["$n",1]}}},{"$count":"n"}]`,
		`[{"$match":{"s":"a"}}]`,
		`[{"$sort":{"n":1}},{"$group":{"_id":"$s"}}]`,
	}
	for _, spec := range whole {
		p, err := agg.CompilePipeline(value.MustParse(spec), nil)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if paths, ok := p.Fields(); ok {
			t.Errorf("%s: Fields() = %q, want whole documents", spec, paths)
		}
	}
}
