package expr

import (
	"math"
	"math/rand/v2"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Trigonometry, bitwise operators, $rand and $binarySize.

func registerExprMathOps() {
	trig := map[string]struct {
		f      func(float64) float64
		lo, hi float64 // the domain, inclusive
	}{
		"$sin": {math.Sin, math.Inf(-1), math.Inf(1)}, "$cos": {math.Cos, math.Inf(-1), math.Inf(1)},
		"$tan": {math.Tan, math.Inf(-1), math.Inf(1)}, "$asin": {math.Asin, -1, 1}, "$acos": {math.Acos, -1, 1},
		"$atan": {math.Atan, math.Inf(-1), math.Inf(1)}, "$sinh": {math.Sinh, math.Inf(-1), math.Inf(1)},
		"$cosh": {math.Cosh, math.Inf(-1), math.Inf(1)}, "$tanh": {math.Tanh, math.Inf(-1), math.Inf(1)},
		"$asinh": {math.Asinh, math.Inf(-1), math.Inf(1)}, "$acosh": {math.Acosh, 1, math.Inf(1)},
		"$atanh":            {math.Atanh, -1, 1},
		"$degreesToRadians": {func(x float64) float64 { return x * math.Pi / 180 }, math.Inf(-1), math.Inf(1)},
		"$radiansToDegrees": {func(x float64) float64 { return x * 180 / math.Pi }, math.Inf(-1), math.Inf(1)},
	}
	ops := map[string]opCompiler{
		"$atan2":      fixedOp(2, atan2Values),
		"$bitAnd":     rangeOp(0, -1, bitOp("$bitAnd", -1, func(a, b int64) int64 { return a & b })),
		"$bitOr":      rangeOp(0, -1, bitOp("$bitOr", 0, func(a, b int64) int64 { return a | b })),
		"$bitXor":     rangeOp(0, -1, bitOp("$bitXor", 0, func(a, b int64) int64 { return a ^ b })),
		"$bitNot":     unaryOp(bitNot),
		"$rand":       randOp,
		"$binarySize": unaryOp(binarySize),
	}
	for name, t := range trig {
		ops[name] = unaryOp(trigOp(name, t.f, t.lo, t.hi))
	}
	registerOps(ops)
}

// trigOp is a one-number operator whose argument must lie in [lo, hi];
// for the unbounded ones, infinities are out of the domain.
func trigOp(op string, f func(float64) float64, lo, hi float64) func(value.Value) (value.Value, error) {
	return func(v value.Value) (value.Value, error) {
		if ok, err := number(op, v); !ok {
			return value.NullValue(), err
		}
		x := v.Float()
		finite := math.IsInf(lo, -1) && math.IsInf(hi, 1) && op != "$atan" && op != "$tanh"
		switch {
		case math.IsNaN(x):
		case finite && math.IsInf(x, 0):
			return value.Value{}, errs.Errorf(errs.Invalid, "cannot apply %s to %s, value must be finite", op, v)
		case x < lo || x > hi:
			if math.IsInf(hi, 1) {
				return value.Value{}, errs.Errorf(errs.Invalid, "cannot apply %s to %s, value must be at least %g", op, v, lo)
			}
			return value.Value{}, errs.Errorf(errs.Invalid, "cannot apply %s to %s, value must be in [%g,%g]", op, v, lo, hi)
		}
		return value.DoubleValue(f(x)), nil
	}
}

func atan2Values(a []value.Value) (value.Value, error) {
	if ok, err := twoNumbers("$atan2", a); !ok {
		return value.NullValue(), err
	}
	return value.DoubleValue(math.Atan2(a[0].Float(), a[1].Float())), nil
}

// bitOp folds longs with f, starting from identity.
func bitOp(op string, identity int64, f func(a, b int64) int64) func([]value.Value) (value.Value, error) {
	return func(args []value.Value) (value.Value, error) {
		r := identity
		for _, v := range args {
			switch v.Kind() {
			case value.Missing, value.Null:
				return value.NullValue(), nil
			case value.Long, value.Int:
				r = f(r, v.Long())
			default:
				return value.Value{}, errs.Errorf(errs.Invalid, "%s only supports int and long operands, not %s", op, v.TypeName())
			}
		}
		return value.LongValue(r), nil
	}
}

func bitNot(v value.Value) (value.Value, error) {
	switch v.Kind() {
	case value.Missing, value.Null:
		return value.NullValue(), nil
	case value.Long, value.Int:
		return value.LongValue(^v.Long()), nil
	}
	return value.Value{}, errs.Errorf(errs.Invalid, "$bitNot only supports int and long, not %s", v.TypeName())
}

// randNode is $rand: a double in [0, 1), different on every evaluation.
type randNode struct{}

func (randNode) Eval(*EvalCtx) (value.Value, error) { return value.DoubleValue(rand.Float64()), nil }

func randOp(_ *Compiler, name string, arg value.Value) (Node, error) {
	if arg.Kind() != value.Object || arg.Len() != 0 {
		return nil, errs.Errorf(errs.Invalid, "%s takes an empty object as its argument: {\"$rand\":{}}", name)
	}
	return randNode{}, nil
}

func binarySize(v value.Value) (value.Value, error) {
	switch v.Kind() {
	case value.Missing, value.Null:
		return value.NullValue(), nil
	case value.String:
		return value.LongValue(int64(len(v.Str()))), nil
	case value.Binary:
		return value.LongValue(int64(len(v.Bytes()))), nil
	}
	return value.Value{}, errs.Errorf(errs.Invalid, "$binarySize requires a string or BinData argument, found: %s", v.TypeName())
}
