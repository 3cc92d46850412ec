package agg_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// fuzzDocs are the documents fuzzed pipelines and expressions run over.
var fuzzDocs = []value.Value{
	value.MustParse(`{"_id":1,"a":1,"b":"x","c":[1,2,3],"d":{"e":[{"f":1},{"f":"g"}]},"t":{"$date":"2024-05-01T12:00:00Z"}}`),
	value.MustParse(`{"_id":2,"a":2.5,"b":null,"c":[],"d":{"e":5},"o":{"$oid":"5ab9cbfa31c2ab715d42129e"}}`),
	value.MustParse(`{"_id":3,"a":-9223372036854775808,"c":[[1],{"x":1},"s",null],"s":"cafétéria"}`),
	value.MustParse(`{"_id":{"k":1},"a":{"$numberDouble":"NaN"},"b":true,"bin":{"$binary":"AAE="}}`),
}

var fuzzEnv = mapEnv{"other": fuzzDocs[:3], "empty": nil}

// slowInput is how long one fuzz input may take before it counts as a
// failure: a hang or runaway work, not a performance check. The heaviest
// seeds (expressions near the MaxEvalWork bound) take about a second
// normally and several times that under -race on a loaded machine, so the
// bound is generous.
const slowInput = 90 * time.Second

// checkError requires err to be nil or one of omgdb's structured errors.
func checkError(t *testing.T, what string, err error) {
	var e *errs.Error
	if err != nil && !errors.As(err, &e) {
		t.Fatalf("%s: unstructured error %T: %v", what, err, err)
	}
	if e != nil && e.Message == "" {
		t.Fatalf("%s: empty error message", what)
	}
}

// failIfSlow fails a fuzz input that took longer than slowInput.
func failIfSlow(t *testing.T, start time.Time) {
	if d := time.Since(start); d > slowInput {
		t.Fatalf("slow input: %v", d)
	}
}

// FuzzCompilePipeline: a random pipeline compiles or fails with a clean
// error, and a compiled one runs over a few documents without panicking;
// one a GroupScan can run gives the same result that way.
func FuzzCompilePipeline(f *testing.F) {
	f.Add(`[{"$group":{"_id":"$b","n":{"$sum":"$a"}}},{"$sort":{"n":-1}}]`)
	f.Add(`[{"$unwind":{"path":"$c","includeArrayIndex":"i","preserveNullAndEmptyArrays":true}},{"$project":{"c":1,"i":1}}]`)
	f.Add(`[{"$lookup":{"from":"other","let":{"x":"$a"},"pipeline":[{"$match":{"$expr":{"$eq":["$a","$$x"]}}}],"as":"m"}}]`)
	f.Fuzz(func(t *testing.T, pipeline string) {
		spec, err := value.ParseString(pipeline)
		if err != nil {
			return
		}
		p, err := agg.CompilePipeline(spec, &agg.PipelineOptions{MaxMemory: 1 << 20, Seed: 1})
		checkError(t, "compile", err)
		if err != nil {
			return
		}
		defer failIfSlow(t, time.Now())
		src := p.Run(context.Background(), agg.SliceSource(fuzzDocs), fuzzEnv)
		for n := 0; n < 1000 && src.Next(); n++ {
			_ = value.JSON(src.Doc())
		}
		checkError(t, "run", src.Err())
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

// FuzzCompileExpr: a random expression compiles or fails cleanly, and
// evaluates over a few documents without panicking.
func FuzzCompileExpr(f *testing.F) {
	f.Add(`{"$add":["$a",1]}`)
	f.Add(`{"$dateToString":{"date":"$t","format":"%Y-%m-%d","timezone":"Europe/Paris"}}`)
	f.Add(`{"$reduce":{"input":"$c","initialValue":[],"in":{"$concatArrays":["$$value",["$$this"]]}}}`)
	f.Fuzz(func(t *testing.T, text string) {
		spec, err := value.ParseString(text)
		if err != nil {
			return
		}
		e, err := expr.Compile(spec)
		checkError(t, "compile", err)
		if err != nil {
			return
		}
		defer failIfSlow(t, time.Now())
		for _, d := range fuzzDocs {
			v, err := e.Eval(d)
			checkError(t, "eval", err)
			_ = value.JSON(v)
		}
	})
}
