package query_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// TestFilter_MatchJSON_EqualsMatch is the property that the fast path over
// canonical JSON answers exactly as Match on the parsed document, for
// random documents and random filters over the paths those documents have
// (array positions included) and some they do not.
func TestFilter_MatchJSON_EqualsMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	iterations := 3000
	if testing.Short() {
		iterations = 300
	}
	compiled, matched := 0, 0
	for it := 0; it < iterations; it++ {
		docs := make([]value.Value, 8)
		var paths []string
		var vals []value.Value
		for i := range docs {
			docs[i] = testgen.Document(r)
			testgen.Collect(docs[i], "", &paths, &vals)
		}
		paths = append(paths, "nope", "aa.nope", "ba.0", "x_yb.1.aa")
		spec := testgen.Filter(r, paths, vals, 2)
		f, err := query.CompileFilter(spec)
		if err != nil {
			continue
		}
		compiled++
		for _, d := range docs {
			want := f.Match(d)
			got, err := f.MatchJSON(value.JSON(d))
			if err != nil || got != want {
				t.Fatalf("filter %s on %s: MatchJSON = %v, %v; Match = %v", spec, d, got, err, want)
			}
			if want {
				matched++
			}
		}
	}
	if compiled < iterations/2 || matched == 0 {
		t.Fatalf("weak test: %d of %d filters compiled, %d matches", compiled, iterations, matched)
	}
}

// BenchmarkFilterMatchJSON is BenchmarkFilterMatch on the canonical JSON,
// through the fast path.
func BenchmarkFilterMatchJSON(b *testing.B) {
	docs := benchDocs(1024)
	texts := make([][]byte, len(docs))
	size := 0
	for i, d := range docs {
		texts[i] = value.JSON(d)
		size += len(texts[i])
	}
	flt, err := query.CompileFilter(value.MustParse(`{"status":"active","age":{"$gte":30}}`))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size / len(docs)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := flt.MatchJSON(texts[i%len(texts)]); err != nil {
			b.Fatal(err)
		}
	}
}

// userTexts returns n documents of the benchmark program's shape
// (bench/data.go) as canonical JSON.
func userTexts(n int) [][]byte {
	cities := []string{"Porto", "Lima", "Oslo", "Kyoto", "Lagos"}
	texts := make([][]byte, n)
	for i := range texts {
		texts[i] = value.JSON(value.MustParse(`{"_id":` + strconv.Itoa(i) + `,"name":"Dara Kim","email":"user` + strconv.Itoa(i) + `@example.com","age":78,"active":true,"plan":"free","score":55.161,` +
			`"address":{"street":"33 Main St","city":"` + cities[i%len(cities)] + `","zip":"50273","geo":[-83.42,93.28]},"tags":["ml","rust"],` +
			`"orders":[{"sku":"MUG-2","qty":3,"price":88.27}],"created":{"$date":1753309134000}}`))
	}
	return texts
}

// BenchmarkFilterMatchJSON_Users matches the benchmark program's scan
// filter on documents of its shape (bench/data.go).
func BenchmarkFilterMatchJSON_Users(b *testing.B) {
	texts := userTexts(64)
	flt, err := query.CompileFilter(value.MustParse(`{"address.city":"Lima","score":{"$gte":50}}`))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(texts[0])))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := flt.MatchJSON(texts[i%len(texts)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGroupScan_Users runs the benchmark program's $group (by
// address.city, a count and an average of score) through GroupScan on
// one goroutine, a batch of 256 documents per op.
func BenchmarkGroupScan_Users(b *testing.B) {
	texts := userTexts(256)
	p, err := agg.CompilePipeline(value.MustParse(`[{"$group":{"_id":"$address.city","n":{"$sum":1},"avg":{"$avg":"$score"}}}]`), nil)
	if err != nil {
		b.Fatal(err)
	}
	g, ok := p.GroupScan()
	if !ok {
		b.Fatal("no GroupScan")
	}
	run := g.Start(context.Background(), nil)
	batch := run.NewBatch()
	b.ReportAllocs()
	for b.Loop() {
		batch.Reset()
		for _, t := range texts {
			if _, err := batch.Extract(t); err != nil {
				b.Fatal(err)
			}
		}
		if err := run.Add(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/doc")
}
