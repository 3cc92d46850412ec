package query_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query"
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
		docs := make([]query.Value, 8)
		var paths []string
		var vals []query.Value
		for i := range docs {
			docs[i] = testgen.Document(r)
			collect(docs[i], "", &paths, &vals)
		}
		paths = append(paths, "nope", "aa.nope", "ba.0", "x_yb.1.aa")
		spec := randFilter(r, paths, vals, 2)
		f, err := query.CompileFilter(spec)
		if err != nil {
			continue
		}
		compiled++
		for _, d := range docs {
			want := f.Match(d)
			got, err := f.MatchJSON(query.JSON(d))
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

// collect gathers the dotted paths (with array positions) and the values of
// a document.
func collect(v query.Value, prefix string, paths *[]string, vals *[]query.Value) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch v.Kind() {
	case query.Object:
		for _, f := range v.Fields() {
			*paths = append(*paths, join(f.Key))
			collect(f.Value, join(f.Key), paths, vals)
		}
	case query.Array:
		for i, e := range v.Array() {
			*paths = append(*paths, join(strconv.Itoa(i)))
			collect(e, join(strconv.Itoa(i)), paths, vals)
			collect(e, prefix, paths, vals) // paths through the array, without the position
		}
	}
	*vals = append(*vals, v)
}

func randFilter(r *rand.Rand, paths []string, vals []query.Value, depth int) query.Value {
	var fields []query.Field
	for n := 1 + r.IntN(3); n > 0; n-- {
		path := paths[r.IntN(len(paths))]
		val := vals[r.IntN(len(vals))]
		if r.IntN(8) == 0 {
			val = testgen.Value(r, 1)
		}
		op := func(name string, arg query.Value) query.Value {
			return query.ObjectValue([]query.Field{{Key: name, Value: arg}})
		}
		var f query.Field
		switch k := r.IntN(15); {
		case k == 0:
			f = query.Field{Key: path, Value: val}
		case k <= 2:
			f = query.Field{Key: path, Value: op([]string{"$gt", "$gte", "$lt", "$lte", "$ne", "$eq"}[r.IntN(6)], val)}
		case k == 3:
			list := query.ArrayValue([]query.Value{val, vals[r.IntN(len(vals))], query.NullValue()})
			f = query.Field{Key: path, Value: op([]string{"$in", "$nin", "$all"}[r.IntN(3)], list)}
		case k == 4:
			f = query.Field{Key: path, Value: op("$exists", query.BoolValue(r.IntN(2) == 0))}
		case k == 5:
			names := []string{"null", "bool", "long", "double", "string", "array", "object", "date", "objectId", "binData", "number"}
			f = query.Field{Key: path, Value: op("$type", query.StringValue(names[r.IntN(len(names))]))}
		case k == 6:
			f = query.Field{Key: path, Value: op("$size", query.LongValue(int64(r.IntN(4))))}
		case k == 7 && depth > 0:
			sub := randFilter(r, []string{"aa", "ab", "ba", "x_yb", "0", "ac.aa"}, vals, depth-1)
			f = query.Field{Key: path, Value: op("$elemMatch", sub)}
		case k == 8:
			f = query.Field{Key: path, Value: op("$elemMatch", op("$gte", val))}
		case k == 9:
			f = query.Field{Key: path, Value: op("$not", op("$lt", val))}
		case k == 10 && depth > 0:
			kids := []query.Value{randFilter(r, paths, vals, depth-1), randFilter(r, paths, vals, depth-1)}
			f = query.Field{Key: []string{"$or", "$and", "$nor"}[r.IntN(3)], Value: query.ArrayValue(kids)}
		case k == 11:
			f = query.Field{Key: path, Value: op("$regex", query.StringValue("[aé]"))}
		case k == 12:
			f = query.Field{Key: "$expr", Value: op("$eq", query.ArrayValue([]query.Value{query.StringValue("$" + path), val}))}
		case k == 13:
			f = query.Field{Key: path, Value: op("$mod", query.ArrayValue([]query.Value{query.LongValue(3), query.LongValue(1)}))}
		default:
			f = query.Field{Key: path, Value: query.NullValue()}
		}
		if !hasField(fields, f.Key) {
			fields = append(fields, f)
		}
	}
	return query.ObjectValue(fields)
}

func hasField(fields []query.Field, key string) bool {
	for _, f := range fields {
		if f.Key == key {
			return true
		}
	}
	return false
}

// BenchmarkFilterMatchJSON is BenchmarkFilterMatch on the canonical JSON,
// through the fast path.
func BenchmarkFilterMatchJSON(b *testing.B) {
	docs := benchDocs(1024)
	texts := make([][]byte, len(docs))
	size := 0
	for i, d := range docs {
		texts[i] = query.JSON(d)
		size += len(texts[i])
	}
	flt, err := query.CompileFilter(query.MustParse(`{"status":"active","age":{"$gte":30}}`))
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
		texts[i] = query.JSON(query.MustParse(`{"_id":` + strconv.Itoa(i) + `,"name":"Dara Kim","email":"user` + strconv.Itoa(i) + `@example.com","age":78,"active":true,"plan":"free","score":55.161,` +
			`"address":{"street":"33 Main St","city":"` + cities[i%len(cities)] + `","zip":"50273","geo":[-83.42,93.28]},"tags":["ml","rust"],` +
			`"orders":[{"sku":"MUG-2","qty":3,"price":88.27}],"created":{"$date":1753309134000}}`))
	}
	return texts
}

// BenchmarkFilterMatchJSON_Users matches the benchmark program's scan
// filter on documents of its shape (bench/data.go).
func BenchmarkFilterMatchJSON_Users(b *testing.B) {
	texts := userTexts(64)
	flt, err := query.CompileFilter(query.MustParse(`{"address.city":"Lima","score":{"$gte":50}}`))
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
	p, err := query.CompilePipeline(query.MustParse(`[{"$group":{"_id":"$address.city","n":{"$sum":1},"avg":{"$avg":"$score"}}}]`), nil)
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
