package expr_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// countingCtx is a context that counts how often Err is consulted and is
// done from the after-th call on (never when after is 0).
type countingCtx struct {
	context.Context
	calls, after int64
}

func (c *countingCtx) Err() error {
	if n := atomic.AddInt64(&c.calls, 1); c.after > 0 && n >= c.after {
		return context.Canceled
	}
	return nil
}

// costlyRoot is the $$ROOT of the costly expressions: a long string and
// a long array of objects.
func costlyRoot(t *testing.T) value.Value {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"s":"`)
	b.WriteString(strings.Repeat("ab ", 200_000))
	b.WriteString(`","objs":[`)
	for i := range 50_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"x":1}`)
	}
	b.WriteString(`]}`)
	return value.MustParse(b.String())
}

// costly are expressions each of whose evaluations takes thousands of
// steps inside one operator: every one must stop on a done context.
var costly = []string{
	`{"$range":[0,200000]}`,
	`{"$size":{"$map":{"input":{"$range":[0,100000]},"in":{"$add":["$$this",1]}}}}`,
	`{"$size":{"$filter":{"input":{"$range":[0,100000]},"cond":{"$gt":["$$this",5]}}}}`,
	`{"$reduce":{"input":{"$range":[0,100000]},"initialValue":0,"in":{"$add":["$$value","$$this"]}}}`,
	`{"$size":{"$zip":{"inputs":[{"$literal":[1,2,3]},"$objs"],"useLongestLength":true}}}`,
	`{"$sortArray":{"input":"$objs","sortBy":{"x":1}}}`,
	`{"$sortArray":{"input":{"$map":{"input":"$objs","in":{"$rand":{}}}},"sortBy":1}}`,
	`{"$sum":"$objs.x"}`,
	`{"$firstN":{"input":"$objs","n":3}}`,
	`{"$in":[2,"$objs.x"]}`,
	`{"$size":{"$setUnion":["$objs"]}}`,
	`{"$size":{"$concatArrays":["$objs","$objs"]}}`,
	`{"$regexMatch":{"input":"$s","regex":"zz"}}`,
	`{"$size":{"$regexFindAll":{"input":"$s","regex":"b"}}}`,
	`{"$strLenBytes":{"$replaceAll":{"input":"$s","find":"a","replacement":"c"}}}`,
	`{"$strLenBytes":{"$trim":{"input":"$s"}}}`,
	`{"$size":{"$split":["$s"," "]}}`,
	`{"$strLenCP":"$s"}`,
}

// TestEvalContext_StopsCostlyOperators: on a context that is already
// done, each costly expression stops with the context's error, unwrapped.
func TestEvalContext_StopsCostlyOperators(t *testing.T) {
	root := costlyRoot(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, src := range costly {
		e, err := expr.Compile(value.MustParse(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if _, err := e.Eval(root); err != nil {
			t.Fatalf("%s without a context: %v", src, err)
		}
		if _, err := e.EvalContext(ctx, root, time.Time{}); err != context.Canceled {
			t.Errorf("%s on a cancelled context: error %v, want context.Canceled", src, err)
		}
	}
}

// TestEvalContext_CheapNeverConsults: an evaluation of fewer than
// CheckEvery steps does not look at the context, so a cheap expression
// pays nothing for its deadline.
func TestEvalContext_CheapNeverConsults(t *testing.T) {
	e, err := expr.Compile(value.MustParse(`{"$cond":[{"$gt":["$a",1]},{"$concat":["$b","x"]},{"$add":["$a",{"$size":{"$range":[0,10]}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := &countingCtx{Context: context.Background()}
	for range 100 {
		if _, err := e.EvalContext(ctx, value.MustParse(`{"a":2,"b":"y"}`), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if ctx.calls != 0 {
		t.Errorf("cheap expression consulted its context %d times, want 0", ctx.calls)
	}
}

// TestEvalContext_ConsultsEveryCheckEvery: a long evaluation consults the
// context about once per CheckEvery steps, not once per operation, and
// stops at the first look after the context is done.
func TestEvalContext_ConsultsEveryCheckEvery(t *testing.T) {
	const n = 1 << 20
	e, err := expr.Compile(value.MustParse(`{"$reduce":{"input":{"$range":[0,1048576]},"initialValue":0,"in":{"$add":["$$value","$$this"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := &countingCtx{Context: context.Background()}
	if _, err := e.EvalContext(ctx, value.MustParse(`{}`), time.Time{}); err != nil {
		t.Fatal(err)
	}
	// About 2 steps an iteration ($reduce's and $add's), 1 an element of
	// $range: 3n steps, so about 3n/CheckEvery looks.
	if lo, hi := int64(n/expr.CheckEvery), int64(8*n/expr.CheckEvery); ctx.calls < lo || ctx.calls > hi {
		t.Errorf("consulted the context %d times over %d iterations, want between %d and %d", ctx.calls, n, lo, hi)
	}
	stop := &countingCtx{Context: context.Background(), after: 10}
	if _, err := e.EvalContext(stop, value.MustParse(`{}`), time.Time{}); err != context.Canceled {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if stop.calls != 10 {
		t.Errorf("consulted %d times, want to stop at the 10th", stop.calls)
	}
}

// TestEvalContext_SortStopsMidway: $sortArray stops within its
// comparisons, and its way out (a recovered panic) leaves nothing behind.
func TestEvalContext_SortStopsMidway(t *testing.T) {
	e, err := expr.Compile(value.MustParse(`{"$sortArray":{"input":{"$map":{"input":{"$range":[0,200000]},"in":{"$mod":[{"$multiply":["$$this",7919]},100003]}}},"sortBy":-1}}`))
	if err != nil {
		t.Fatal(err)
	}
	root := value.MustParse(`{}`)
	// Long enough to let $range and $map finish, then stop in the sort.
	stop := &countingCtx{Context: context.Background(), after: 1200}
	if _, err := e.EvalContext(stop, root, time.Time{}); err != context.Canceled {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	v, err := e.EvalContext(context.Background(), root, time.Time{})
	if err != nil || v.Len() != 200000 || value.Compare(v.Index(0), v.Index(1)) < 0 {
		t.Fatalf("sort after a stopped one: %d elements, %v", v.Len(), err)
	}
}

// TestEvalContext_Deadline: a deadline stops an evaluation that would
// take seconds within a few milliseconds of it.
func TestEvalContext_Deadline(t *testing.T) {
	e, err := expr.Compile(value.MustParse(`{"$reduce":{"input":{"$range":[0,1000000]},"initialValue":0,` +
		`"in":{"$add":["$$value",{"$size":{"$sortArray":{"input":{"$range":[0,64]},"sortBy":-1}}}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = e.EvalContext(ctx, value.MustParse(`{}`), time.Time{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the deadline", err)
	}
	if took := time.Since(start); took > 50*time.Millisecond+100*time.Millisecond {
		t.Errorf("stopped after %v, over the 50 ms deadline plus 100 ms", took)
	}
}

// TestRange_ChargedBeforeAllocating: $range charges its array against
// MaxEvalWork before it allocates it, so an evaluation near its limit
// fails without allocating a million elements.
func TestRange_ChargedBeforeAllocating(t *testing.T) {
	c := expr.NewCompiler()
	n, err := c.Compile(value.MustParse(`{"$range":[0,1048576]}`))
	if err != nil {
		t.Fatal(err)
	}
	ec := &expr.EvalCtx{Vars: make([]value.Value, c.Slots), Work: expr.MaxEvalWork - 1000}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = n.Eval(ec)
	runtime.ReadMemStats(&after)
	if errs.KindOf(err) != errs.Limit {
		t.Fatalf("error %v, want the work limit", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("allocated %d bytes before failing, want under 1 MiB", grew)
	}
}

// TestSortStable: SortStable sorts as slices.SortStableFunc does, and
// stops within CheckEvery comparisons of its context being done, with the
// context's error.
func TestSortStable(t *testing.T) {
	type item struct{ key, pos int }
	items := make([]item, 100_000)
	for i := range items {
		items[i] = item{(i * 7919) % 1000, i}
	}
	cmp := func(a, b item) int { return a.key - b.key }
	if err := expr.SortStable(context.Background(), items, cmp); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(items); i++ {
		if a, b := items[i-1], items[i]; a.key > b.key || (a.key == b.key && a.pos > b.pos) {
			t.Fatalf("not sorted stably at %d: %v then %v", i, a, b)
		}
	}
	stop := &countingCtx{Context: context.Background(), after: 3}
	compared := 0
	err := expr.SortStable(stop, items, func(a, b item) int { compared++; return b.key - a.key })
	if err != context.Canceled {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if compared > 3*expr.CheckEvery {
		t.Errorf("%d comparisons before stopping, want at most %d", compared, 3*expr.CheckEvery)
	}
}
