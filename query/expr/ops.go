package query

import (
	"slices"
	"strings"
	"sync"
)

// opCompiler compiles the argument of one expression operator.
type opCompiler func(c *exprCompiler, name string, arg Value) (expression, error)

// exprOps maps each expression operator to its exprCompiler. It is filled by
// the register functions of the expr_*.go files on first use, not at
// package initialisation, which runs on every command (process start).
func exprOps() map[string]opCompiler {
	exprOpsOnce.Do(func() {
		exprOpTable = map[string]opCompiler{}
		// In the order of the files, as their init functions ran.
		for _, register := range []func(){
			registerAccumulatorsNOps,
			registerExprArithOps,
			registerExprArrayOps,
			registerExprDateOps,
			registerExprDatecalcOps,
			registerExprDatefmtOps,
			registerExprDatepartsOps,
			registerExprLogicOps,
			registerExprMathOps,
			registerExprObjectOps,
			registerExprRegexOps,
			registerExprSetOps,
			registerExprStringOps,
			registerExprTypeOps,
			registerExprVarsOps,
		} {
			register()
		}
	})
	return exprOpTable
}

var exprOpsOnce sync.Once

// exprOpTable is the table being filled by exprOps.
var exprOpTable map[string]opCompiler

func registerOps(ops map[string]opCompiler) {
	for k, v := range ops {
		exprOpTable[k] = v
	}
}

// exprOpNames lists the operators, for did-you-mean.
func exprOpNames() []string {
	names := make([]string, 0, len(exprOps()))
	for k := range exprOps() {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// callNode evaluates its arguments, then applies fn to them.
type callNode struct {
	args []expression
	fn   func(args []Value) (Value, error)
}

func (n *callNode) eval(c *evalCtx) (Value, error) {
	vals := make([]Value, len(n.args))
	for i, a := range n.args {
		v, err := a.eval(c)
		if err != nil {
			return Value{}, err
		}
		vals[i] = v
	}
	out, err := n.fn(vals)
	if err != nil {
		return Value{}, err
	}
	return out, c.spend(out)
}

// call1Node is callNode for one argument.
type call1Node struct {
	arg expression
	fn  func(Value) (Value, error)
}

func (n *call1Node) eval(c *evalCtx) (Value, error) {
	v, err := n.arg.eval(c)
	if err != nil {
		return Value{}, err
	}
	out, err := n.fn(v)
	if err != nil {
		return Value{}, err
	}
	return out, c.spend(out)
}

// argList returns an operator's arguments: the elements of an array, or
// the value itself as the only argument.
func argList(arg Value) []Value {
	if arg.Kind() == Array {
		return arg.Array()
	}
	return []Value{arg}
}

// args compiles an operator's positional arguments, checking that there
// are between min and max of them (max < 0: no upper bound).
func (c *exprCompiler) args(name string, arg Value, min, max int) ([]expression, error) {
	list := argList(arg)
	if err := checkArity(name, len(list), min, max); err != nil {
		return nil, err
	}
	nodes := make([]expression, len(list))
	for i, a := range list {
		n, err := c.expr(a)
		if err != nil {
			return nil, err
		}
		nodes[i] = n
	}
	return nodes, nil
}

func checkArity(name string, n, min, max int) error {
	switch {
	case min == max && n != min:
		return Errorf(Invalid, "expression %s takes exactly %d argument%s, %d were passed in", name, min, plural(min), n)
	case n < min && max < 0:
		return Errorf(Invalid, "expression %s takes at least %d argument%s, %d were passed in", name, min, plural(min), n)
	case n < min || (max >= 0 && n > max):
		return Errorf(Invalid, "expression %s takes at least %d and at most %d arguments, %d were passed in", name, min, max, n)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// fixedOp is an operator of exactly n evaluated arguments.
func fixedOp(n int, fn func([]Value) (Value, error)) opCompiler {
	return rangeOp(n, n, fn)
}

// rangeOp is an operator of min to max evaluated arguments.
func rangeOp(min, max int, fn func([]Value) (Value, error)) opCompiler {
	return func(c *exprCompiler, name string, arg Value) (expression, error) {
		args, err := c.args(name, arg, min, max)
		if err != nil {
			return nil, err
		}
		return &callNode{args, fn}, nil
	}
}

// unaryOp is an operator of one evaluated argument, written bare or as a
// one-element array.
func unaryOp(fn func(Value) (Value, error)) opCompiler {
	return func(c *exprCompiler, name string, arg Value) (expression, error) {
		args, err := c.args(name, arg, 1, 1)
		if err != nil {
			return nil, err
		}
		return &call1Node{args[0], fn}, nil
	}
}

// named compiles an operator's named arguments ({"input":…, "n":…}). Keys
// outside required and optional are errors; absent optional ones are nil.
func (c *exprCompiler) named(name string, arg Value, required, optional []string) (map[string]expression, error) {
	if arg.Kind() != Object {
		return nil, Errorf(Invalid, "%s expects an object of named arguments (%s), found %s", name, strings.Join(append(slices.Clone(required), optional...), ", "), arg.TypeName())
	}
	out := make(map[string]expression, arg.Len())
	for _, f := range arg.Fields() {
		if !slices.Contains(required, f.Key) && !slices.Contains(optional, f.Key) {
			all := append(slices.Clone(required), optional...)
			return nil, Errorf(Invalid, "%s found an unknown argument: %s%s", name, f.Key, DidYouMean(f.Key, all))
		}
		n, err := c.expr(f.Value)
		if err != nil {
			return nil, err
		}
		out[f.Key] = n
	}
	for _, r := range required {
		if out[r] == nil {
			return nil, Errorf(Invalid, "missing '%s' parameter to %s", r, name)
		}
	}
	return out, nil
}

// evalOpt evaluates an optional argument; absent ones are missing.
func evalOpt(n expression, c *evalCtx) (Value, error) {
	if n == nil {
		return MissingValue, nil
	}
	return n.eval(c)
}

// nullish reports whether v is null or missing.
func nullish(v Value) bool { return v.Kind() == Null || v.Kind() == Missing }

// exprCompare is the comparison of the aggregation language: Compare,
// except that missing orders below null instead of equal to it.
func exprCompare(a, b Value) int {
	am, bm := a.IsMissing(), b.IsMissing()
	switch {
	case am && bm:
		return 0
	case am:
		return -1
	case bm:
		return 1
	}
	return Compare(a, b)
}

// typeError is the error for an operand of the wrong type.
func typeError(op, want string, got Value) *Error {
	return Errorf(Invalid, "%s only supports %s, not %s", op, want, got.TypeName())
}
