package agg_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// aggregate compiles and runs a pipeline over docs, returning the results
// as canonical JSON lines.
func aggregate(t *testing.T, pipeline string, opts *agg.PipelineOptions, env agg.Env, docs ...value.Value) ([]string, error) {
	t.Helper()
	p, err := agg.CompilePipeline(value.MustParse(pipeline), opts)
	if err != nil {
		return nil, err
	}
	src := p.Run(context.Background(), agg.SliceSource(docs), env)
	defer src.Close()
	var out []string
	for src.Next() {
		out = append(out, string(value.JSON(src.Doc())))
	}
	return out, src.Err()
}

func numberedDocs(n int, f func(i int) string) []value.Value {
	docs := make([]value.Value, n)
	for i := range docs {
		docs[i] = value.MustParse(f(i))
	}
	return docs
}

func TestPipeline_Compile_StageLimit(t *testing.T) {
	stages := make([]string, agg.MaxPipelineStages)
	for i := range stages {
		stages[i] = `{"$skip":0}`
	}
	ok := "[" + strings.Join(stages, ",") + "]"
	if _, err := agg.CompilePipeline(value.MustParse(ok), nil); err != nil {
		t.Fatalf("%d stages: %v", agg.MaxPipelineStages, err)
	}
	tooMany := "[" + strings.Join(append(stages, `{"$skip":0}`), ",") + "]"
	_, err := agg.CompilePipeline(value.MustParse(tooMany), nil)
	want := "the pipeline has 101 stages, over the limit of 100 stages"
	if err == nil || err.Error() != want {
		t.Fatalf("101 stages: got %v, want %q", err, want)
	}
	if errs.KindOf(err) != errs.Limit {
		t.Errorf("kind = %v, want limit", errs.KindOf(err))
	}
}

func TestPipeline_Run_MemoryLimit(t *testing.T) {
	docs := numberedDocs(2000, func(i int) string { return fmt.Sprintf(`{"_id":%d,"s":"%s"}`, i, strings.Repeat("x", 100)) })
	opts := &agg.PipelineOptions{MaxMemory: 64 << 10}
	cases := map[string]string{
		"$group":      `[{"$group":{"_id":"$_id","all":{"$push":"$$ROOT"}}}]`,
		"$sort":       `[{"$sort":{"s":1}}]`,
		"$bucketAuto": `[{"$bucketAuto":{"groupBy":"$_id","buckets":2}}]`,
		"$facet":      `[{"$facet":{"a":[]}}]`,
	}
	for stage, pipeline := range cases {
		t.Run(stage, func(t *testing.T) {
			_, err := aggregate(t, pipeline, opts, nil, docs...)
			want := stage + " exceeded the aggregation memory limit of 65536 bytes (PipelineOptions.MaxMemory)"
			if err == nil || err.Error() != want {
				t.Fatalf("got %v, want %q", err, want)
			}
			if errs.KindOf(err) != errs.Limit || !strings.Contains(errs.HintOf(err), "raise MaxMemory") {
				t.Errorf("kind %v, hint %q", errs.KindOf(err), errs.HintOf(err))
			}
			// The default limit (100 MiB) lets the same pipeline through.
			if _, err := aggregate(t, pipeline, nil, nil, docs...); err != nil {
				t.Errorf("default MaxMemory: %v", err)
			}
		})
	}
}

func TestPipeline_Run_SortLimitKeepsOnlyTheLimit(t *testing.T) {
	// 5000 documents of ~150 bytes do not fit in 64 KiB, the first 10 do:
	// $sort followed by $limit must buffer only what the limit passes.
	docs := numberedDocs(5000, func(i int) string {
		return fmt.Sprintf(`{"_id":%d,"k":%d,"s":"%s"}`, i, (i*7919)%1000, strings.Repeat("x", 100))
	})
	got, err := aggregate(t, `[{"$sort":{"k":-1,"_id":1}},{"$limit":10},{"$project":{"s":0}}]`, &agg.PipelineOptions{MaxMemory: 64 << 10}, nil, docs...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := aggregate(t, `[{"$sort":{"k":-1,"_id":1}},{"$project":{"s":0}}]`, nil, nil, docs...)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want[:10]) {
		t.Fatalf("top 10 differ:\n got %v\nwant %v", got, want[:10])
	}
}

func TestPipeline_Run_SampleIsSeeded(t *testing.T) {
	docs := numberedDocs(100, func(i int) string { return fmt.Sprintf(`{"_id":%d}`, i) })
	run := func(seed uint64) []string {
		got, err := aggregate(t, `[{"$sample":{"size":5}}]`, &agg.PipelineOptions{Seed: seed}, nil, docs...)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	a, b, c := run(1), run(1), run(2)
	if len(a) != 5 || !slices.Equal(a, b) {
		t.Fatalf("seed 1 twice: %v and %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 1 and 2 picked the same documents: %v", a)
	}
	if all := run(7); len(slices.Compact(slices.Sorted(slices.Values(all)))) != 5 {
		t.Errorf("duplicates in a sample: %v", all)
	}
	big, err := aggregate(t, `[{"$sample":{"size":500}}]`, nil, nil, docs...)
	if err != nil || len(big) != 100 {
		t.Errorf("size over the input: %d docs, %v", len(big), err)
	}
}

// countingSource counts the documents read and whether it was closed.
type countingSource struct {
	agg.Source
	read   int
	closed bool
}

func (c *countingSource) Next() bool {
	ok := c.Source.Next()
	if ok {
		c.read++
	}
	return ok
}

func (c *countingSource) Close() error {
	c.closed = true
	return c.Source.Close()
}

func TestPipeline_Run_StreamsAndCloses(t *testing.T) {
	docs := numberedDocs(1000, func(i int) string { return fmt.Sprintf(`{"_id":%d,"a":[1,2]}`, i) })
	src := &countingSource{Source: agg.SliceSource(docs)}
	p, err := agg.CompilePipeline(value.MustParse(`[{"$match":{"a":2}},{"$unwind":"$a"},{"$project":{"a":1}},{"$limit":3}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := p.Run(context.Background(), src, nil)
	n := 0
	for out.Next() {
		n++
	}
	if err := out.Err(); err != nil || n != 3 {
		t.Fatalf("got %d docs, err %v", n, err)
	}
	if src.read > 2 {
		t.Errorf("read %d input documents for 3 outputs of $unwind over 2-element arrays", src.read)
	}
	if err := out.Close(); err != nil || !src.closed {
		t.Errorf("Close: err %v, source closed %v", err, src.closed)
	}
}

func TestPipeline_Run_Cancelled(t *testing.T) {
	docs := numberedDocs(10000, func(i int) string { return fmt.Sprintf(`{"_id":%d}`, i) })
	p, err := agg.CompilePipeline(value.MustParse(`[{"$group":{"_id":"$_id"}}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := p.Run(ctx, agg.SliceSource(docs), nil)
	for out.Next() {
	}
	if !errors.Is(out.Err(), context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", out.Err())
	}
}

func TestPipeline_Run_Concurrent(t *testing.T) {
	docs := numberedDocs(200, func(i int) string { return fmt.Sprintf(`{"_id":%d,"g":%d,"v":[%d,1]}`, i, i%3, i) })
	p, err := agg.CompilePipeline(value.MustParse(`[
		{"$set":{"w":{"$map":{"input":"$v","as":"x","in":{"$let":{"vars":{"y":{"$multiply":["$$x",2]}},"in":"$$y"}}}}}},
		{"$group":{"_id":"$g","s":{"$sum":{"$sum":"$w"}}}},{"$sort":{"_id":1}}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := p.Run(context.Background(), agg.SliceSource(docs), nil)
			var b strings.Builder
			for out.Next() {
				b.Write(value.JSON(out.Doc()))
			}
			if out.Err() != nil {
				b.WriteString(out.Err().Error())
			}
			results[i] = b.String()
		}()
	}
	wg.Wait()
	want := `{"_id":0,"s":13400}{"_id":1,"s":13534}{"_id":2,"s":13266}`
	for i, r := range results {
		if r != want {
			t.Errorf("run %d: %s, want %s", i, r, want)
		}
	}
}

func TestExpr_Eval_Concurrent(t *testing.T) {
	e, err := expr.Compile(value.MustParse(`{"$reduce":{"input":"$a","initialValue":0,"in":{"$add":["$$value",{"$let":{"vars":{"t":"$$this"},"in":{"$multiply":["$$t","$$t"]}}}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				doc := value.MustParse(fmt.Sprintf(`{"a":[%d,%d]}`, i, j))
				v, err := e.Eval(doc)
				if want := int64(i*i + j*j); err != nil || v.Long() != want {
					t.Errorf("Eval(%s) = %v, %v; want %d", doc, v, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestPipeline_Run_LookupLargeForeignCollection(t *testing.T) {
	// A foreign collection over MaxMemory is read again per document
	// instead of being cached; the results are the same.
	foreign := numberedDocs(3000, func(i int) string {
		return fmt.Sprintf(`{"_id":%d,"k":%d,"pad":"%s"}`, i, i%50, strings.Repeat("p", 50))
	})
	local := numberedDocs(5, func(i int) string { return fmt.Sprintf(`{"_id":%d,"k":%d}`, i, i*10) })
	env := mapEnv{"f": foreign}
	pipeline := `[{"$lookup":{"from":"f","localField":"k","foreignField":"k","as":"m"}},{"$project":{"n":{"$size":"$m"},"first":{"$first":"$m._id"}}}]`
	small, err := aggregate(t, pipeline, &agg.PipelineOptions{MaxMemory: 32 << 10}, env, local...)
	if err != nil {
		t.Fatal(err)
	}
	big, err := aggregate(t, pipeline, nil, env, local...)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"_id":0,"n":60,"first":0}`
	if !slices.Equal(small, big) || small[0] != want {
		t.Fatalf("scan %v\ncache %v\nwant first %s", small, big, want)
	}
}

func TestPipeline_Compile_NilOptionsAndEnv(t *testing.T) {
	_, err := aggregate(t, `[{"$lookup":{"from":"x","localField":"a","foreignField":"b","as":"c"}}]`, nil, nil, value.MustParse(`{"a":1}`))
	want := `$lookup from "x" needs access to other collections, and this pipeline has none`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

func TestPipeline_Errors_Hints(t *testing.T) {
	cases := []struct{ pipeline, hint string }{
		{`[{"$out":"x"}]`, "plan its writes with `omgdb plan-aggregate <store> <coll> <pipeline>`, then `omgdb apply`"},
		{`[{"$merge":"x"}]`, "plan its writes with `omgdb plan-aggregate <store> <coll> <pipeline>`, then `omgdb apply`"},
		{`[{"$sortt":{"a":1}}]`, "see `omgdb docs aggregation` for the supported stages"},
	}
	for _, c := range cases {
		_, err := agg.CompilePipeline(value.MustParse(c.pipeline), nil)
		if err == nil || errs.HintOf(err) != c.hint {
			t.Errorf("%s: err %v, hint %q; want hint %q", c.pipeline, err, errs.HintOf(err), c.hint)
		}
	}
}

func TestExpr_Rand(t *testing.T) {
	e, err := expr.Compile(value.MustParse(`{"$rand":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[float64]bool{}
	for range 100 {
		v, err := e.Eval(value.MustParse(`{}`))
		if err != nil || v.Kind() != value.Double || v.Double() < 0 || v.Double() >= 1 {
			t.Fatalf("$rand = %v, %v", v, err)
		}
		seen[v.Double()] = true
	}
	if len(seen) < 90 {
		t.Errorf("$rand gave %d distinct values in 100", len(seen))
	}
}

// trackingEnv counts the collection sources it opens and that get closed.
type trackingEnv struct {
	mapEnv
	opened []*countingSource
}

func (e *trackingEnv) Collection(ctx context.Context, name string) (agg.Source, error) {
	src, err := e.mapEnv.Collection(ctx, name)
	if err != nil {
		return nil, err
	}
	c := &countingSource{Source: src}
	e.opened = append(e.opened, c)
	return c, nil
}

func TestPipeline_Run_ClosesEnvSources(t *testing.T) {
	docs := numberedDocs(3, func(i int) string { return fmt.Sprintf(`{"_id":%d,"k":%d}`, i, i) })
	pipelines := []string{
		`[{"$unionWith":"other"}]`,
		`[{"$lookup":{"from":"other","localField":"k","foreignField":"k","as":"m"}}]`,
		`[{"$lookup":{"from":"other","let":{"k":"$k"},"pipeline":[{"$match":{"$expr":{"$eq":["$k","$$k"]}}}],"as":"m"}}]`,
	}
	for _, pipeline := range pipelines {
		// 250 bytes: too little to cache "other", enough for one match.
		for _, read := range []int{1, 100} {
			env := &trackingEnv{mapEnv: mapEnv{"other": docs}}
			p, err := agg.CompilePipeline(value.MustParse(pipeline), &agg.PipelineOptions{MaxMemory: 250})
			if err != nil {
				t.Fatal(err)
			}
			out := p.Run(context.Background(), agg.SliceSource(docs), env)
			for n := 0; n < read && out.Next(); n++ {
			}
			if err := out.Close(); err != nil || out.Err() != nil {
				t.Fatalf("%s: close %v, err %v", pipeline, err, out.Err())
			}
			if read == 100 && len(env.opened) == 0 {
				t.Errorf("%s: no collection opened", pipeline)
			}
			for i, c := range env.opened {
				if !c.closed {
					t.Errorf("%s, %d read: collection source %d of %d left open", pipeline, read, i+1, len(env.opened))
				}
			}
		}
	}
}

func TestExpr_EvalAt_FixesNow(t *testing.T) {
	e, err := expr.Compile(value.MustParse(`{"$dateToString":{"date":"$$NOW","format":"%Y-%m-%d %H:%M"}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.EvalAt(value.MustParse(`{}`), time.Date(2024, 5, 1, 12, 30, 0, 0, time.UTC))
	if err != nil || v.Str() != "2024-05-01 12:30" {
		t.Fatalf("EvalAt = %v, %v", v, err)
	}
	before := time.Now().UTC().Format("2006-01-02 15:04")
	v, err = e.Eval(value.MustParse(`{}`))
	after := time.Now().UTC().Format("2006-01-02 15:04")
	if err != nil || (v.Str() != before && v.Str() != after) {
		t.Fatalf("Eval = %v, %v; want the time of the call, %s", v, err, before)
	}
}

func TestPipeline_Run_LookupResultsCountAgainstMaxMemory(t *testing.T) {
	foreign := numberedDocs(2000, func(i int) string { return fmt.Sprintf(`{"_id":%d,"k":1,"s":"%s"}`, i, strings.Repeat("x", 100)) })
	env := mapEnv{"f": foreign}
	local := []value.Value{value.MustParse(`{"_id":1,"k":1}`)}
	for _, pipeline := range []string{
		`[{"$lookup":{"from":"f","localField":"k","foreignField":"k","as":"m"}}]`,
		`[{"$lookup":{"from":"f","pipeline":[],"as":"m"}}]`,
	} {
		_, err := aggregate(t, pipeline, &agg.PipelineOptions{MaxMemory: 64 << 10}, env, local...)
		want := "$lookup exceeded the aggregation memory limit of 65536 bytes (PipelineOptions.MaxMemory)"
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %q", pipeline, err, want)
		}
	}
}
