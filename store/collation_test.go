package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Strings that collations tell apart in different ways: case, accents,
// punctuation, digits; and values of other types.
var collValues = []string{`"A"`, `"a"`, `"á"`, `"Á"`, `"B"`, `"b"`, `"ab"`, `"Ab"`, `"a b"`, `"a-b"`, `"2"`, `"10"`,
	`"item10"`, `"item9"`, `""`, `5`, `5.0`, `null`, `["A","b"]`, `["á"]`, `{"x":"A"}`, `{"x":"a"}`, `true`}

var collCollations = []string{``, `{"locale":"en","strength":2}`, `{"locale":"en","strength":1}`,
	`{"locale":"en","numericOrdering":true}`, `{"locale":"fr","strength":1,"caseLevel":true}`,
	`{"locale":"en","alternate":"shifted"}`, `{"locale":"en"}`, `{"locale":"simple"}`}

func collDoc(r *rand.Rand, id int) string {
	d := propDoc(r, id)
	if r.IntN(6) == 0 {
		return d
	}
	return d[:len(d)-1] + `,"e":` + collValues[r.IntN(len(collValues))] + "}"
}

func collCond(r *rand.Rand) string {
	v := collValues[r.IntN(len(collValues))]
	w := collValues[r.IntN(len(collValues))]
	switch r.IntN(10) {
	case 0, 1:
		return `"e":` + v
	case 2:
		return fmt.Sprintf(`"e":{"%s":%s}`, []string{"$gt", "$gte", "$lt", "$lte"}[r.IntN(4)], v)
	case 3:
		return fmt.Sprintf(`"e":{"$gte":%s,"$lt":%s}`, v, w)
	case 4:
		return fmt.Sprintf(`"e":{"$in":[%s,%s]}`, v, w)
	case 5:
		return fmt.Sprintf(`"e":{"$nin":[%s]}`, v)
	case 6:
		return `"e":{"$ne":` + v + `}`
	case 7:
		return `"e":{"$regex":"^a","$options":"i"}`
	case 8:
		return fmt.Sprintf(`"e":{"$elemMatch":{"$gte":%s}}`, v)
	}
	return `"e":{"$exists":true}`
}

func collFilter(r *rand.Rand) string {
	f := propFilter(r)
	if r.IntN(4) == 0 {
		return f
	}
	if f == "{}" {
		return "{" + collCond(r) + "}"
	}
	return "{" + collCond(r) + "," + f[1:]
}

var collSorts = []string{``, `{"e":1}`, `{"e":-1}`, `{"d":1}`, `{"e":1,"d":-1}`, `{"b":1,"d":1}`, `{"_id":-1}`}

// collIndexes pairs index keys with collations (empty: none).
var collIndexes = []struct {
	spec store.BTreeSpec
	coll string
}{
	{store.BTreeSpec{Fields: []store.IndexField{{Path: "e"}}}, `{"locale":"en","strength":2}`},
	{store.BTreeSpec{Fields: []store.IndexField{{Path: "e", Desc: true}}}, `{"locale":"en","strength":1}`},
	{store.BTreeSpec{Fields: []store.IndexField{{Path: "e"}}}, ``},
	{store.BTreeSpec{Fields: []store.IndexField{{Path: "e"}, {Path: "d"}}}, `{"locale":"en","numericOrdering":true}`},
	{store.BTreeSpec{Fields: []store.IndexField{{Path: "d"}}}, `{"locale":"en","strength":2}`},
	{store.BTreeSpec{Fields: []store.IndexField{{Path: "b"}, {Path: "d", Desc: true}}}, `{"locale":"fr","strength":1,"caseLevel":true}`},
	{store.BTreeSpec{Fields: []store.IndexField{{Path: "e"}}, Unique: false, Sparse: true}, `{"locale":"en","alternate":"shifted"}`},
	{store.BTreeSpec{Fields: []store.IndexField{{Path: "a"}}}, `{"locale":"en"}`},
	{store.BTreeSpec{Fields: []store.IndexField{{Path: "d"}}}, `{"locale":"simple"}`},
}

// TestPlanner_CollationIndexesNeverChangeResults is the differential
// property test for collation-aware indexes: for random documents,
// filters, sorts, pages and query collations, the result with every
// index hinted (collated or not, matching the query's collation or not)
// and with the planner's choice equals the result of a collection scan
// under the same collation, in the same order; counts and a pipeline's
// result too. The scan itself matches on the stored JSON (the raw
// matcher); each result is also checked against the decoded matcher.
func TestPlanner_CollationIndexesNeverChangeResults(t *testing.T) {
	run := propRun{docs: 1000, queries: 150}
	switch {
	case testing.Short() || raceEnabled:
		run = propRun{docs: 400, queries: 80}
	case os.Getenv("OMGDB_LONG") != "":
		run = propRun{docs: 5000, queries: 2000}
	}
	db := storetest.MustOpen(t)
	r := rand.New(rand.NewPCG(21, 22))
	var docs []string
	for i := 0; i < run.docs; i++ {
		docs = append(docs, collDoc(r, i))
	}
	storetest.Insert(t, db, "c", docs[:run.docs/2]...)
	var names []string
	for i, ix := range collIndexes {
		name := fmt.Sprintf("cix%d", i)
		names = append(names, name)
		spec := ix.spec
		if ix.coll != "" {
			spec.SetCollation(collation.MustParse(ix.coll))
		}
		err := db.Update(store.Change{}, func(tx *store.Tx) error {
			c, _ := tx.Collection("c")
			_, err := c.CreateIndex(store.BTreeIndex(name, spec))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	storetest.Insert(t, db, "c", docs[run.docs/2:]...)
	decoded := parseAll(t, docs)
	stats := map[string]int{}
	for i := 0; i < run.queries; i++ {
		fs, ss, cs := collFilter(r), collSorts[r.IntN(len(collSorts))], collCollations[r.IntN(len(collCollations))]
		var coll *collation.Collation
		if cs != "" {
			coll = collation.MustParse(cs)
		}
		f, err := query.CompileFilterCollation(value.MustParse(fs), coll)
		if err != nil {
			t.Fatalf("filter %s: %v", fs, err)
		}
		q := store.Query{Filter: f}
		if ss != "" {
			if q.Sort, err = query.CompileSortCollation(value.MustParse(ss), coll); err != nil {
				t.Fatal(err)
			}
		}
		if r.IntN(4) == 0 {
			q.Skip, q.Limit = int64(r.IntN(5)), int64(1+r.IntN(20))
		}
		q.Hint = "$natural"
		want, err := findJSON(db, q)
		if err != nil {
			t.Fatalf("filter %s collation %s: %v", fs, cs, err)
		}
		checkDecoded(t, f, decoded, fs, cs, q, len(want))
		wantCount := countQuery(t, db, store.Query{Filter: q.Filter, Hint: "$natural"})
		for _, hint := range append([]string{"", store.IDIndex}, names...) {
			q.Hint = hint
			got, err := findJSON(db, q)
			if err != nil {
				if strings.Contains(err.Error(), "cannot answer this query: it is sparse") {
					stats["sparse refused"]++
					continue
				}
				t.Fatalf("filter %s sort %s collation %s hint %q: %v", fs, ss, cs, hint, err)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("filter %s sort %s collation %s skip %d limit %d hint %q:\n got %d docs: %s\nwant %d docs: %s",
					fs, ss, cs, q.Skip, q.Limit, hint, len(got), strings.Join(got, " "), len(want), strings.Join(want, " "))
			}
			if n := countQuery(t, db, store.Query{Filter: q.Filter, Hint: hint}); n != wantCount && n >= 0 {
				t.Fatalf("count %s collation %s hint %q = %d, want %d", fs, cs, hint, n, wantCount)
			}
			stats["compared"]++
		}
		if chosen := explainIndex(t, db, q); chosen != "" && chosen != store.IDIndex {
			stats["planner chose an index"]++
		}
		if len(want) > 0 {
			stats["non-empty results"]++
		}
		if i%3 == 0 {
			compareCollatedAggregate(t, db, fs, ss, coll)
			stats["pipelines"]++
		}
	}
	t.Logf("%d documents, %d queries: %v", run.docs, run.queries, stats)
	if stats["non-empty results"] < run.queries/4 {
		t.Errorf("only %d of %d queries matched anything: the generator is too narrow", stats["non-empty results"], run.queries)
	}
	if stats["planner chose an index"] < run.queries/20 {
		t.Errorf("the planner chose an index for only %d of %d queries: collated indexes are not exercised", stats["planner chose an index"], run.queries)
	}
}

func parseAll(t *testing.T, docs []string) []value.Value {
	out := make([]value.Value, len(docs))
	for i, d := range docs {
		out[i] = value.MustParse(d)
	}
	return out
}

// checkDecoded checks that the decoded matcher (Filter.Match) agrees with
// the raw one (MatchJSON) on every document, and that without paging it
// matches as many documents as the scan returned.
func checkDecoded(t *testing.T, f *query.Filter, docs []value.Value, fs, cs string, q store.Query, scanned int) {
	t.Helper()
	n := 0
	for _, d := range docs {
		ok := f.Match(d)
		raw, err := f.MatchJSON(value.JSON(d))
		if err != nil || raw != ok {
			t.Fatalf("filter %s collation %s on %s: MatchJSON %v, %v; Match %v", fs, cs, d, raw, err, ok)
		}
		if ok {
			n++
		}
	}
	if q.Skip == 0 && q.Limit == 0 && n != scanned {
		t.Fatalf("filter %s collation %s: the decoded matcher matches %d documents, the scan returned %d", fs, cs, n, scanned)
	}
}

// explainIndex returns the index the planner chose for q, "" for a scan.
func explainIndex(t *testing.T, db *store.DB, q store.Query) string {
	t.Helper()
	q.Hint = ""
	var name string
	err := db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		ex, err := c.Explain(context.Background(), q, nil)
		if err != nil {
			return err
		}
		name = findIndexName(ex.Get("winningPlan"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// findIndexName returns the first indexName in a stage tree.
func findIndexName(v value.Value) string {
	if n := v.Get("indexName"); n.Kind() == value.String {
		return n.Str()
	}
	for _, f := range v.Fields() {
		if n := findIndexName(f.Value); n != "" {
			return n
		}
	}
	return ""
}

func compareCollatedAggregate(t *testing.T, db *store.DB, filter, sort string, coll *collation.Collation) {
	t.Helper()
	stages := `[{"$match":` + filter + `}`
	if sort != "" {
		stages += `,{"$sort":` + sort + `}`
	}
	stages += `,{"$limit":7}]`
	p, err := agg.CompilePipeline(value.MustParse(stages), &agg.PipelineOptions{Collation: coll})
	if err != nil {
		t.Fatalf("pipeline %s: %v", stages, err)
	}
	run := func(planned bool) string {
		var out []string
		err := db.View(func(tx *store.Tx) error {
			c, _ := tx.Collection("c")
			var src agg.Source
			if planned {
				src = c.Aggregate(context.Background(), p, nil)
			} else {
				src = p.Run(context.Background(), c.Find(context.Background(), store.Query{Hint: "$natural"}), tx.Env())
			}
			defer src.Close()
			for src.Next() {
				out = append(out, src.Doc().String())
			}
			return src.Err()
		})
		if err != nil {
			t.Fatalf("pipeline %s: %v", stages, err)
		}
		return strings.Join(out, " ")
	}
	if got, want := run(true), run(false); got != want {
		t.Fatalf("pipeline %s collation %v:\n got %s\nwant %s", stages, coll, got, want)
	}
}
