package expr

import (
	"math"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Accumulators of $group, $bucket and $bucketAuto, and the expression
// forms of $sum, $avg, $min, $max, $stdDevPop and $stdDevSamp.

// AccumulatorState is the running state of one accumulator for one
// group. Add takes the evaluated input and the document (for sort-based
// accumulators) and returns an estimate of the bytes it retained; Result
// returns the accumulated value.
type AccumulatorState interface {
	Add(v, doc value.Value) (int64, error)
	Result() value.Value
}

// Accumulator is one compiled "field: {$acc: arg}" of a group.
type Accumulator struct {
	Field string          // the output field
	Op    string          // the accumulator, such as "$sum"
	Input Node            // evaluated per document; nil for $count
	N     Node            // the "n" of the N accumulators
	Sort  *value.SortSpec // the "sortBy" of $top/$bottom
	pct   *percentileArgs // the arguments of $percentile and $median
	make  func(n int, sort *value.SortSpec) AccumulatorState
	coll  *collation.Collation // the compiler's, for $min, $max and $addToSet
}

// accumulatorMakers maps each accumulator to the constructor of its state.
var accumulatorMakers = map[string]func(n int, sort *value.SortSpec) AccumulatorState{
	"$sum":          func(int, *value.SortSpec) AccumulatorState { return &sumState{} },
	"$avg":          func(int, *value.SortSpec) AccumulatorState { return &avgState{} },
	"$min":          func(int, *value.SortSpec) AccumulatorState { return &minMaxState{} },
	"$max":          func(int, *value.SortSpec) AccumulatorState { return &minMaxState{max: true} },
	"$first":        func(int, *value.SortSpec) AccumulatorState { return &firstLastState{} },
	"$last":         func(int, *value.SortSpec) AccumulatorState { return &firstLastState{last: true} },
	"$push":         func(int, *value.SortSpec) AccumulatorState { return &pushState{} },
	"$addToSet":     func(int, *value.SortSpec) AccumulatorState { return &pushState{set: valueSet{}} },
	"$count":        func(int, *value.SortSpec) AccumulatorState { return &countState{} },
	"$stdDevPop":    func(int, *value.SortSpec) AccumulatorState { return &stdDevState{} },
	"$stdDevSamp":   func(int, *value.SortSpec) AccumulatorState { return &stdDevState{samp: true} },
	"$mergeObjects": func(int, *value.SortSpec) AccumulatorState { return &mergeState{out: value.ObjectValue(nil)} },
	"$firstN":       func(n int, _ *value.SortSpec) AccumulatorState { return &firstNState{n: n} },
	"$lastN":        func(n int, _ *value.SortSpec) AccumulatorState { return &firstNState{n: n, last: true} },
	"$maxN":         func(n int, _ *value.SortSpec) AccumulatorState { return &extremeNState{n: n, max: true} },
	"$minN":         func(n int, _ *value.SortSpec) AccumulatorState { return &extremeNState{n: n} },
	"$top":          func(_ int, s *value.SortSpec) AccumulatorState { return &topState{n: 1, sort: s, single: true} },
	"$bottom": func(_ int, s *value.SortSpec) AccumulatorState {
		return &topState{n: 1, sort: s, single: true, bottom: true}
	},
	"$topN":    func(n int, s *value.SortSpec) AccumulatorState { return &topState{n: n, sort: s} },
	"$bottomN": func(n int, s *value.SortSpec) AccumulatorState { return &topState{n: n, sort: s, bottom: true} },
	// $percentile and $median make their state in NewState, from pct.
	"$percentile": nil,
	"$median":     nil,
}

// unsupportedAccumulators are refused with a reason.
var unsupportedAccumulators = map[string]string{
	"$accumulator": "omgdb runs no JavaScript",
}

func accumulatorNames() []string {
	names := make([]string, 0, len(accumulatorMakers))
	for k := range accumulatorMakers {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// CompileAccumulator compiles "field: {$acc: arg}".
func CompileAccumulator(c *Compiler, field string, spec value.Value) (*Accumulator, error) {
	if strings.Contains(field, ".") {
		return nil, errs.Errorf(errs.Invalid, "the field name '%s' cannot contain '.'", field)
	}
	if strings.HasPrefix(field, "$") {
		return nil, errs.Errorf(errs.Invalid, "the field name '%s' cannot be an operator name", field)
	}
	if spec.Kind() != value.Object || spec.Len() != 1 || !strings.HasPrefix(spec.Fields()[0].Key, "$") {
		return nil, errs.Errorf(errs.Invalid, "the field '%s' must be an accumulator object, such as {\"$sum\": 1}, found %s", field, spec)
	}
	op, arg := spec.Fields()[0].Key, spec.Fields()[0].Value
	mk, ok := accumulatorMakers[op]
	if !ok {
		if why, known := unsupportedAccumulators[op]; known {
			return nil, errs.Errorf(errs.Invalid, "accumulator %s is not supported: %s", op, why)
		}
		return nil, UnknownOperator(op, "accumulator", accumulatorNames())
	}
	a := &Accumulator{Field: field, Op: op, make: mk, coll: c.Collation}
	return a, a.compileArg(c, arg)
}

func (a *Accumulator) compileArg(c *Compiler, arg value.Value) error {
	var err error
	switch a.Op {
	case "$count":
		if arg.Kind() != value.Object || arg.Len() != 0 {
			return errs.Errorf(errs.Invalid, "$count takes no arguments, i.e. $count:{}")
		}
		return nil
	case "$firstN", "$lastN", "$maxN", "$minN":
		m, err := c.Named(a.Op, arg, []string{"input", "n"}, nil)
		if err != nil {
			return err
		}
		a.Input, a.N = m["input"], m["n"]
		return nil
	case "$top", "$bottom", "$topN", "$bottomN":
		return a.compileTop(c, arg)
	case "$percentile", "$median":
		if a.pct, err = compilePercentileArgs(c, a.Op, arg, a.Op == "$median"); err != nil {
			return err
		}
		// Per document, an array is one value (not numeric, so
		// ignored), as in MongoDB: only the expression form spreads it.
		a.Input, err = c.Compile(arg.Get("input"))
		return err
	}
	if arg.Kind() == value.Array {
		return errs.Errorf(errs.Invalid, "the %s accumulator is a unary operator", a.Op).
			WithHint("give it one expression, not an array of arguments")
	}
	a.Input, err = c.Compile(arg)
	return err
}

func (a *Accumulator) compileTop(c *Compiler, arg value.Value) error {
	required := []string{"sortBy", "output", "n"}
	if a.Op == "$top" || a.Op == "$bottom" {
		required = required[:2]
	}
	if arg.Kind() != value.Object {
		return errs.Errorf(errs.Invalid, "%s requires an object with %s, found %s", a.Op, strings.Join(required, ", "), arg.TypeName())
	}
	m, err := c.Named(a.Op, arg.Without("sortBy"), required[1:], nil)
	if err != nil {
		return err
	}
	if arg.Get("sortBy").IsMissing() {
		return errs.Errorf(errs.Invalid, "missing 'sortBy' parameter to %s", a.Op)
	}
	if a.Sort, err = value.CompileSortSpec(a.Op, arg.Get("sortBy")); err != nil {
		return err
	}
	a.Input, a.N = m["output"], m["n"]
	return nil
}

// NewState creates the state for a new group whose key is id. "n" is
// evaluated against the group key, as in MongoDB's manual example
// ({_id: {gameId: "$gameId"}} lets n read "$gameId"); "$_id" also works.
func (a *Accumulator) NewState(c *EvalCtx, id value.Value) (AccumulatorState, error) {
	if a.pct != nil {
		ps, err := a.pct.ps(c, a.Op)
		if err != nil {
			return nil, err
		}
		return &percentileState{ps: ps, median: a.pct.p == nil, method: a.pct.method}, nil
	}
	n := 0
	if a.N != nil {
		root := value.ObjectValue([]value.Field{{Key: "_id", Value: id}})
		if id.Kind() == value.Object && id.Get("_id").IsMissing() {
			root = id.With("_id", id)
		}
		saved := c.Vars[0]
		c.Root, c.Vars[0] = root, root
		v, err := a.N.Eval(c)
		c.Vars[0] = saved
		if err != nil {
			return nil, err
		}
		if n, err = positiveN(a.Op, v); err != nil {
			return nil, err
		}
	}
	return collated(a.make(n, a.Sort), a.coll), nil
}

// positiveN validates the "n" of the N accumulators and operators.
func positiveN(op string, v value.Value) (int, error) {
	i, ok := ExactInt(v)
	if !ok {
		return 0, errs.Errorf(errs.Invalid, "%s: 'n' must be an integer, found %s", op, v)
	}
	if i <= 0 {
		return 0, errs.Errorf(errs.Invalid, "%s: 'n' must be greater than 0, found %d", op, i)
	}
	return int(min(i, math.MaxInt32)), nil
}

type sumState struct{ s numSum }

func (st *sumState) Add(v, _ value.Value) (int64, error) {
	st.s.add(v)
	return 0, nil
}

func (st *sumState) Result() value.Value { return st.s.value() }

type avgState struct {
	s numSum
	n int64
}

func (st *avgState) Add(v, _ value.Value) (int64, error) {
	if v.IsNumber() {
		st.s.add(v)
		st.n++
	}
	return 0, nil
}

func (st *avgState) Result() value.Value {
	if st.n == 0 {
		return value.NullValue()
	}
	if st.s.dec != nil { // an average with a decimal is a decimal
		return decimalAverage(st.s.dec, st.n)
	}
	return value.DoubleValue(st.s.float() / float64(st.n))
}

type minMaxState struct {
	best value.Value
	max  bool
	coll *collation.Collation // nil: binary string order
}

func (st *minMaxState) Add(v, _ value.Value) (int64, error) {
	if Nullish(v) {
		return 0, nil
	}
	c := st.coll.Compare(v, st.best)
	if st.best.IsMissing() || (st.max && c > 0) || (!st.max && c < 0) {
		st.best = v
		return value.Size(v), nil
	}
	return 0, nil
}

func (st *minMaxState) Result() value.Value {
	if st.best.IsMissing() {
		return value.NullValue()
	}
	return st.best
}

// collated gives st the collation when it compares strings: $min and
// $max choose by it, $addToSet keeps one of each set of values equal
// under it (the first to arrive).
func collated(st AccumulatorState, coll *collation.Collation) AccumulatorState {
	if coll == nil {
		return st
	}
	switch st := st.(type) {
	case *minMaxState:
		st.coll = coll
	case *pushState:
		st.coll = coll
	}
	return st
}

type firstLastState struct {
	v    value.Value
	set  bool
	last bool
}

func (st *firstLastState) Add(v, _ value.Value) (int64, error) {
	if st.set && !st.last {
		return 0, nil
	}
	if v.IsMissing() {
		v = value.NullValue()
	}
	st.v, st.set = v, true
	return value.Size(v), nil
}

func (st *firstLastState) Result() value.Value { return st.v }

type pushState struct {
	vals []value.Value
	set  valueSet             // $addToSet only
	coll *collation.Collation // $addToSet: keys the set by collation keys
}

func (st *pushState) Add(v, _ value.Value) (int64, error) {
	if v.IsMissing() || (st.set != nil && !st.set.add(st.coll.Map(v))) {
		return 0, nil
	}
	st.vals = append(st.vals, v)
	size := value.Size(v)
	if st.set != nil {
		size *= 2
	}
	return size, nil
}

func (st *pushState) Result() value.Value { return value.ArrayValue(slices.Clip(st.vals)) }

type countState struct{ n int64 }

func (st *countState) Add(value.Value, value.Value) (int64, error) {
	st.n++
	return 0, nil
}

func (st *countState) Result() value.Value { return value.LongValue(st.n) }

// stdDevState is Welford's online algorithm.
type stdDevState struct {
	n        int64
	mean, m2 float64
	samp     bool
}

func (st *stdDevState) Add(v, _ value.Value) (int64, error) {
	if !v.IsNumber() {
		return 0, nil
	}
	x := v.Float()
	st.n++
	d := x - st.mean
	st.mean += d / float64(st.n)
	st.m2 += d * (x - st.mean)
	return 0, nil
}

func (st *stdDevState) Result() value.Value {
	switch {
	case st.n == 0, st.samp && st.n < 2:
		return value.NullValue()
	case st.samp:
		return value.DoubleValue(math.Sqrt(st.m2 / float64(st.n-1)))
	}
	return value.DoubleValue(math.Sqrt(st.m2 / float64(st.n)))
}

type mergeState struct {
	out value.Value
	i   int
}

func (st *mergeState) Add(v, _ value.Value) (int64, error) {
	var err error
	st.i++
	st.out, err = mergeInto("$mergeObjects", st.out, v, st.i-1)
	return value.Size(v), err
}

func (st *mergeState) Result() value.Value { return st.out }

// CountAccumulator returns field: {$sum: 1}, which counts the
// documents of a group ($sortByCount, and $bucket without an output).
func CountAccumulator(field string) *Accumulator {
	return &Accumulator{Field: field, Op: "$sum", Input: Literal{value.LongValue(1)}, make: accumulatorMakers["$sum"]}
}
