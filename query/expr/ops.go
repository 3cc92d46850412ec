package expr

import (
	"slices"
	"strings"
	"sync"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// opCompiler compiles the argument of one expression operator.
type opCompiler func(c *Compiler, name string, arg value.Value) (Node, error)

// exprOps maps each expression operator to its opCompiler. It is filled by
// the register functions of the operators' files on first use, not at
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
			registerExprMetaOps,
			registerExprObjectOps,
			registerPercentileOps,
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
	args []Node
	fn   func(args []value.Value) (value.Value, error)
}

func (n *callNode) Eval(c *EvalCtx) (value.Value, error) {
	vals, err := evalArgs(c, n.args)
	if err == nil {
		err = c.tickArgs(vals)
	}
	if err != nil {
		return value.Value{}, err
	}
	out, err := n.fn(vals)
	if err != nil {
		return value.Value{}, err
	}
	return out, c.spend(out)
}

// evalArgs evaluates an operator's arguments.
func evalArgs(c *EvalCtx, args []Node) ([]value.Value, error) {
	vals := make([]value.Value, len(args))
	for i, a := range args {
		v, err := a.Eval(c)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// tickArgs counts the steps of reading an operator's arguments: the
// operators called through callNode take time in proportion to them.
func (c *EvalCtx) tickArgs(vals []value.Value) error {
	n := int64(1)
	for _, v := range vals {
		switch v.Kind() {
		case value.String:
			n += int64(len(v.Str()) >> 4)
		case value.Array, value.Object:
			n += int64(v.Len())
		}
	}
	return c.tick(n)
}

// call1Node is callNode for one argument.
type call1Node struct {
	arg Node
	fn  func(value.Value) (value.Value, error)
}

func (n *call1Node) Eval(c *EvalCtx) (value.Value, error) {
	v, err := n.arg.Eval(c)
	if err == nil {
		err = c.tickRead(v)
	}
	if err != nil {
		return value.Value{}, err
	}
	out, err := n.fn(v)
	if err != nil {
		return value.Value{}, err
	}
	return out, c.spend(out)
}

// argList returns an operator's arguments: the elements of an array, or
// the value itself as the only argument.
func argList(arg value.Value) []value.Value {
	if arg.Kind() == value.Array {
		return arg.Array()
	}
	return []value.Value{arg}
}

// args compiles an operator's positional arguments, checking that there
// are between min and max of them (max < 0: no upper bound).
func (c *Compiler) args(name string, arg value.Value, min, max int) ([]Node, error) {
	list := argList(arg)
	if err := checkArity(name, len(list), min, max); err != nil {
		return nil, err
	}
	nodes := make([]Node, len(list))
	for i, a := range list {
		n, err := c.Compile(a)
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
		return errs.Errorf(errs.Invalid, "expression %s takes exactly %d argument%s, %d were passed in", name, min, plural(min), n)
	case n < min && max < 0:
		return errs.Errorf(errs.Invalid, "expression %s takes at least %d argument%s, %d were passed in", name, min, plural(min), n)
	case n < min || (max >= 0 && n > max):
		return errs.Errorf(errs.Invalid, "expression %s takes at least %d and at most %d arguments, %d were passed in", name, min, max, n)
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
func fixedOp(n int, fn func([]value.Value) (value.Value, error)) opCompiler {
	return rangeOp(n, n, fn)
}

// rangeOp is an operator of min to max evaluated arguments.
func rangeOp(min, max int, fn func([]value.Value) (value.Value, error)) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		args, err := c.args(name, arg, min, max)
		if err != nil {
			return nil, err
		}
		return &callNode{args, fn}, nil
	}
}

// unaryOp is an operator of one evaluated argument, written bare or as a
// one-element array.
func unaryOp(fn func(value.Value) (value.Value, error)) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		args, err := c.args(name, arg, 1, 1)
		if err != nil {
			return nil, err
		}
		return &call1Node{args[0], fn}, nil
	}
}

// Named compiles an operator's named arguments ({"input":…, "n":…}). Keys
// outside required and optional are errors; absent optional ones are nil.
func (c *Compiler) Named(name string, arg value.Value, required, optional []string) (map[string]Node, error) {
	if arg.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "%s expects an object of named arguments (%s), found %s", name, strings.Join(append(slices.Clone(required), optional...), ", "), arg.TypeName())
	}
	out := make(map[string]Node, arg.Len())
	for _, f := range arg.Fields() {
		if !slices.Contains(required, f.Key) && !slices.Contains(optional, f.Key) {
			all := append(slices.Clone(required), optional...)
			return nil, errs.Errorf(errs.Invalid, "%s found an unknown argument: %s%s", name, f.Key, errs.DidYouMean(f.Key, all))
		}
		n, err := c.Compile(f.Value)
		if err != nil {
			return nil, err
		}
		out[f.Key] = n
	}
	for _, r := range required {
		if out[r] == nil {
			return nil, errs.Errorf(errs.Invalid, "missing '%s' parameter to %s", r, name)
		}
	}
	return out, nil
}

// evalOpt evaluates an optional argument; absent ones are missing.
func evalOpt(n Node, c *EvalCtx) (value.Value, error) {
	if n == nil {
		return value.MissingValue, nil
	}
	return n.Eval(c)
}

// Nullish reports whether v is null or missing.
func Nullish(v value.Value) bool { return v.Kind() == value.Null || v.Kind() == value.Missing }

// exprCompare is the comparison of the aggregation language: Compare,
// except that missing orders below null instead of equal to it.
func exprCompare(a, b value.Value) int {
	am, bm := a.IsMissing(), b.IsMissing()
	switch {
	case am && bm:
		return 0
	case am:
		return -1
	case bm:
		return 1
	}
	return value.Compare(a, b)
}

// typeError is the error for an operand of the wrong type.
func typeError(op, want string, got value.Value) *errs.Error {
	return errs.Errorf(errs.Invalid, "%s only supports %s, not %s", op, want, got.TypeName())
}
