package query

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
	vals  []expression
	in    expression
}

func (n *letNode) eval(c *evalCtx) (Value, error) {
	vals := make([]Value, len(n.vals))
	for i, v := range n.vals {
		x, err := v.eval(c)
		if err != nil {
			return Value{}, err
		}
		vals[i] = x
	}
	for i, s := range n.slots {
		c.vars[s] = vals[i]
	}
	return n.in.eval(c)
}

func compileLet(c *exprCompiler, name string, arg Value) (expression, error) {
	if arg.Kind() != Object {
		return nil, Errorf(Invalid, "$let only supports an object as its argument, found %s", arg.TypeName())
	}
	vars, in := arg.Get("vars"), arg.Get("in")
	for _, f := range arg.Fields() {
		if f.Key != "vars" && f.Key != "in" {
			return nil, Errorf(Invalid, "unrecognized parameter to $let: %s%s", f.Key, DidYouMean(f.Key, []string{"vars", "in"}))
		}
	}
	if vars.IsMissing() {
		return nil, Errorf(Invalid, "missing 'vars' parameter to $let")
	}
	if in.IsMissing() {
		return nil, Errorf(Invalid, "missing 'in' parameter to $let")
	}
	if vars.Kind() != Object {
		return nil, Errorf(Invalid, "$let: 'vars' must be an object, found %s", vars.TypeName())
	}
	n := &letNode{}
	for _, f := range vars.Fields() {
		if f.Key != "CURRENT" {
			if err := checkVarName(f.Key); err != nil {
				return nil, err
			}
		}
		v, err := c.expr(f.Value)
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, v)
	}
	var restores []func()
	for _, f := range vars.Fields() {
		slot, restore := c.bind(f.Key)
		n.slots = append(n.slots, slot)
		restores = append(restores, restore)
	}
	defer func() {
		for i := len(restores) - 1; i >= 0; i-- {
			restores[i]()
		}
	}()
	body, err := c.expr(in)
	if err != nil {
		return nil, err
	}
	n.in = body
	return n, nil
}

// iterArgs are the parts shared by $map and $filter.
type iterArgs struct {
	input expression
	slot  int
	body  expression // "in" of $map, "cond" of $filter
	limit expression // $filter only
}

// compileIter compiles {input, as, <bodyKey>, [limit]}.
func compileIter(c *exprCompiler, name string, arg Value, bodyKey string, extra ...string) (*iterArgs, error) {
	if arg.Kind() != Object {
		return nil, Errorf(Invalid, "%s only supports an object as its argument, found %s", name, arg.TypeName())
	}
	allowed := append([]string{"input", "as", bodyKey}, extra...)
	for _, f := range arg.Fields() {
		if !contains(allowed, f.Key) {
			return nil, Errorf(Invalid, "unrecognized parameter to %s: %s%s", name, f.Key, DidYouMean(f.Key, allowed))
		}
	}
	for _, k := range []string{"input", bodyKey} {
		if arg.Get(k).IsMissing() {
			return nil, Errorf(Invalid, "missing '%s' parameter to %s", k, name)
		}
	}
	as := "this"
	if a := arg.Get("as"); !a.IsMissing() {
		if a.Kind() != String {
			return nil, Errorf(Invalid, "%s: 'as' must be a string, found %s", name, a.TypeName())
		}
		if err := checkVarName(a.Str()); err != nil {
			return nil, err
		}
		as = a.Str()
	}
	it := &iterArgs{}
	var err error
	if it.input, err = c.expr(arg.Get("input")); err != nil {
		return nil, err
	}
	if l := arg.Get("limit"); !l.IsMissing() {
		if it.limit, err = c.expr(l); err != nil {
			return nil, err
		}
	}
	slot, restore := c.bind(as)
	defer restore()
	it.slot = slot
	if it.body, err = c.expr(arg.Get(bodyKey)); err != nil {
		return nil, err
	}
	return it, nil
}

// inputArray evaluates the input of $map/$filter: an array, or ok=false
// for null and missing.
func (it *iterArgs) inputArray(c *evalCtx, name string) ([]Value, bool, error) {
	in, err := it.input.eval(c)
	if err != nil || nullish(in) {
		return nil, false, err
	}
	if in.Kind() != Array {
		return nil, false, Errorf(Invalid, "input to %s must be an array not %s", name, in.TypeName())
	}
	return in.Array(), true, nil
}

type mapNode struct{ *iterArgs }

func (n mapNode) eval(c *evalCtx) (Value, error) {
	in, ok, err := n.inputArray(c, "$map")
	if !ok {
		return NullValue(), err
	}
	out := make([]Value, len(in))
	for i, e := range in {
		c.vars[n.slot] = e
		v, err := evalElem(n.body, c)
		if err != nil {
			return Value{}, err
		}
		out[i] = v
	}
	return ArrayValue(out), c.spend(ArrayValue(out))
}

func compileMap(c *exprCompiler, name string, arg Value) (expression, error) {
	it, err := compileIter(c, name, arg, "in")
	if err != nil {
		return nil, err
	}
	return mapNode{it}, nil
}

type filterNode struct{ *iterArgs }

func (n filterNode) eval(c *evalCtx) (Value, error) {
	in, ok, err := n.inputArray(c, "$filter")
	if !ok {
		return NullValue(), err
	}
	limit, err := n.filterLimit(c)
	if err != nil {
		return Value{}, err
	}
	out := []Value{}
	for _, e := range in {
		if limit >= 0 && len(out) >= limit {
			break
		}
		c.vars[n.slot] = e
		v, err := n.body.eval(c)
		if err != nil {
			return Value{}, err
		}
		if truthy(v) {
			out = append(out, e)
		}
	}
	return ArrayValue(out), c.spend(ArrayValue(out))
}

func (n filterNode) filterLimit(c *evalCtx) (int, error) {
	if n.limit == nil {
		return -1, nil
	}
	l, err := n.limit.eval(c)
	if err != nil || nullish(l) {
		return -1, err
	}
	i, ok := exactInt(l)
	if !ok {
		return 0, Errorf(Invalid, "$filter: limit must be represented as a 32-bit integral value: %s", l)
	}
	if i < 1 {
		return 0, Errorf(Invalid, "$filter: limit must be greater than 0: %d", i)
	}
	return int(min(i, 1<<31)), nil
}

func compileFilterExpr(c *exprCompiler, name string, arg Value) (expression, error) {
	it, err := compileIter(c, name, arg, "cond", "limit")
	if err != nil {
		return nil, err
	}
	return filterNode{it}, nil
}

// reduceNode is $reduce.
type reduceNode struct {
	input, init, in     expression
	thisSlot, valueSlot int
}

func (n *reduceNode) eval(c *evalCtx) (Value, error) {
	in, err := n.input.eval(c)
	if err != nil || nullish(in) {
		return NullValue(), err
	}
	if in.Kind() != Array {
		return Value{}, Errorf(Invalid, "$reduce requires an array as the input, found: %s", in.TypeName())
	}
	acc, err := n.init.eval(c)
	if err != nil {
		return Value{}, err
	}
	for _, e := range in.Array() {
		c.vars[n.thisSlot], c.vars[n.valueSlot] = e, acc
		if acc, err = n.in.eval(c); err != nil {
			return Value{}, err
		}
	}
	return acc, nil
}

func compileReduce(c *exprCompiler, name string, arg Value) (expression, error) {
	if arg.Kind() != Object {
		return nil, Errorf(Invalid, "$reduce requires an object as an argument, found: %s", arg.TypeName())
	}
	n := &reduceNode{}
	m, err := c.named(name, arg.Without("in"), []string{"input", "initialValue"}, nil)
	if err != nil {
		return nil, err
	}
	if arg.Get("in").IsMissing() {
		return nil, Errorf(Invalid, "missing 'in' parameter to $reduce")
	}
	n.input, n.init = m["input"], m["initialValue"]
	thisSlot, restoreThis := c.bind("this")
	defer restoreThis()
	valueSlot, restoreValue := c.bind("value")
	defer restoreValue()
	n.thisSlot, n.valueSlot = thisSlot, valueSlot
	if n.in, err = c.expr(arg.Get("in")); err != nil {
		return nil, err
	}
	return n, nil
}
