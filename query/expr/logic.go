package expr

import (
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Comparison, boolean and conditional operators, and $literal.

func registerExprLogicOps() {
	registerOps(map[string]opCompiler{
		"$eq":  compareOp(func(c int) bool { return c == 0 }),
		"$ne":  compareOp(func(c int) bool { return c != 0 }),
		"$gt":  compareOp(func(c int) bool { return c > 0 }),
		"$gte": compareOp(func(c int) bool { return c >= 0 }),
		"$lt":  compareOp(func(c int) bool { return c < 0 }),
		"$lte": compareOp(func(c int) bool { return c <= 0 }),
		"$cmp": func(c *Compiler, name string, arg value.Value) (Node, error) {
			coll := c.Collation
			return fixedOp(2, func(a []value.Value) (value.Value, error) {
				return value.LongValue(int64(exprCompareColl(coll, a[0], a[1]))), nil
			})(c, name, arg)
		},
		"$and":     compileAndOr(true),
		"$or":      compileAndOr(false),
		"$not":     unaryOp(func(v value.Value) (value.Value, error) { return value.BoolValue(!Truthy(v)), nil }),
		"$cond":    compileCond,
		"$ifNull":  compileIfNull,
		"$switch":  compileSwitch,
		"$literal": func(_ *Compiler, _ string, arg value.Value) (Node, error) { return Literal{arg}, nil },
	})
}

// compareOp is a comparison operator; it compares strings by the
// compiler's collation.
func compareOp(test func(int) bool) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		coll := c.Collation
		return fixedOp(2, func(a []value.Value) (value.Value, error) {
			return value.BoolValue(test(exprCompareColl(coll, a[0], a[1]))), nil
		})(c, name, arg)
	}
}

// exprCompareColl is exprCompare with strings compared by coll.
func exprCompareColl(coll *collation.Collation, a, b value.Value) int {
	if coll == nil {
		return exprCompare(a, b)
	}
	return exprCompare(coll.Map(a), coll.Map(b))
}

// andOrNode is $and (all true) or $or (any true), short-circuiting.
type andOrNode struct {
	args []Node
	and  bool
}

func (n *andOrNode) Eval(c *EvalCtx) (value.Value, error) {
	for _, a := range n.args {
		v, err := a.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		if Truthy(v) != n.and {
			return value.BoolValue(!n.and), nil
		}
	}
	return value.BoolValue(n.and), nil
}

func compileAndOr(and bool) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		args, err := c.args(name, arg, 0, -1)
		if err != nil {
			return nil, err
		}
		return &andOrNode{args, and}, nil
	}
}

// condNode is $cond.
type condNode struct{ test, then, els Node }

func (n *condNode) Eval(c *EvalCtx) (value.Value, error) {
	v, err := n.test.Eval(c)
	if err != nil {
		return value.Value{}, err
	}
	if Truthy(v) {
		return n.then.Eval(c)
	}
	return n.els.Eval(c)
}

func compileCond(c *Compiler, name string, arg value.Value) (Node, error) {
	if arg.Kind() == value.Object {
		m, err := c.Named(name, arg, []string{"if", "then", "else"}, nil)
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
type ifNullNode struct{ args []Node }

func (n *ifNullNode) Eval(c *EvalCtx) (value.Value, error) {
	last := len(n.args) - 1
	for _, a := range n.args[:last] {
		v, err := a.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		if !Nullish(v) {
			return v, nil
		}
	}
	return n.args[last].Eval(c)
}

func compileIfNull(c *Compiler, name string, arg value.Value) (Node, error) {
	args, err := c.args(name, arg, 2, -1)
	if err != nil {
		return nil, err
	}
	return &ifNullNode{args}, nil
}

// switchNode is $switch.
type switchNode struct {
	cases, thens []Node
	def          Node
}

func (n *switchNode) Eval(c *EvalCtx) (value.Value, error) {
	for i, cs := range n.cases {
		v, err := cs.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		if Truthy(v) {
			return n.thens[i].Eval(c)
		}
	}
	if n.def == nil {
		return value.Value{}, errs.Errorf(errs.Invalid, "$switch could not find a matching branch for an input, and no default was specified").
			WithHint(`add "default" to the $switch`)
	}
	return n.def.Eval(c)
}

func compileSwitch(c *Compiler, name string, arg value.Value) (Node, error) {
	if arg.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "$switch requires an object as an argument, found: %s", arg.TypeName())
	}
	n := &switchNode{}
	for _, f := range arg.Fields() {
		switch f.Key {
		case "branches":
			if f.Value.Kind() != value.Array {
				return nil, errs.Errorf(errs.Invalid, "$switch expected an array for 'branches', found: %s", f.Value.TypeName())
			}
			for _, b := range f.Value.Array() {
				if err := n.branch(c, b); err != nil {
					return nil, err
				}
			}
		case "default":
			d, err := c.Compile(f.Value)
			if err != nil {
				return nil, err
			}
			n.def = d
		default:
			return nil, errs.Errorf(errs.Invalid, "$switch found an unknown argument: %s%s", f.Key, errs.DidYouMean(f.Key, []string{"branches", "default"}))
		}
	}
	if len(n.cases) == 0 {
		return nil, errs.Errorf(errs.Invalid, "$switch requires at least one branch")
	}
	return n, nil
}

func (n *switchNode) branch(c *Compiler, b value.Value) error {
	if b.Kind() != value.Object {
		return errs.Errorf(errs.Invalid, "$switch expected each branch to be an object, found: %s", b.TypeName())
	}
	m, err := c.Named("$switch branch", b, []string{"case", "then"}, nil)
	if err != nil {
		return err
	}
	n.cases = append(n.cases, m["case"])
	n.thens = append(n.thens, m["then"])
	return nil
}

// Truthy is MongoDB's conversion of a value to a boolean in aggregation:
// false, null, missing and numeric zero are false; everything else
// (including "", [] and NaN) is true.
func Truthy(v value.Value) bool {
	switch v.Kind() {
	case value.Missing, value.Null:
		return false
	case value.Bool:
		return v.Bool()
	case value.Long:
		return v.Long() != 0
	case value.Double:
		return v.Double() != 0
	case value.Int, value.Decimal:
		return !value.IsInteger(v, 0)
	}
	return true
}
