package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// costlyExpr takes about half a second on every document (more on a
// busy machine), and builds little.
const costlyExpr = `{"$gt":[{"$reduce":{"input":{"$range":[0,1000000]},"initialValue":0,` +
	`"in":{"$add":["$$value",{"$strLenBytes":"$name"},{"$abs":-1},{"$mod":["$$this",7]},{"$max":["$$this",3]}]}}},0]}`

// deadlineDB holds collection c: n documents, with an index on a.
func deadlineDB(t *testing.T, n int) *store.DB {
	t.Helper()
	db := storetest.MustOpen(t)
	docs := make([]string, n)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"_id":%d,"a":%d,"name":"doc %d"}`, i, i%3, i)
	}
	storetest.Insert(t, db, "c", docs...)
	if err := createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "a"}}}); err != nil {
		t.Fatal(err)
	}
	return db
}

// timeOneEvaluation returns how long the costly expression takes on one
// document of deadlineDB's collection c, with no deadline.
func timeOneEvaluation(t *testing.T, db *store.DB) time.Duration {
	t.Helper()
	f, err := query.CompileFilter(value.MustParse(`{"_id":0,"$expr":` + costlyExpr + `}`))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		return drain(c.Find(context.Background(), store.Query{Filter: f}))
	})
	if err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// scans are the engine's entry points that read documents, each run on
// collection c with filter f (and a projection p for finds).
var scans = []struct {
	name string
	run  func(ctx context.Context, c *store.Collection, f *query.Filter, p *query.Projection) error
}{
	{"find", func(ctx context.Context, c *store.Collection, f *query.Filter, p *query.Projection) error {
		return drain(c.Find(ctx, store.Query{Filter: f, Projection: p}))
	}},
	{"find redacted", func(ctx context.Context, c *store.Collection, f *query.Filter, p *query.Projection) error {
		return drain(c.Find(ctx, store.Query{Filter: f, Projection: p, Redact: func(v value.Value) value.Value { return v }}))
	}},
	{"find in", func(ctx context.Context, c *store.Collection, f *query.Filter, p *query.Projection) error {
		return drain(store.FindIn(ctx, c.Find(context.Background(), store.Query{}), store.Query{Filter: f, Projection: p}))
	}},
	{"count", func(ctx context.Context, c *store.Collection, f *query.Filter, _ *query.Projection) error {
		_, err := c.CountQuery(ctx, store.Query{Filter: f})
		return err
	}},
	{"diagnose", func(ctx context.Context, c *store.Collection, f *query.Filter, _ *query.Projection) error {
		_, err := c.Diagnose(ctx, f, nil)
		return err
	}},
	{"suggest", func(ctx context.Context, c *store.Collection, f *query.Filter, _ *query.Projection) error {
		_, err := c.SuggestIndexes(ctx, store.Query{Filter: f})
		return err
	}},
	{"explain executionStats", func(ctx context.Context, c *store.Collection, f *query.Filter, _ *query.Projection) error {
		_, err := c.Explain(ctx, store.Query{Filter: f}, &store.ExplainOptions{Execute: true})
		return err
	}},
	{"aggregate $match", func(ctx context.Context, c *store.Collection, f *query.Filter, _ *query.Projection) error {
		return aggregate(ctx, c, `[{"$match":{"$expr":`+costlyExpr+`}}]`)
	}},
	{"aggregate $group", func(ctx context.Context, c *store.Collection, f *query.Filter, _ *query.Projection) error {
		return aggregate(ctx, c, `[{"$group":{"_id":`+costlyExpr+`}}]`)
	}},
}

func drain(src agg.Source) error {
	defer src.Close()
	for src.Next() {
	}
	return src.Err()
}

func aggregate(ctx context.Context, c *store.Collection, pipeline string) error {
	p, err := agg.CompilePipeline(value.MustParse(pipeline), nil)
	if err != nil {
		return err
	}
	return drain(c.Aggregate(ctx, p, nil))
}

// TestScan_ChecksEveryDocument: on a context already done, every scan
// stops at its first document, not after 1,024 of them, even with a
// cheap filter and an index; the parallel count and $group scan too.
func TestScan_ChecksEveryDocument(t *testing.T) {
	defer store.SetParallelScanMin(1)()
	db := deadlineDB(t, 5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	check := func(what string, run func(c *store.Collection) error) {
		err := db.View(func(tx *store.Tx) error {
			c, err := tx.Collection("c")
			if err != nil {
				return err
			}
			return run(c)
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s on a cancelled context: %v, want context.Canceled", what, err)
		}
	}
	for _, filter := range []string{`{"name":{"$ne":"x"}}`, `{"a":{"$gte":0}}`} {
		f, err := query.CompileFilter(value.MustParse(filter))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range scans {
			if s.name == "count" && filter[2] == 'a' {
				continue // an index covers it: counted from keys, checked every 4,096
			}
			if s.name[:4] == "find" || s.name == "count" || s.name == "diagnose" {
				check(s.name+" "+filter, func(c *store.Collection) error { return s.run(ctx, c, f, nil) })
			}
		}
		check("aggregate "+filter, func(c *store.Collection) error { return aggregate(ctx, c, `[{"$match":`+filter+`}]`) })
	}
	check("aggregate $group", func(c *store.Collection) error { return aggregate(ctx, c, `[{"$group":{"_id":"$a"}}]`) })
}

// TestScan_DeadlineInsideExpr: a filter, projection or group key whose
// $expr costs hundreds of milliseconds a document stops at the deadline,
// with the context's error (not a corrupt-document one), well before one
// document's evaluation could end (the engine checks within a
// millisecond; the bound allows for a busy machine); with the parallel
// count too.
func TestScan_DeadlineInsideExpr(t *testing.T) {
	defer store.SetParallelScanMin(1)()
	db := deadlineDB(t, 4)
	costly, err := query.CompileFilter(value.MustParse(`{"$expr":` + costlyExpr + `}`))
	if err != nil {
		t.Fatal(err)
	}
	indexed, err := query.CompileFilter(value.MustParse(`{"a":{"$gte":0},"$expr":` + costlyExpr + `}`))
	if err != nil {
		t.Fatal(err)
	}
	proj, err := query.CompileProjection(value.MustParse(`{"n":` + costlyExpr + `}`))
	if err != nil {
		t.Fatal(err)
	}
	const limit = 40 * time.Millisecond
	// The bound scales with the machine: a busy one makes both the
	// deadline's overshoot and one document's evaluation slower, so the
	// test compares them rather than either with a fixed figure. A scan
	// that did not look at the deadline inside the expression would run at
	// least one whole evaluation (oneDoc); the bound is below that.
	oneDoc := timeOneEvaluation(t, db)
	bound := limit + max(250*time.Millisecond, oneDoc/2)
	if oneDoc <= bound {
		t.Fatalf("one evaluation of the costly expression took %v, not more than the bound %v: the test could not tell a scan that ignores the deadline", oneDoc, bound)
	}
	try := func(what string, f *query.Filter, p *query.Projection, run func(context.Context, *store.Collection, *query.Filter, *query.Projection) error) {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		start := time.Now()
		err := db.View(func(tx *store.Tx) error {
			c, err := tx.Collection("c")
			if err != nil {
				return err
			}
			return run(ctx, c, f, p)
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: error %v, want the deadline", what, err)
		}
		if took := time.Since(start); took > bound {
			t.Errorf("%s: stopped after %v, over the bound %v (deadline %v; one evaluation takes %v)", what, took, bound, limit, oneDoc)
		}
	}
	for _, s := range scans {
		try(s.name, costly, nil, s.run)
		if s.name[:4] == "find" || s.name == "count" || s.name == "explain executionStats" {
			try(s.name+" (index scan)", indexed, nil, s.run)
		}
		if s.name[:4] == "find" {
			try(s.name+" (projection)", nil, proj, s.run)
		}
	}
}
