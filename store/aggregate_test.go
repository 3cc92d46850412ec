package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestCollection_Aggregate_Parallel: a $group run over the stored JSON
// (agg.GroupScan), on one goroutine or on several (batches of stored
// values, extracted in parallel, accumulated in key order), returns
// exactly what the pipeline returns over a plain scan of whole documents,
// over enough documents for many batches, some of them compressed.
func TestCollection_Aggregate_Parallel(t *testing.T) {
	db := storetest.MustOpen(t)
	r := rand.New(rand.NewPCG(9, 10))
	cities := []string{`"Lima"`, `"Oslo"`, `null`, `1`, `1.0`, `["Lima"]`, `{"c":"Lima"}`}
	scores := []string{`1`, `2.5`, `0.1`, `"x"`, `null`, `9223372036854775807`, `-7`}
	var docs []string
	for i := 0; i < 3000; i++ {
		var f []string
		f = append(f, fmt.Sprintf(`"_id":%d`, r.IntN(1e9)))
		if r.IntN(10) > 0 {
			f = append(f, `"address":{"city":`+cities[r.IntN(len(cities))]+`}`)
		}
		if r.IntN(10) > 0 {
			f = append(f, `"score":`+scores[r.IntN(len(scores))])
		}
		f = append(f, fmt.Sprintf(`"a":%d`, r.IntN(5)))
		if i%500 == 0 {
			f = append(f, `"pad":"`+strings.Repeat("z", 5000)+`"`) // compressed when stored
		}
		docs = append(docs, "{"+strings.Join(f, ",")+"}")
	}
	storetest.Insert(t, db, "c", docs...)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		_, err = c.CreateIndex(store.BTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "a"}}}))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{
		`[{"$group":{"_id":"$address.city","n":{"$sum":1},"avg":{"$avg":"$score"},"s":{"$sum":"$score"}}}]`,
		`[{"$group":{"_id":null,"min":{"$min":"$address"},"max":{"$max":"$score"},"first":{"$first":"$address.city"},"last":{"$last":"$_id"}}}]`,
		`[{"$match":{"score":{"$gte":1}}},{"$group":{"_id":"$address.city","ids":{"$push":"$_id"},"set":{"$addToSet":"$score"}}},{"$sort":{"_id":1}}]`,
		`[{"$match":{"a":3}},{"$group":{"_id":"$address.city","n":{"$count":{}}}}]`, // the index on a serves the $match
		`[{"$group":{"_id":{"$add":["$score",1]}}}]`,                                // fails on "x"
	} {
		p, err := agg.CompilePipeline(value.MustParse(spec), nil)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := aggregateAll(db, p, context.Background(), true)
		for _, min := range []int64{1 << 62, 10} {
			restore := store.SetParallelScanMin(min)
			got, gotErr := aggregateAll(db, p, context.Background(), false)
			restore()
			if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("%s, parallel from %d documents:\nAggregate: %s (error %v)\nplain:     %s (error %v)", spec, min, got, gotErr, want, wantErr)
			}
		}
	}
	// A cancelled context stops the parallel scan with its error.
	defer store.SetParallelScanMin(10)()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, err := agg.CompilePipeline(value.MustParse(`[{"$group":{"_id":"$a"}}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := aggregateAll(db, p, ctx, false); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled $group: error %v, want context.Canceled", err)
	}
}

// TestCollection_Aggregate_GroupScanSpills: a leading $group whose groups
// outgrow MaxMemory on the stored-JSON group scan runs again on the path
// that spills, when the pipeline may spill, and gives the groups it gives
// in memory; without a SpillDir it fails as before.
func TestCollection_Aggregate_GroupScanSpills(t *testing.T) {
	db := storetest.MustOpen(t)
	var docs []string
	for i := range 4000 {
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"g":%d,"v":%d}`, i, (i*31)%1500, i%7))
	}
	storetest.Insert(t, db, "c", docs...)
	spec := value.MustParse(`[{"$match":{"v":{"$lt":6}}},{"$group":{"_id":"$g","n":{"$sum":1},"vs":{"$push":"$v"}}}]`)
	big, err := agg.CompilePipeline(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := aggregateAll(db, big, context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	small, _ := agg.CompilePipeline(spec, &agg.PipelineOptions{MaxMemory: 32 << 10})
	if _, err := aggregateAll(db, small, context.Background(), false); !errors.Is(err, agg.ErrMemoryLimit) {
		t.Fatalf("without a SpillDir: %v, want the memory limit", err)
	}
	dir := t.TempDir()
	spilling, _ := agg.CompilePipeline(spec, &agg.PipelineOptions{MaxMemory: 32 << 10, SpillDir: dir})
	for _, min := range []int64{1 << 62, 10} {
		restore := store.SetParallelScanMin(min)
		got, err := aggregateAll(db, spilling, context.Background(), false)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
		slices.Sort(g)
		slices.Sort(w)
		if !slices.Equal(g, w) {
			t.Fatalf("parallel from %d: spilled groups differ from those in memory (%d lines, want %d)", min, len(g), len(w))
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d files left in the spill directory", len(left))
	}
}

// aggregateAll runs p over collection c, rendering the output as
// canonical JSON, one document a line: through Aggregate, or, plain, over
// a scan of whole documents.
func aggregateAll(db *store.DB, p *agg.Pipeline, ctx context.Context, plain bool) (string, error) {
	var b strings.Builder
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		var src agg.Source
		if plain {
			src = p.Run(ctx, c.Find(ctx, store.Query{}), tx.Env())
		} else {
			src = c.Aggregate(ctx, p, nil)
		}
		defer src.Close()
		for src.Next() {
			b.Write(value.JSON(src.Doc()))
			b.WriteByte('\n')
		}
		return src.Err()
	})
	return b.String(), err
}

// TestCollection_Aggregate_Options: with Redact, every stage sees the
// documents rewritten, even where an index or the stored-JSON group scan
// would otherwise serve the pipeline; Env resolves $lookup.
func TestCollection_Aggregate_Options(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"ssn":"111","k":1}`, `{"_id":2,"ssn":"222","k":2}`)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		_, err = c.CreateIndex(store.BTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "ssn"}}}))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	redact := func(doc value.Value) value.Value { return doc.Without("ssn") }
	run := func(spec string, opts *store.AggregateOptions) (string, error) {
		p, err := agg.CompilePipeline(value.MustParse(spec), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		err = db.View(func(tx *store.Tx) error {
			c, err := tx.Collection("c")
			if err != nil {
				return err
			}
			src := c.Aggregate(context.Background(), p, opts)
			defer src.Close()
			for src.Next() {
				out = append(out, string(value.AppendJSON(nil, src.Doc())))
			}
			return src.Err()
		})
		return strings.Join(out, " "), err
	}
	for spec, want := range map[string]string{
		`[{"$group":{"_id":"$ssn","n":{"$sum":1}}}]`:            `{"_id":null,"n":2}`, // the group scan
		`[{"$match":{"ssn":{"$gte":"1"}}}]`:                     ``,                   // the index
		`[{"$match":{"ssn":{"$exists":false}}},{"$count":"n"}]`: `{"n":2}`,
		`[{"$sort":{"ssn":1}},{"$project":{"ssn":1}}]`:          `{"_id":1} {"_id":2}`,
	} {
		got, err := run(spec, &store.AggregateOptions{Redact: redact})
		if err != nil || got != want {
			t.Errorf("%s redacted: %s, %v; want %s", spec, got, err, want)
		}
	}
	if got, err := run(`[{"$match":{"ssn":{"$gte":"1"}}},{"$count":"n"}]`, nil); err != nil || got != `{"n":2}` {
		t.Errorf("unredacted: %s, %v", got, err)
	}
	denied := errors.New("denied by the environment")
	_, err = run(`[{"$lookup":{"from":"c","localField":"k","foreignField":"k","as":"x"}}]`, &store.AggregateOptions{Env: envFunc(func(string) (agg.Source, error) { return nil, denied })})
	if !errors.Is(err, denied) {
		t.Errorf("$lookup through Env: %v, want %v", err, denied)
	}
}

type envFunc func(name string) (agg.Source, error)

func (f envFunc) Collection(_ context.Context, name string) (agg.Source, error) { return f(name) }
