package expr

import (
	"slices"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// The N accumulators ($firstN, $lastN, $maxN, $minN, $top, $bottom,
// $topN, $bottomN), the array operators of the same names, and the
// expression forms of $sum, $avg, $min, $max, $stdDevPop, $stdDevSamp.

func registerAccumulatorsNOps() {
	ops := map[string]opCompiler{
		"$firstN": arrayNOp(false, false),
		"$lastN":  arrayNOp(true, false),
		"$maxN":   arrayNOp(false, true),
		"$minN":   arrayNOp(false, true),
	}
	for _, op := range []string{"$sum", "$avg", "$min", "$max", "$stdDevPop", "$stdDevSamp"} {
		ops[op] = accumulatorExprOp(op)
	}
	registerOps(ops)
}

// firstNState keeps the first (or last) n values; missing becomes null.
type firstNState struct {
	n    int
	vals []value.Value
	last bool
}

func (st *firstNState) Add(v, _ value.Value) (int64, error) {
	if v.IsMissing() {
		v = value.NullValue()
	}
	if len(st.vals) < st.n {
		st.vals = append(st.vals, v)
		return value.Size(v), nil
	}
	if st.last {
		copy(st.vals, st.vals[1:])
		st.vals[len(st.vals)-1] = v
		return value.Size(v), nil
	}
	return 0, nil
}

func (st *firstNState) Result() value.Value { return value.ArrayValue(slices.Clone(st.vals)) }

// extremeNState keeps the n greatest (or least) values, ignoring null and
// missing; the result is ordered greatest first for $maxN, least first for
// $minN.
type extremeNState struct {
	n    int
	vals []value.Value
	max  bool
}

func (st *extremeNState) before(a, b value.Value) bool {
	if st.max {
		return value.Compare(a, b) > 0
	}
	return value.Compare(a, b) < 0
}

func (st *extremeNState) Add(v, _ value.Value) (int64, error) {
	if Nullish(v) {
		return 0, nil
	}
	i, _ := slices.BinarySearchFunc(st.vals, v, func(e, t value.Value) int {
		if st.before(t, e) {
			return 1
		}
		return -1
	})
	if i >= st.n {
		return 0, nil
	}
	st.vals = slices.Insert(st.vals, i, v)
	if len(st.vals) > st.n {
		st.vals = st.vals[:st.n]
	}
	return value.Size(v), nil
}

func (st *extremeNState) Result() value.Value { return value.ArrayValue(slices.Clone(st.vals)) }

// topState keeps the n documents that sort first ($top/$topN) or last
// ($bottom/$bottomN) by sortBy, and their output values.
type topState struct {
	n      int
	sort   *value.SortSpec
	single bool
	bottom bool
	items  []topItem
}

type topItem struct {
	keys []value.SortVal
	v    value.Value
}

func (st *topState) Add(v, doc value.Value) (int64, error) {
	if v.IsMissing() {
		v = value.NullValue()
	}
	keys := st.sort.Keys(doc)
	// Items stay in sort order, equal keys in arrival order.
	i, _ := slices.BinarySearchFunc(st.items, keys, func(e topItem, k []value.SortVal) int {
		if st.sort.CompareKeys(e.keys, k) <= 0 {
			return -1
		}
		return 1
	})
	full := len(st.items) >= st.n
	if full && ((!st.bottom && i >= st.n) || (st.bottom && i == 0)) {
		return 0, nil
	}
	st.items = slices.Insert(st.items, i, topItem{keys, v})
	if len(st.items) > st.n {
		if st.bottom {
			st.items = st.items[1:]
		} else {
			st.items = st.items[:st.n]
		}
	}
	return value.Size(v), nil
}

func (st *topState) Result() value.Value {
	if st.single {
		switch {
		case len(st.items) == 0:
			return value.NullValue()
		case st.bottom:
			return st.items[len(st.items)-1].v
		}
		return st.items[0].v
	}
	out := make([]value.Value, len(st.items))
	for i, it := range st.items {
		out[i] = it.v
	}
	return value.ArrayValue(out)
}

// arrayNNode is the array operator form of $firstN/$lastN/$maxN/$minN:
// {n, input}.
type arrayNNode struct {
	op       string
	n, input Node
	last     bool
	extreme  bool
}

func arrayNOp(last, extreme bool) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		m, err := c.Named(name, arg, []string{"n", "input"}, nil)
		if err != nil {
			return nil, err
		}
		return &arrayNNode{name, m["n"], m["input"], last, extreme}, nil
	}
}

func (a *arrayNNode) Eval(c *EvalCtx) (value.Value, error) {
	nv, err := a.n.Eval(c)
	if err != nil {
		return value.Value{}, err
	}
	n, err := positiveN(a.op, nv)
	if err != nil {
		return value.Value{}, err
	}
	in, err := a.input.Eval(c)
	if err != nil || Nullish(in) {
		return value.NullValue(), err
	}
	if in.Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s: 'input' must be an array, found %s", a.op, in.TypeName())
	}
	if err := c.tickRead(in); err != nil {
		return value.Value{}, err
	}
	var st AccumulatorState = &firstNState{n: n, last: a.last}
	if a.extreme {
		st = &extremeNState{n: n, max: a.op == "$maxN"}
	}
	for _, e := range in.Array() {
		if _, err := st.Add(e, value.MissingValue); err != nil {
			return value.Value{}, err
		}
	}
	return st.Result(), nil
}

// accExprNode is an accumulator used as an expression: over the elements
// of its one array argument, or over its arguments.
type accExprNode struct {
	op     string
	args   []Node
	single bool
}

func accumulatorExprOp(op string) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		args, err := c.args(name, arg, 0, -1)
		if err != nil {
			return nil, err
		}
		return &accExprNode{op: name, args: args, single: arg.Kind() != value.Array || arg.Len() == 1}, nil
	}
}

func (n *accExprNode) Eval(c *EvalCtx) (value.Value, error) {
	st := accumulatorMakers[n.op](0, nil)
	vals := make([]value.Value, 0, len(n.args))
	for _, a := range n.args {
		v, err := a.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		vals = append(vals, v)
	}
	if n.single && len(vals) == 1 && vals[0].Kind() == value.Array {
		vals = vals[0].Array()
	}
	if err := c.tick(int64(len(vals))); err != nil {
		return value.Value{}, err
	}
	for _, v := range vals {
		if _, err := st.Add(v, value.MissingValue); err != nil {
			return value.Value{}, err
		}
	}
	return st.Result(), nil
}
