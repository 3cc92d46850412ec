package testgen

import (
	"errors"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// FuzzDocs returns the documents fuzzed pipelines and expressions run
// over: every type, nesting, an empty array, int64's minimum, NaN.
func FuzzDocs() []value.Value {
	return []value.Value{
		value.MustParse(`{"_id":1,"a":1,"b":"x","c":[1,2,3],"d":{"e":[{"f":1},{"f":"g"}]},"t":{"$date":"2024-05-01T12:00:00Z"}}`),
		value.MustParse(`{"_id":2,"a":2.5,"b":null,"c":[],"d":{"e":5},"o":{"$oid":"5ab9cbfa31c2ab715d42129e"}}`),
		value.MustParse(`{"_id":3,"a":-9223372036854775808,"c":[[1],{"x":1},"s",null],"s":"cafétéria"}`),
		value.MustParse(`{"_id":{"k":1},"a":{"$numberDouble":"NaN"},"b":true,"bin":{"$binary":"AAE="}}`),
	}
}

// SlowInput is how long one fuzz input may take before it counts as a
// failure: a hang or runaway work, not a performance check. The heaviest
// seeds (expressions near the MaxEvalWork bound) take about a second
// normally and several times that under -race on a loaded machine, so the
// bound is generous.
const SlowInput = 90 * time.Second

// CheckError requires err to be nil or one of omgdb's structured errors,
// with a message.
func CheckError(t testing.TB, what string, err error) {
	t.Helper()
	var e *errs.Error
	if err != nil && !errors.As(err, &e) {
		t.Fatalf("%s: unstructured error %T: %v", what, err, err)
	}
	if e != nil && e.Message == "" {
		t.Fatalf("%s: empty error message", what)
	}
}

// FailIfSlow fails a fuzz input that took longer than SlowInput; defer it
// with the input's start time.
func FailIfSlow(t testing.TB, start time.Time) {
	t.Helper()
	if d := time.Since(start); d > SlowInput {
		t.Fatalf("slow input: %v", d)
	}
}
