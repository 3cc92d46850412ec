package query_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/text"
	"github.com/omgdb/omgdb/query/value"
)

// FuzzCompileFilter feeds arbitrary JSON to CompileFilter, CompileProjection
// and CompileSort: each must compile or return an *Error, never panic. The
// seed corpus is in testdata/fuzz/FuzzCompileFilter.
func FuzzCompileFilter(f *testing.F) {
	f.Add([]byte(`{"$jsonSchema":{"required":["a"],"properties":{"a":{"bsonType":["long","string"],"minimum":1,"maxLength":3},"c":{"items":{"type":"number"},"uniqueItems":true}},"additionalProperties":true}}`))
	f.Add([]byte(`{"a":{"$gte":1,"$lt":[1,{"b":null}]},"$or":[{"c":{"$regex":"^x","$options":"i"}}]}`))
	f.Add([]byte(`{"a":{"$elemMatch":{"$not":{"$type":["long","null"]}}},"b.0.c":{"$all":[{"$elemMatch":{"d":1}}]}}`))
	f.Add([]byte(`{"loc":{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":[[[0,0],[3,6],[6,1],[0,0]]]}}},"b":{"$nearSphere":[1,2],"$maxDistance":0.1}}`))
	f.Add([]byte(`{"$or":[{"loc":{"$geoIntersects":{"$geometry":{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,2]}]}}}},{"loc":{"$within":{"$box":[[0,0],[1,1]]}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := value.Parse(data)
		if err != nil {
			return
		}
		flt, err := query.CompileFilter(spec)
		checkCompileError(t, "CompileFilter", err)
		if err == nil {
			flt.Match(spec)
			for _, p := range flt.Predicates() {
				p.Match(spec)
			}
		}
		proj, err := query.CompileProjection(spec)
		checkCompileError(t, "CompileProjection", err)
		if err == nil {
			_, err = proj.ApplyWithFilter(spec, flt)
			checkCompileError(t, "ApplyWithFilter", err)
		}
		srt, err := query.CompileSort(spec)
		checkCompileError(t, "CompileSort", err)
		if err == nil && srt.Compare(spec, spec) != 0 {
			t.Fatalf("sort %s: a document does not compare equal to itself", data)
		}
	})
}

func checkCompileError(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var qe *errs.Error
	if !errors.As(err, &qe) || qe.Message == "" {
		t.Fatalf("%s: error %T %q is not an *Error with a message", what, err, err)
	}
}

// FuzzFilterMatch compiles a random filter and matches it against a random
// document. It must never panic; the result must not change when the
// document round-trips through its canonical JSON; and the filter must
// match exactly when all of its top-level predicates do; MatchJSON on the
// canonical JSON must agree with Match. The seed corpus is in
// testdata/fuzz/FuzzFilterMatch.
func FuzzFilterMatch(f *testing.F) {
	f.Add([]byte(`{"a.b":null}`), []byte(`{"a":[{"b":1},{"c":2}]}`))
	f.Add([]byte(`{"a":{"$gt":9007199254740992}}`), []byte(`{"a":[9007199254740993,1.5]}`))
	f.Add([]byte(`{"l":{"$geoWithin":{"$centerSphere":[[1,1],0.1]}}}`), []byte(`{"l":[{"type":"Point","coordinates":[1,1.01]},[2,2]]}`))
	f.Add([]byte(`{"l.p":{"$geoIntersects":{"$geometry":{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]}}}}`), []byte(`{"l":[{"p":{"type":"LineString","coordinates":[[1,1],[3,3]]}}]}`))
	f.Fuzz(func(t *testing.T, filterJSON, docJSON []byte) {
		spec, err := value.Parse(filterJSON)
		if err != nil {
			return
		}
		doc, err := value.Parse(docJSON)
		if err != nil || doc.Kind() != value.Object {
			return
		}
		flt, err := query.CompileFilter(spec)
		if err != nil {
			return
		}
		textual := flt.Text() != nil
		if textual {
			// $text matches through a text index: one over every string.
			ts, err := text.NewSpec([]string{text.Wildcard}, value.Value{}, "", "")
			if err != nil {
				t.Fatal(err)
			}
			if flt, err = flt.BindText(ts); err != nil {
				t.Fatal(err)
			}
		}
		got := flt.Match(doc)
		again, err := value.Parse(value.JSON(doc))
		if err != nil {
			t.Fatalf("canonical JSON of %s does not parse: %v", docJSON, err)
		}
		if flt.Match(again) != got {
			t.Fatalf("filter %s: Match changed after a JSON round trip of %s (was %v)", filterJSON, docJSON, got)
		}
		if raw, err := flt.MatchJSON(value.JSON(doc)); textual && err != nil && !got {
			// a document whose language field names no language: refused
		} else if err != nil || raw != got {
			t.Fatalf("filter %s on %s: MatchJSON = %v, %v; Match = %v", filterJSON, value.JSON(doc), raw, err, got)
		}
		all := true
		for _, p := range flt.Predicates() {
			all = all && p.Match(doc)
		}
		if all != got {
			t.Fatalf("filter %s on %s: Match = %v but all predicates match = %v", filterJSON, docJSON, got, all)
		}
	})
}

// benchDocs returns n documents of about 300 bytes of canonical JSON.
func benchDocs(n int) []value.Value {
	docs := make([]value.Value, n)
	statuses := []string{"active", "inactive", "pending"}
	for i := range docs {
		docs[i] = value.MustParse(fmt.Sprintf(`{"_id":{"$oid":"65f0a1b2c3d4e5f6a7b8%04x"},"name":"user number %d",`+
			`"email":"user%d@example.com","age":%d,"status":%q,"tags":["alpha","beta","gamma"],`+
			`"address":{"street":"%d Long Street","city":"Lisbon","zip":"1000-%03d"},"score":%d.5,`+
			`"created":{"$date":%d}}`, i, i, i, 18+i%60, statuses[i%3], i, i%1000, i%100, 1700000000000+int64(i)*1000))
	}
	return docs
}

// BenchmarkFilterMatch measures a two-predicate filter over ~300-byte
// documents (one Match per op).
func BenchmarkFilterMatch(b *testing.B) {
	docs := benchDocs(1024)
	size := 0
	for _, d := range docs {
		size += len(value.JSON(d))
	}
	flt, err := query.CompileFilter(value.MustParse(`{"status":"active","age":{"$gte":30}}`))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	matched := 0
	for i := 0; i < b.N; i++ {
		if flt.Match(docs[i%len(docs)]) {
			matched++
		}
	}
	if b.N >= len(docs) && matched == 0 {
		b.Fatal("the filter matched nothing")
	}
	b.ReportMetric(float64(size)/float64(len(docs)), "doc-bytes")
}
