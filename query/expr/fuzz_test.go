package expr_test

import (
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// fuzzDocs are the documents fuzzed expressions run over.
var fuzzDocs = testgen.FuzzDocs()

// FuzzCompileExpr: a random expression compiles or fails cleanly, and
// evaluates over a few documents without panicking.
func FuzzCompileExpr(f *testing.F) {
	f.Add(`{"$add":["$a",1]}`)
	f.Add(`{"$dateToString":{"date":"$t","format":"%Y-%m-%d","timezone":"Europe/Paris"}}`)
	f.Add(`{"$reduce":{"input":"$c","initialValue":[],"in":{"$concatArrays":["$$value",["$$this"]]}}}`)
	f.Add(`{"$regexFindAll":{"input":"$s","regex":{"$regularExpression":{"pattern":"(a*?)","options":"i"}}}}`)
	f.Add(`{"$regexFind":{"regex":"$s","options":"x"}}`)
	f.Fuzz(func(t *testing.T, text string) {
		spec, err := value.ParseString(text)
		if err != nil {
			return
		}
		e, err := expr.Compile(spec)
		testgen.CheckError(t, "compile", err)
		if err != nil {
			return
		}
		defer testgen.FailIfSlow(t, time.Now())
		for _, d := range fuzzDocs {
			v, err := e.Eval(d)
			testgen.CheckError(t, "eval", err)
			_ = value.JSON(v)
		}
	})
}
