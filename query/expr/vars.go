package expr

import (
	"slices"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Operators that bind variables: $let, $map, $filter, $reduce.

func registerExprVarsOps() {
	registerOps(map[string]opCompiler{
		"$let":    compileLet,
		"$map":    compileMap,
		"$filter": compileFilterExpr,
		"$reduce": compileReduce,
	})
}

// letNode is $let: evaluate the variables, then the body.
type letNode struct {
	slots []int
	vals  []Node
	in    Node
}

func (n *letNode) Eval(c *EvalCtx) (value.Value, error) {
	vals := make([]value.Value, len(n.vals))
	for i, v := range n.vals {
		x, err := v.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		vals[i] = x
	}
	for i, s := range n.slots {
		c.Vars[s] = vals[i]
	}
	return n.in.Eval(c)
}

func compileLet(c *Compiler, name string, arg value.Value) (Node, error) {
	if arg.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "$let only supports an object as its argument, found %s", arg.TypeName())
	}
	vars, in := arg.Get("vars"), arg.Get("in")
	for _, f := range arg.Fields() {
		if f.Key != "vars" && f.Key != "in" {
			return nil, errs.Errorf(errs.Invalid, "unrecognized parameter to $let: %s%s", f.Key, errs.DidYouMean(f.Key, []string{"vars", "in"}))
		}
	}
	if vars.IsMissing() {
		return nil, errs.Errorf(errs.Invalid, "missing 'vars' parameter to $let")
	}
	if in.IsMissing() {
		return nil, errs.Errorf(errs.Invalid, "missing 'in' parameter to $let")
	}
	if vars.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "$let: 'vars' must be an object, found %s", vars.TypeName())
	}
	n := &letNode{}
	for _, f := range vars.Fields() {
		if f.Key != "CURRENT" {
			if err := CheckVarName(f.Key); err != nil {
				return nil, err
			}
		}
		v, err := c.Compile(f.Value)
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, v)
	}
	var restores []func()
	for _, f := range vars.Fields() {
		slot, restore := c.Bind(f.Key)
		n.slots = append(n.slots, slot)
		restores = append(restores, restore)
	}
	defer func() {
		for i := len(restores) - 1; i >= 0; i-- {
			restores[i]()
		}
	}()
	body, err := c.Compile(in)
	if err != nil {
		return nil, err
	}
	n.in = body
	return n, nil
}

// iterArgs are the parts shared by $map and $filter.
type iterArgs struct {
	input Node
	slot  int
	body  Node // "in" of $map, "cond" of $filter
	limit Node // $filter only
}

// compileIter compiles {input, as, <bodyKey>, [limit]}.
func compileIter(c *Compiler, name string, arg value.Value, bodyKey string, extra ...string) (*iterArgs, error) {
	if arg.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "%s only supports an object as its argument, found %s", name, arg.TypeName())
	}
	allowed := append([]string{"input", "as", bodyKey}, extra...)
	for _, f := range arg.Fields() {
		if !slices.Contains(allowed, f.Key) {
			return nil, errs.Errorf(errs.Invalid, "unrecognized parameter to %s: %s%s", name, f.Key, errs.DidYouMean(f.Key, allowed))
		}
	}
	for _, k := range []string{"input", bodyKey} {
		if arg.Get(k).IsMissing() {
			return nil, errs.Errorf(errs.Invalid, "missing '%s' parameter to %s", k, name)
		}
	}
	as := "this"
	if a := arg.Get("as"); !a.IsMissing() {
		if a.Kind() != value.String {
			return nil, errs.Errorf(errs.Invalid, "%s: 'as' must be a string, found %s", name, a.TypeName())
		}
		if err := CheckVarName(a.Str()); err != nil {
			return nil, err
		}
		as = a.Str()
	}
	it := &iterArgs{}
	var err error
	if it.input, err = c.Compile(arg.Get("input")); err != nil {
		return nil, err
	}
	if l := arg.Get("limit"); !l.IsMissing() {
		if it.limit, err = c.Compile(l); err != nil {
			return nil, err
		}
	}
	slot, restore := c.Bind(as)
	defer restore()
	it.slot = slot
	if it.body, err = c.Compile(arg.Get(bodyKey)); err != nil {
		return nil, err
	}
	return it, nil
}

// inputArray evaluates the input of $map/$filter: an array, or ok=false
// for null and missing.
func (it *iterArgs) inputArray(c *EvalCtx, name string) ([]value.Value, bool, error) {
	in, err := it.input.Eval(c)
	if err != nil || Nullish(in) {
		return nil, false, err
	}
	if in.Kind() != value.Array {
		return nil, false, errs.Errorf(errs.Invalid, "input to %s must be an array not %s", name, in.TypeName())
	}
	return in.Array(), true, nil
}

type mapNode struct{ *iterArgs }

func (n mapNode) Eval(c *EvalCtx) (value.Value, error) {
	in, ok, err := n.inputArray(c, "$map")
	if !ok {
		return value.NullValue(), err
	}
	out := make([]value.Value, len(in))
	for i, e := range in {
		if err := c.tick(1); err != nil {
			return value.Value{}, err
		}
		c.Vars[n.slot] = e
		v, err := evalElem(n.body, c)
		if err != nil {
			return value.Value{}, err
		}
		out[i] = v
	}
	return value.ArrayValue(out), c.spend(value.ArrayValue(out))
}

func compileMap(c *Compiler, name string, arg value.Value) (Node, error) {
	it, err := compileIter(c, name, arg, "in")
	if err != nil {
		return nil, err
	}
	return mapNode{it}, nil
}

type filterNode struct{ *iterArgs }

func (n filterNode) Eval(c *EvalCtx) (value.Value, error) {
	in, ok, err := n.inputArray(c, "$filter")
	if !ok {
		return value.NullValue(), err
	}
	limit, err := n.filterLimit(c)
	if err != nil {
		return value.Value{}, err
	}
	out := []value.Value{}
	for _, e := range in {
		if limit >= 0 && len(out) >= limit {
			break
		}
		if err := c.tick(1); err != nil {
			return value.Value{}, err
		}
		c.Vars[n.slot] = e
		v, err := n.body.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		if Truthy(v) {
			out = append(out, e)
		}
	}
	return value.ArrayValue(out), c.spend(value.ArrayValue(out))
}

func (n filterNode) filterLimit(c *EvalCtx) (int, error) {
	if n.limit == nil {
		return -1, nil
	}
	l, err := n.limit.Eval(c)
	if err != nil || Nullish(l) {
		return -1, err
	}
	i, ok := ExactInt(l)
	if !ok {
		return 0, errs.Errorf(errs.Invalid, "$filter: limit must be represented as a 32-bit integral value: %s", l)
	}
	if i < 1 {
		return 0, errs.Errorf(errs.Invalid, "$filter: limit must be greater than 0: %d", i)
	}
	return int(min(i, 1<<31)), nil
}

func compileFilterExpr(c *Compiler, name string, arg value.Value) (Node, error) {
	it, err := compileIter(c, name, arg, "cond", "limit")
	if err != nil {
		return nil, err
	}
	return filterNode{it}, nil
}

// reduceNode is $reduce.
type reduceNode struct {
	input, init, in     Node
	thisSlot, valueSlot int
}

func (n *reduceNode) Eval(c *EvalCtx) (value.Value, error) {
	in, err := n.input.Eval(c)
	if err != nil || Nullish(in) {
		return value.NullValue(), err
	}
	if in.Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "$reduce requires an array as the input, found: %s", in.TypeName())
	}
	acc, err := n.init.Eval(c)
	if err != nil {
		return value.Value{}, err
	}
	for _, e := range in.Array() {
		if err := c.tick(1); err != nil {
			return value.Value{}, err
		}
		c.Vars[n.thisSlot], c.Vars[n.valueSlot] = e, acc
		if acc, err = n.in.Eval(c); err != nil {
			return value.Value{}, err
		}
	}
	return acc, nil
}

func compileReduce(c *Compiler, name string, arg value.Value) (Node, error) {
	if arg.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "$reduce requires an object as an argument, found: %s", arg.TypeName())
	}
	n := &reduceNode{}
	m, err := c.Named(name, arg.Without("in"), []string{"input", "initialValue"}, nil)
	if err != nil {
		return nil, err
	}
	if arg.Get("in").IsMissing() {
		return nil, errs.Errorf(errs.Invalid, "missing 'in' parameter to $reduce")
	}
	n.input, n.init = m["input"], m["initialValue"]
	thisSlot, restoreThis := c.Bind("this")
	defer restoreThis()
	valueSlot, restoreValue := c.Bind("value")
	defer restoreValue()
	n.thisSlot, n.valueSlot = thisSlot, valueSlot
	if n.in, err = c.Compile(arg.Get("in")); err != nil {
		return nil, err
	}
	return n, nil
}
