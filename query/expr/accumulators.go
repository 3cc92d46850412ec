package query

import (
	"math"
	"slices"
	"strings"
)

// Accumulators of $group, $bucket and $bucketAuto, and the expression
// forms of $sum, $avg, $min, $max, $stdDevPop and $stdDevSamp.

// accState is the running state of one accumulator for one group. add
// takes the evaluated input and the document (for sort-based
// accumulators) and returns an estimate of the bytes it retained.
type accState interface {
	add(v, doc Value) (int64, error)
	result() Value
}

// accumulatorSpec is one compiled "field: {$acc: arg}" of a group.
type accumulatorSpec struct {
	field string
	op    string
	input expression // evaluated per document; nil for $count
	n     expression // the "n" of the N accumulators
	sort  *sortSpec  // the "sortBy" of $top/$bottom
	make  func(n int, sort *sortSpec) accState
}

// accumulatorMakers maps each accumulator to the constructor of its state.
var accumulatorMakers = map[string]func(n int, sort *sortSpec) accState{
	"$sum":          func(int, *sortSpec) accState { return &sumState{} },
	"$avg":          func(int, *sortSpec) accState { return &avgState{} },
	"$min":          func(int, *sortSpec) accState { return &minMaxState{} },
	"$max":          func(int, *sortSpec) accState { return &minMaxState{max: true} },
	"$first":        func(int, *sortSpec) accState { return &firstLastState{} },
	"$last":         func(int, *sortSpec) accState { return &firstLastState{last: true} },
	"$push":         func(int, *sortSpec) accState { return &pushState{} },
	"$addToSet":     func(int, *sortSpec) accState { return &pushState{set: valueSet{}} },
	"$count":        func(int, *sortSpec) accState { return &countState{} },
	"$stdDevPop":    func(int, *sortSpec) accState { return &stdDevState{} },
	"$stdDevSamp":   func(int, *sortSpec) accState { return &stdDevState{samp: true} },
	"$mergeObjects": func(int, *sortSpec) accState { return &mergeState{out: ObjectValue(nil)} },
	"$firstN":       func(n int, _ *sortSpec) accState { return &firstNState{n: n} },
	"$lastN":        func(n int, _ *sortSpec) accState { return &firstNState{n: n, last: true} },
	"$maxN":         func(n int, _ *sortSpec) accState { return &extremeNState{n: n, max: true} },
	"$minN":         func(n int, _ *sortSpec) accState { return &extremeNState{n: n} },
	"$top":          func(_ int, s *sortSpec) accState { return &topState{n: 1, sort: s, single: true} },
	"$bottom":       func(_ int, s *sortSpec) accState { return &topState{n: 1, sort: s, single: true, bottom: true} },
	"$topN":         func(n int, s *sortSpec) accState { return &topState{n: n, sort: s} },
	"$bottomN":      func(n int, s *sortSpec) accState { return &topState{n: n, sort: s, bottom: true} },
}

// unsupportedAccumulators are refused with a reason.
var unsupportedAccumulators = map[string]string{
	"$accumulator": "omgdb runs no JavaScript",
	"$percentile":  "not implemented",
	"$median":      "not implemented",
}

func accumulatorNames() []string {
	names := make([]string, 0, len(accumulatorMakers))
	for k := range accumulatorMakers {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// compileAccumulator compiles "field: {$acc: arg}".
func compileAccumulator(c *exprCompiler, field string, spec Value) (*accumulatorSpec, error) {
	if strings.Contains(field, ".") {
		return nil, Errorf(Invalid, "the field name '%s' cannot contain '.'", field)
	}
	if strings.HasPrefix(field, "$") {
		return nil, Errorf(Invalid, "the field name '%s' cannot be an operator name", field)
	}
	if spec.Kind() != Object || spec.Len() != 1 || !strings.HasPrefix(spec.Fields()[0].Key, "$") {
		return nil, Errorf(Invalid, "the field '%s' must be an accumulator object, such as {\"$sum\": 1}, found %s", field, spec)
	}
	op, arg := spec.Fields()[0].Key, spec.Fields()[0].Value
	mk, ok := accumulatorMakers[op]
	if !ok {
		if why, known := unsupportedAccumulators[op]; known {
			return nil, Errorf(Invalid, "accumulator %s is not supported: %s", op, why)
		}
		return nil, unknownAggOperator(op, "accumulator", accumulatorNames())
	}
	a := &accumulatorSpec{field: field, op: op, make: mk}
	return a, a.compileArg(c, arg)
}

func (a *accumulatorSpec) compileArg(c *exprCompiler, arg Value) error {
	var err error
	switch a.op {
	case "$count":
		if arg.Kind() != Object || arg.Len() != 0 {
			return Errorf(Invalid, "$count takes no arguments, i.e. $count:{}")
		}
		return nil
	case "$firstN", "$lastN", "$maxN", "$minN":
		m, err := c.named(a.op, arg, []string{"input", "n"}, nil)
		if err != nil {
			return err
		}
		a.input, a.n = m["input"], m["n"]
		return nil
	case "$top", "$bottom", "$topN", "$bottomN":
		return a.compileTop(c, arg)
	}
	if arg.Kind() == Array {
		return Errorf(Invalid, "the %s accumulator is a unary operator", a.op).
			WithHint("give it one expression, not an array of arguments")
	}
	a.input, err = c.expr(arg)
	return err
}

func (a *accumulatorSpec) compileTop(c *exprCompiler, arg Value) error {
	required := []string{"sortBy", "output", "n"}
	if a.op == "$top" || a.op == "$bottom" {
		required = required[:2]
	}
	if arg.Kind() != Object {
		return Errorf(Invalid, "%s requires an object with %s, found %s", a.op, strings.Join(required, ", "), arg.TypeName())
	}
	m, err := c.named(a.op, arg.Without("sortBy"), required[1:], nil)
	if err != nil {
		return err
	}
	if arg.Get("sortBy").IsMissing() {
		return Errorf(Invalid, "missing 'sortBy' parameter to %s", a.op)
	}
	if a.sort, err = compileSortSpec(a.op, arg.Get("sortBy")); err != nil {
		return err
	}
	a.input, a.n = m["output"], m["n"]
	return nil
}

// newState creates the state for a new group whose key is id. "n" is
// evaluated against the group key, as in MongoDB's manual example
// ({_id: {gameId: "$gameId"}} lets n read "$gameId"); "$_id" also works.
func (a *accumulatorSpec) newState(c *evalCtx, id Value) (accState, error) {
	n := 0
	if a.n != nil {
		root := ObjectValue([]Field{{"_id", id}})
		if id.Kind() == Object && id.Get("_id").IsMissing() {
			root = id.With("_id", id)
		}
		saved := c.vars[0]
		c.root, c.vars[0] = root, root
		v, err := a.n.eval(c)
		c.vars[0] = saved
		if err != nil {
			return nil, err
		}
		if n, err = positiveN(a.op, v); err != nil {
			return nil, err
		}
	}
	return a.make(n, a.sort), nil
}

// positiveN validates the "n" of the N accumulators and operators.
func positiveN(op string, v Value) (int, error) {
	i, ok := exactInt(v)
	if !ok {
		return 0, Errorf(Invalid, "%s: 'n' must be an integer, found %s", op, v)
	}
	if i <= 0 {
		return 0, Errorf(Invalid, "%s: 'n' must be greater than 0, found %d", op, i)
	}
	return int(min(i, math.MaxInt32)), nil
}

type sumState struct{ s numSum }

func (st *sumState) add(v, _ Value) (int64, error) {
	st.s.add(v)
	return 0, nil
}

func (st *sumState) result() Value { return st.s.value() }

type avgState struct {
	s numSum
	n int64
}

func (st *avgState) add(v, _ Value) (int64, error) {
	if v.IsNumber() {
		st.s.add(v)
		st.n++
	}
	return 0, nil
}

func (st *avgState) result() Value {
	if st.n == 0 {
		return NullValue()
	}
	return DoubleValue(st.s.float() / float64(st.n))
}

type minMaxState struct {
	best Value
	max  bool
}

func (st *minMaxState) add(v, _ Value) (int64, error) {
	if nullish(v) {
		return 0, nil
	}
	c := Compare(v, st.best)
	if st.best.IsMissing() || (st.max && c > 0) || (!st.max && c < 0) {
		st.best = v
		return valueSize(v), nil
	}
	return 0, nil
}

func (st *minMaxState) result() Value {
	if st.best.IsMissing() {
		return NullValue()
	}
	return st.best
}

type firstLastState struct {
	v    Value
	set  bool
	last bool
}

func (st *firstLastState) add(v, _ Value) (int64, error) {
	if st.set && !st.last {
		return 0, nil
	}
	if v.IsMissing() {
		v = NullValue()
	}
	st.v, st.set = v, true
	return valueSize(v), nil
}

func (st *firstLastState) result() Value { return st.v }

type pushState struct {
	vals []Value
	set  valueSet // $addToSet only
}

func (st *pushState) add(v, _ Value) (int64, error) {
	if v.IsMissing() || (st.set != nil && !st.set.add(v)) {
		return 0, nil
	}
	st.vals = append(st.vals, v)
	size := valueSize(v)
	if st.set != nil {
		size *= 2
	}
	return size, nil
}

func (st *pushState) result() Value { return ArrayValue(slices.Clip(st.vals)) }

type countState struct{ n int64 }

func (st *countState) add(Value, Value) (int64, error) {
	st.n++
	return 0, nil
}

func (st *countState) result() Value { return LongValue(st.n) }

// stdDevState is Welford's online algorithm.
type stdDevState struct {
	n        int64
	mean, m2 float64
	samp     bool
}

func (st *stdDevState) add(v, _ Value) (int64, error) {
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

func (st *stdDevState) result() Value {
	switch {
	case st.n == 0, st.samp && st.n < 2:
		return NullValue()
	case st.samp:
		return DoubleValue(math.Sqrt(st.m2 / float64(st.n-1)))
	}
	return DoubleValue(math.Sqrt(st.m2 / float64(st.n)))
}

type mergeState struct {
	out Value
	i   int
}

func (st *mergeState) add(v, _ Value) (int64, error) {
	var err error
	st.i++
	st.out, err = mergeInto("$mergeObjects", st.out, v, st.i-1)
	return valueSize(v), err
}

func (st *mergeState) result() Value { return st.out }
