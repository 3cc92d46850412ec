package query

import (
	"slices"
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
	vals []Value
	last bool
}

func (st *firstNState) add(v, _ Value) (int64, error) {
	if v.IsMissing() {
		v = NullValue()
	}
	if len(st.vals) < st.n {
		st.vals = append(st.vals, v)
		return valueSize(v), nil
	}
	if st.last {
		copy(st.vals, st.vals[1:])
		st.vals[len(st.vals)-1] = v
		return valueSize(v), nil
	}
	return 0, nil
}

func (st *firstNState) result() Value { return ArrayValue(slices.Clone(st.vals)) }

// extremeNState keeps the n greatest (or least) values, ignoring null and
// missing; the result is ordered greatest first for $maxN, least first for
// $minN.
type extremeNState struct {
	n    int
	vals []Value
	max  bool
}

func (st *extremeNState) before(a, b Value) bool {
	if st.max {
		return Compare(a, b) > 0
	}
	return Compare(a, b) < 0
}

func (st *extremeNState) add(v, _ Value) (int64, error) {
	if nullish(v) {
		return 0, nil
	}
	i, _ := slices.BinarySearchFunc(st.vals, v, func(e, t Value) int {
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
	return valueSize(v), nil
}

func (st *extremeNState) result() Value { return ArrayValue(slices.Clone(st.vals)) }

// topState keeps the n documents that sort first ($top/$topN) or last
// ($bottom/$bottomN) by sortBy, and their output values.
type topState struct {
	n      int
	sort   *sortSpec
	single bool
	bottom bool
	items  []topItem
}

type topItem struct {
	keys []sortVal
	v    Value
}

func (st *topState) add(v, doc Value) (int64, error) {
	if v.IsMissing() {
		v = NullValue()
	}
	keys := st.sort.keys(doc)
	// Items stay in sort order, equal keys in arrival order.
	i, _ := slices.BinarySearchFunc(st.items, keys, func(e topItem, k []sortVal) int {
		if st.sort.compareKeys(e.keys, k) <= 0 {
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
	return valueSize(v), nil
}

func (st *topState) result() Value {
	if st.single {
		switch {
		case len(st.items) == 0:
			return NullValue()
		case st.bottom:
			return st.items[len(st.items)-1].v
		}
		return st.items[0].v
	}
	out := make([]Value, len(st.items))
	for i, it := range st.items {
		out[i] = it.v
	}
	return ArrayValue(out)
}

// arrayNNode is the array operator form of $firstN/$lastN/$maxN/$minN:
// {n, input}.
type arrayNNode struct {
	op       string
	n, input expression
	last     bool
	extreme  bool
}

func arrayNOp(last, extreme bool) opCompiler {
	return func(c *exprCompiler, name string, arg Value) (expression, error) {
		m, err := c.named(name, arg, []string{"n", "input"}, nil)
		if err != nil {
			return nil, err
		}
		return &arrayNNode{name, m["n"], m["input"], last, extreme}, nil
	}
}

func (a *arrayNNode) eval(c *evalCtx) (Value, error) {
	nv, err := a.n.eval(c)
	if err != nil {
		return Value{}, err
	}
	n, err := positiveN(a.op, nv)
	if err != nil {
		return Value{}, err
	}
	in, err := a.input.eval(c)
	if err != nil || nullish(in) {
		return NullValue(), err
	}
	if in.Kind() != Array {
		return Value{}, Errorf(Invalid, "%s: 'input' must be an array, found %s", a.op, in.TypeName())
	}
	var st accState = &firstNState{n: n, last: a.last}
	if a.extreme {
		st = &extremeNState{n: n, max: a.op == "$maxN"}
	}
	for _, e := range in.Array() {
		if _, err := st.add(e, MissingValue); err != nil {
			return Value{}, err
		}
	}
	return st.result(), nil
}

// accExprNode is an accumulator used as an expression: over the elements
// of its one array argument, or over its arguments.
type accExprNode struct {
	op     string
	args   []expression
	single bool
}

func accumulatorExprOp(op string) opCompiler {
	return func(c *exprCompiler, name string, arg Value) (expression, error) {
		args, err := c.args(name, arg, 0, -1)
		if err != nil {
			return nil, err
		}
		return &accExprNode{op: name, args: args, single: arg.Kind() != Array || arg.Len() == 1}, nil
	}
}

func (n *accExprNode) eval(c *evalCtx) (Value, error) {
	st := accumulatorMakers[n.op](0, nil)
	vals := make([]Value, 0, len(n.args))
	for _, a := range n.args {
		v, err := a.eval(c)
		if err != nil {
			return Value{}, err
		}
		vals = append(vals, v)
	}
	if n.single && len(vals) == 1 && vals[0].Kind() == Array {
		vals = vals[0].Array()
	}
	for _, v := range vals {
		if _, err := st.add(v, MissingValue); err != nil {
			return Value{}, err
		}
	}
	return st.result(), nil
}
