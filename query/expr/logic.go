package query

// Comparison, boolean and conditional operators, and $literal.

func registerExprLogicOps() {
	registerOps(map[string]opCompiler{
		"$eq":      compareOp(func(c int) bool { return c == 0 }),
		"$ne":      compareOp(func(c int) bool { return c != 0 }),
		"$gt":      compareOp(func(c int) bool { return c > 0 }),
		"$gte":     compareOp(func(c int) bool { return c >= 0 }),
		"$lt":      compareOp(func(c int) bool { return c < 0 }),
		"$lte":     compareOp(func(c int) bool { return c <= 0 }),
		"$cmp":     fixedOp(2, func(a []Value) (Value, error) { return LongValue(int64(exprCompare(a[0], a[1]))), nil }),
		"$and":     compileAndOr(true),
		"$or":      compileAndOr(false),
		"$not":     unaryOp(func(v Value) (Value, error) { return BoolValue(!truthy(v)), nil }),
		"$cond":    compileCond,
		"$ifNull":  compileIfNull,
		"$switch":  compileSwitch,
		"$literal": func(_ *exprCompiler, _ string, arg Value) (expression, error) { return literal{arg}, nil },
	})
}

func compareOp(test func(int) bool) opCompiler {
	return fixedOp(2, func(a []Value) (Value, error) {
		return BoolValue(test(exprCompare(a[0], a[1]))), nil
	})
}

// andOrNode is $and (all true) or $or (any true), short-circuiting.
type andOrNode struct {
	args []expression
	and  bool
}

func (n *andOrNode) eval(c *evalCtx) (Value, error) {
	for _, a := range n.args {
		v, err := a.eval(c)
		if err != nil {
			return Value{}, err
		}
		if truthy(v) != n.and {
			return BoolValue(!n.and), nil
		}
	}
	return BoolValue(n.and), nil
}

func compileAndOr(and bool) opCompiler {
	return func(c *exprCompiler, name string, arg Value) (expression, error) {
		args, err := c.args(name, arg, 0, -1)
		if err != nil {
			return nil, err
		}
		return &andOrNode{args, and}, nil
	}
}

// condNode is $cond.
type condNode struct{ test, then, els expression }

func (n *condNode) eval(c *evalCtx) (Value, error) {
	v, err := n.test.eval(c)
	if err != nil {
		return Value{}, err
	}
	if truthy(v) {
		return n.then.eval(c)
	}
	return n.els.eval(c)
}

func compileCond(c *exprCompiler, name string, arg Value) (expression, error) {
	if arg.Kind() == Object {
		m, err := c.named(name, arg, []string{"if", "then", "else"}, nil)
		if err != nil {
			return nil, err
		}
		return &condNode{m["if"], m["then"], m["else"]}, nil
	}
	args, err := c.args(name, arg, 3, 3)
	if err != nil {
		return nil, err
	}
	return &condNode{args[0], args[1], args[2]}, nil
}

// ifNullNode is $ifNull: the first argument that is neither null nor
// missing, else the last argument as it is.
type ifNullNode struct{ args []expression }

func (n *ifNullNode) eval(c *evalCtx) (Value, error) {
	last := len(n.args) - 1
	for _, a := range n.args[:last] {
		v, err := a.eval(c)
		if err != nil {
			return Value{}, err
		}
		if !nullish(v) {
			return v, nil
		}
	}
	return n.args[last].eval(c)
}

func compileIfNull(c *exprCompiler, name string, arg Value) (expression, error) {
	args, err := c.args(name, arg, 2, -1)
	if err != nil {
		return nil, err
	}
	return &ifNullNode{args}, nil
}

// switchNode is $switch.
type switchNode struct {
	cases, thens []expression
	def          expression
}

func (n *switchNode) eval(c *evalCtx) (Value, error) {
	for i, cs := range n.cases {
		v, err := cs.eval(c)
		if err != nil {
			return Value{}, err
		}
		if truthy(v) {
			return n.thens[i].eval(c)
		}
	}
	if n.def == nil {
		return Value{}, Errorf(Invalid, "$switch could not find a matching branch for an input, and no default was specified").
			WithHint(`add "default" to the $switch`)
	}
	return n.def.eval(c)
}

func compileSwitch(c *exprCompiler, name string, arg Value) (expression, error) {
	if arg.Kind() != Object {
		return nil, Errorf(Invalid, "$switch requires an object as an argument, found: %s", arg.TypeName())
	}
	n := &switchNode{}
	for _, f := range arg.Fields() {
		switch f.Key {
		case "branches":
			if f.Value.Kind() != Array {
				return nil, Errorf(Invalid, "$switch expected an array for 'branches', found: %s", f.Value.TypeName())
			}
			for _, b := range f.Value.Array() {
				if err := n.branch(c, b); err != nil {
					return nil, err
				}
			}
		case "default":
			d, err := c.expr(f.Value)
			if err != nil {
				return nil, err
			}
			n.def = d
		default:
			return nil, Errorf(Invalid, "$switch found an unknown argument: %s%s", f.Key, DidYouMean(f.Key, []string{"branches", "default"}))
		}
	}
	if len(n.cases) == 0 {
		return nil, Errorf(Invalid, "$switch requires at least one branch")
	}
	return n, nil
}

func (n *switchNode) branch(c *exprCompiler, b Value) error {
	if b.Kind() != Object {
		return Errorf(Invalid, "$switch expected each branch to be an object, found: %s", b.TypeName())
	}
	m, err := c.named("$switch branch", b, []string{"case", "then"}, nil)
	if err != nil {
		return err
	}
	n.cases = append(n.cases, m["case"])
	n.thens = append(n.thens, m["then"])
	return nil
}
