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
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Random documents over a few fields with small value domains, so that
// filters match some of them: a may be an array (multikey), b is a scalar
// or missing, c an object or an array of objects, d a string.
func propDoc(r *rand.Rand, id int) string {
	var f []string
	f = append(f, fmt.Sprintf(`"_id":%d`, id))
	if r.IntN(8) > 0 {
		f = append(f, `"a":`+propValue(r, true))
	}
	if r.IntN(6) > 0 {
		f = append(f, `"b":`+propValue(r, false))
	}
	switch r.IntN(5) {
	case 0:
	case 1:
		f = append(f, `"c":`+propValue(r, false))
	case 2:
		f = append(f, fmt.Sprintf(`"c":[{"x":%s},{"x":%s,"y":1}]`, propValue(r, false), propValue(r, false)))
	default:
		f = append(f, fmt.Sprintf(`"c":{"x":%s}`, propValue(r, false)))
	}
	if r.IntN(3) > 0 {
		f = append(f, `"d":`+[]string{`"apple"`, `"apricot"`, `"Apple"`, `"banana"`, `"ap"`, `""`, `"a\u0000b"`, `5`}[r.IntN(8)])
	}
	r.Shuffle(len(f)-1, func(i, j int) { f[i+1], f[j+1] = f[j+1], f[i+1] })
	return "{" + strings.Join(f, ",") + "}"
}

var scalars = []string{"0", "1", "2", "3", "1.0", "2.5", "-1", `{"$numberDouble":"NaN"}`, `{"$numberDouble":"Infinity"}`,
	`"a"`, `"b"`, `"ab"`, `""`, "null", "true", "false", `{"x":1}`, `{"$date":5}`, `{"$oid":"000000000000000000000001"}`}

func propValue(r *rand.Rand, arrays bool) string {
	if arrays && r.IntN(3) == 0 {
		n := r.IntN(4)
		var elems []string
		for i := 0; i < n; i++ {
			if r.IntN(8) == 0 {
				elems = append(elems, "["+scalars[r.IntN(len(scalars))]+"]")
			} else {
				elems = append(elems, scalars[r.IntN(len(scalars))])
			}
		}
		return "[" + strings.Join(elems, ",") + "]"
	}
	return scalars[r.IntN(len(scalars))]
}

func propOperand(r *rand.Rand) string {
	if r.IntN(10) == 0 {
		return "[" + scalars[r.IntN(len(scalars))] + "," + scalars[r.IntN(len(scalars))] + "]"
	}
	if r.IntN(15) == 0 {
		return "[]"
	}
	return scalars[r.IntN(len(scalars))]
}

// propCond returns a condition on one field.
func propCond(r *rand.Rand, path string) string {
	v := propOperand(r)
	var cond string
	switch r.IntN(20) {
	case 0, 1, 2:
		cond = v
	case 3:
		cond = `{"$eq":` + v + `}`
	case 4, 5:
		cond = fmt.Sprintf(`{"%s":%s}`, []string{"$gt", "$gte", "$lt", "$lte"}[r.IntN(4)], v)
	case 6:
		lo, hi := propOperand(r), propOperand(r)
		cond = fmt.Sprintf(`{"$gte":%s,"$lt":%s}`, lo, hi)
	case 7:
		cond = fmt.Sprintf(`{"$in":[%s,%s]}`, v, propOperand(r))
	case 8:
		cond = fmt.Sprintf(`{"$nin":[%s]}`, v)
	case 9:
		cond = `{"$ne":` + v + `}`
	case 10:
		cond = fmt.Sprintf(`{"$exists":%v}`, r.IntN(2) == 0)
	case 11:
		cond = fmt.Sprintf(`{"$regex":"%s"}`, []string{"^ap", "^a", "an", "^App", "^ap.*t$", "^a?p", "^"}[r.IntN(7)])
	case 12:
		cond = `{"$regex":"^ap","$options":"i"}`
	case 13:
		cond = fmt.Sprintf(`{"$elemMatch":{"$gte":%s}}`, v)
	case 14:
		cond = fmt.Sprintf(`{"$all":[%s]}`, v)
	case 15:
		cond = fmt.Sprintf(`{"$type":"%s"}`, []string{"string", "number", "null", "array", "object"}[r.IntN(5)])
	case 16:
		cond = fmt.Sprintf(`{"$not":{"$gt":%s}}`, v)
	case 17:
		cond = fmt.Sprintf(`{"$in":[{"$regex":"^a"},%s]}`, v)
	case 18:
		cond = `{"$size":` + fmt.Sprint(r.IntN(3)) + `}`
	default:
		cond = `null`
	}
	return fmt.Sprintf(`"%s":%s`, path, cond)
}

var propPaths = []string{"a", "b", "c.x", "c", "d", "c.y", "_id"}

func propFilter(r *rand.Rand) string {
	var parts []string
	for i := r.IntN(3); i >= 0; i-- {
		switch r.IntN(12) {
		case 0:
			parts = append(parts, fmt.Sprintf(`"$and":[{%s},{%s}]`, propCond(r, propPaths[r.IntN(3)]), propCond(r, propPaths[r.IntN(3)])))
		case 1:
			parts = append(parts, fmt.Sprintf(`"$or":[{%s},{%s}]`, propCond(r, "a"), propCond(r, "b")))
		case 2:
			parts = append(parts, fmt.Sprintf(`"c":{"$elemMatch":{"x":%s}}`, propOperand(r)))
		default:
			parts = append(parts, propCond(r, propPaths[r.IntN(len(propPaths))]))
		}
	}
	// Duplicate keys are invalid JSON: keep the first of each.
	seen := map[string]bool{}
	var kept []string
	for _, p := range parts {
		key := p[:strings.Index(p, `":`)+1]
		if !seen[key] {
			seen[key] = true
			kept = append(kept, p)
		}
	}
	return "{" + strings.Join(kept, ",") + "}"
}

var propSorts = []string{``, ``, `{"_id":-1}`, `{"a":1}`, `{"a":-1}`, `{"b":1}`, `{"b":-1}`, `{"b":1,"d":-1}`, `{"b":-1,"d":1}`, `{"c.x":1}`, `{"d":1}`, `{"b":1,"a":1}`}

var propIndexes = []store.BTreeSpec{
	{Fields: []store.IndexField{{Path: "a"}}},
	{Fields: []store.IndexField{{Path: "a", Desc: true}}},
	{Fields: []store.IndexField{{Path: "b"}}},
	{Fields: []store.IndexField{{Path: "b", Desc: true}, {Path: "d"}}},
	{Fields: []store.IndexField{{Path: "b"}, {Path: "d"}, {Path: "a", Desc: true}}},
	{Fields: []store.IndexField{{Path: "a"}, {Path: "b"}}},
	{Fields: []store.IndexField{{Path: "c.x"}}},
	{Fields: []store.IndexField{{Path: "c.x"}, {Path: "c.y"}}},
	{Fields: []store.IndexField{{Path: "c"}}},
	{Fields: []store.IndexField{{Path: "d"}}},
	{Fields: []store.IndexField{{Path: "d"}}, Sparse: true},
	{Fields: []store.IndexField{{Path: "b"}, {Path: "c.x"}}, Sparse: true},
}

type propRun struct {
	docs, queries int
}

// TestPlanner_IndexesNeverChangeResults: for random documents, filters,
// sorts and pages, the result with every index (hinted), and with the
// planner's choice, equals the result of a collection scan, in the same
// order; counts too.
func TestPlanner_IndexesNeverChangeResults(t *testing.T) {
	run := propRun{docs: 2000, queries: 250}
	switch {
	case testing.Short() || raceEnabled:
		run = propRun{docs: 500, queries: 100}
	case os.Getenv("OMGDB_LONG") != "":
		run = propRun{docs: 5000, queries: 2000}
	}
	db := storetest.MustOpen(t)
	r := rand.New(rand.NewPCG(11, 12))
	var docs []string
	for i := 0; i < run.docs; i++ {
		docs = append(docs, propDoc(r, i))
	}
	// Half the documents go in before the indexes are built, half after.
	storetest.Insert(t, db, "c", docs[:run.docs/2]...)
	var names []string
	for i, spec := range propIndexes {
		name := fmt.Sprintf("ix%d", i)
		names = append(names, name)
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
	stats := map[string]int{}
	for i := 0; i < run.queries; i++ {
		fs, ss := propFilter(r), propSorts[r.IntN(len(propSorts))]
		q := store.Query{Filter: mustFilter(t, fs)}
		if ss != "" {
			sort, err := query.CompileSort(value.MustParse(ss))
			if err != nil {
				t.Fatal(err)
			}
			q.Sort = sort
		}
		if r.IntN(4) == 0 {
			q.Skip, q.Limit = int64(r.IntN(5)), int64(1+r.IntN(20))
		}
		q.Hint = "$natural"
		want, err := findJSON(db, q)
		if err != nil {
			t.Fatalf("filter %s: %v", fs, err)
		}
		wantCount := countQuery(t, db, store.Query{Filter: q.Filter, Hint: "$natural"})
		for h, hint := range append([]string{"", store.IDIndex}, names...) {
			// Hint the indexes whose first field the query mentions; an
			// index the query does not restrict is a full index scan, run
			// for one query in ten.
			if h > 1 && !strings.Contains(fs+ss, `"`+propIndexes[h-2].Fields[0].Path) && r.IntN(10) > 0 {
				continue
			}
			q.Hint = hint
			got, err := findJSON(db, q)
			if err != nil {
				if strings.Contains(err.Error(), "cannot answer this query: it is sparse") {
					stats["sparse refused"]++
					continue
				}
				t.Fatalf("filter %s sort %s hint %q: %v", fs, ss, hint, err)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("filter %s sort %s skip %d limit %d hint %q:\n got %d docs: %s\nwant %d docs: %s",
					fs, ss, q.Skip, q.Limit, hint, len(got), strings.Join(got, " "), len(want), strings.Join(want, " "))
			}
			if n := countQuery(t, db, store.Query{Filter: q.Filter, Hint: hint}); n != wantCount && n >= 0 {
				t.Fatalf("count %s hint %q = %d, want %d", fs, hint, n, wantCount)
			}
			stats["compared"]++
		}
		if len(want) > 0 {
			stats["non-empty results"]++
		}
		if i%3 == 0 {
			compareAggregate(t, db, fs, ss)
			stats["pipelines"]++
		}
	}
	t.Logf("%d documents, %d queries: %v", run.docs, run.queries, stats)
	if stats["non-empty results"] < run.queries/4 {
		t.Errorf("only %d of %d queries matched anything: the generator is too narrow", stats["non-empty results"], run.queries)
	}
}

func mustFilter(t *testing.T, s string) *query.Filter {
	t.Helper()
	f, err := query.CompileFilter(value.MustParse(s))
	if err != nil {
		t.Fatalf("filter %s: %v", s, err)
	}
	return f
}

func findJSON(db *store.DB, q store.Query) ([]string, error) {
	var out []string
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		src := c.Find(context.Background(), q)
		defer src.Close()
		for src.Next() {
			out = append(out, src.Doc().String())
		}
		return src.Err()
	})
	return out, err
}

// countQuery counts with a hint; -1 when the hinted index refuses.
func countQuery(t *testing.T, db *store.DB, q store.Query) int64 {
	t.Helper()
	var n int64
	err := db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		var err error
		n, err = c.CountQuery(context.Background(), q)
		return err
	})
	if err != nil {
		if strings.Contains(err.Error(), "cannot answer this query") {
			return -1
		}
		t.Fatal(err)
	}
	return n
}

// compareAggregate runs [$match, $sort, $limit] through Aggregate, which
// hands the leading stages to the planner, and over a collection scan.
func compareAggregate(t *testing.T, db *store.DB, filter, sort string) {
	t.Helper()
	stages := `[{"$match":` + filter + `}`
	if sort != "" {
		stages += `,{"$sort":` + sort + `}`
	}
	stages += `,{"$limit":7}]`
	p, err := agg.CompilePipeline(value.MustParse(stages), nil)
	if err != nil {
		t.Fatalf("pipeline %s: %v", stages, err)
	}
	run := func(planned bool) []string {
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
		return out
	}
	if got, want := strings.Join(run(true), " "), strings.Join(run(false), " "); got != want {
		t.Fatalf("pipeline %s:\n got %s\nwant %s", stages, got, want)
	}
}
