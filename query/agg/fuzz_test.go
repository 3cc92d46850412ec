package agg_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// fuzzDocs are the documents fuzzed pipelines run over.
var fuzzDocs = testgen.FuzzDocs()

var fuzzEnv = mapEnv{"other": fuzzDocs[:3], "empty": nil}

// FuzzCompilePipeline: a random pipeline compiles or fails with a clean
// error, and a compiled one runs over a few documents without panicking;
// one a GroupScan can run gives the same result that way.
func FuzzCompilePipeline(f *testing.F) {
	f.Add(`[{"$group":{"_id":"$b","n":{"$sum":"$a"}}},{"$sort":{"n":-1}}]`)
	f.Add(`[{"$unwind":{"path":"$c","includeArrayIndex":"i","preserveNullAndEmptyArrays":true}},{"$project":{"c":1,"i":1}}]`)
	f.Add(`[{"$lookup":{"from":"other","let":{"x":"$a"},"pipeline":[{"$match":{"$expr":{"$eq":["$a","$$x"]}}}],"as":"m"}}]`)
	f.Add(`[{"$setWindowFields":{"partitionBy":"$b","sortBy":{"a":1},"output":{"s":{"$sum":"$a","window":{"range":[-1,"current"]}},"r":{"$rank":{}},"e":{"$expMovingAvg":{"input":"$a","N":2}}}}}]`)
	f.Add(`[{"$graphLookup":{"from":"other","startWith":"$a","connectFromField":"b","connectToField":"a","as":"g","maxDepth":2,"depthField":"d"}}]`)
	f.Add(`[{"$densify":{"field":"a","range":{"step":1,"bounds":"full"}}},{"$fill":{"sortBy":{"a":1},"output":{"b":{"method":"locf"}}}}]`)
	f.Add(`[{"$group":{"_id":null,"p":{"$percentile":{"p":[0.5,0.9],"input":"$a","method":"approximate"}}}}]`)
	f.Fuzz(func(t *testing.T, pipeline string) {
		spec, err := value.ParseString(pipeline)
		if err != nil {
			return
		}
		p, err := agg.CompilePipeline(spec, &agg.PipelineOptions{MaxMemory: 1 << 20, Seed: 1})
		testgen.CheckError(t, "compile", err)
		if err != nil {
			return
		}
		defer testgen.FailIfSlow(t, time.Now())
		src := p.Run(context.Background(), agg.SliceSource(fuzzDocs), fuzzEnv)
		for n := 0; n < 1000 && src.Next(); n++ {
			_ = value.JSON(src.Doc())
		}
		testgen.CheckError(t, "run", src.Err())
		if err := src.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		if g, ok := p.GroupScan(); ok {
			// Over stored JSON, a GroupScan returns what Run does.
			want, wantErr := runAll(p.Run(context.Background(), agg.SliceSource(fuzzDocs), nil))
			got, gotErr := groupScanAll(rand.New(rand.NewPCG(1, 2)), g, fuzzDocs)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || got != want {
				t.Fatalf("pipeline %s:\nGroupScan = %s (error %v)\nRun       = %s (error %v)", pipeline, got, gotErr, want, wantErr)
			}
		}
	})
}
