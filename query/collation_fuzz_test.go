package query_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/value"
)

// fuzzCollations are the collations FuzzCollatedMatch picks from.
var fuzzCollations = []string{`{"locale":"en","strength":1}`, `{"locale":"en","strength":2}`, `{"locale":"en"}`,
	`{"locale":"fr_CA","strength":1,"caseLevel":true}`, `{"locale":"en","numericOrdering":true}`,
	`{"locale":"en","alternate":"shifted","strength":4}`, `{"locale":"sv","strength":5}`, `{"locale":"de"}`}

// FuzzCollatedMatch compiles a random filter and sort with one of
// fuzzCollations and matches a random document. It must never panic;
// MatchJSON on the canonical JSON must agree with Match; the filter must
// match exactly when all of its top-level predicates do; a document
// sorts equal to itself; and the collation keys of two strings compare
// antisymmetrically. The seed corpus is in
// testdata/fuzz/FuzzCollatedMatch.
func FuzzCollatedMatch(f *testing.F) {
	f.Add([]byte(`{"s":"FOO"}`), []byte(`{"s":["foo","bar"]}`), uint8(1))
	f.Add([]byte(`{"s":{"$in":["a-b",{"$regex":"^A"}]}}`), []byte(`{"s":"ab"}`), uint8(5))
	f.Fuzz(func(t *testing.T, filterJSON, docJSON []byte, pick uint8) {
		coll := collation.MustParse(fuzzCollations[int(pick)%len(fuzzCollations)])
		spec, err := value.Parse(filterJSON)
		if err != nil {
			return
		}
		doc, err := value.Parse(docJSON)
		if err != nil || doc.Kind() != value.Object {
			return
		}
		if srt, err := query.CompileSortCollation(spec, coll); err == nil && srt.Compare(doc, doc) != 0 {
			t.Fatalf("sort %s: a document does not compare equal to itself", filterJSON)
		}
		flt, err := query.CompileFilterCollation(spec, coll)
		if err != nil {
			return
		}
		got := flt.Match(doc)
		raw, err := flt.MatchJSON(value.JSON(doc))
		if err != nil || raw != got {
			t.Fatalf("filter %s on %s: MatchJSON %v, %v; Match %v", filterJSON, docJSON, raw, err, got)
		}
		all := true
		for _, p := range flt.Predicates() {
			all = all && p.Match(doc)
		}
		if all != got {
			t.Fatalf("filter %s on %s: Match %v, all predicates %v", filterJSON, docJSON, got, all)
		}
		for _, s := range []string{string(filterJSON), string(docJSON)} {
			a, b := coll.Key(s), coll.Key(strings.ToUpper(s))
			if strings.Compare(a, b) != -strings.Compare(b, a) || coll.Key(s) != a {
				t.Fatalf("keys of %q are not a consistent order", s)
			}
		}
	})
}
