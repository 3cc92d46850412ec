package query

import (
	"math"
	"math/rand/v2"
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
func trigOp(op string, f func(float64) float64, lo, hi float64) func(Value) (Value, error) {
	return func(v Value) (Value, error) {
		if ok, err := number(op, v); !ok {
			return NullValue(), err
		}
		x := v.Float()
		finite := math.IsInf(lo, -1) && math.IsInf(hi, 1) && op != "$atan" && op != "$tanh"
		switch {
		case math.IsNaN(x):
		case finite && math.IsInf(x, 0):
			return Value{}, Errorf(Invalid, "cannot apply %s to %s, value must be finite", op, v)
		case x < lo || x > hi:
			if math.IsInf(hi, 1) {
				return Value{}, Errorf(Invalid, "cannot apply %s to %s, value must be at least %g", op, v, lo)
			}
			return Value{}, Errorf(Invalid, "cannot apply %s to %s, value must be in [%g,%g]", op, v, lo, hi)
		}
		return DoubleValue(f(x)), nil
	}
}

func atan2Values(a []Value) (Value, error) {
	if ok, err := twoNumbers("$atan2", a); !ok {
		return NullValue(), err
	}
	return DoubleValue(math.Atan2(a[0].Float(), a[1].Float())), nil
}

// bitOp folds longs with f, starting from identity.
func bitOp(op string, identity int64, f func(a, b int64) int64) func([]Value) (Value, error) {
	return func(args []Value) (Value, error) {
		r := identity
		for _, v := range args {
			switch v.Kind() {
			case Missing, Null:
				return NullValue(), nil
			case Long:
				r = f(r, v.Long())
			default:
				return Value{}, Errorf(Invalid, "%s only supports int and long operands, not %s", op, v.TypeName())
			}
		}
		return LongValue(r), nil
	}
}

func bitNot(v Value) (Value, error) {
	switch v.Kind() {
	case Missing, Null:
		return NullValue(), nil
	case Long:
		return LongValue(^v.Long()), nil
	}
	return Value{}, Errorf(Invalid, "$bitNot only supports int and long, not %s", v.TypeName())
}

// randNode is $rand: a double in [0, 1), different on every evaluation.
type randNode struct{}

func (randNode) eval(*evalCtx) (Value, error) { return DoubleValue(rand.Float64()), nil }

func randOp(_ *exprCompiler, name string, arg Value) (expression, error) {
	if arg.Kind() != Object || arg.Len() != 0 {
		return nil, Errorf(Invalid, "%s takes an empty object as its argument: {\"$rand\":{}}", name)
	}
	return randNode{}, nil
}

func binarySize(v Value) (Value, error) {
	switch v.Kind() {
	case Missing, Null:
		return NullValue(), nil
	case String:
		return LongValue(int64(len(v.Str()))), nil
	case Binary:
		return LongValue(int64(len(v.Bytes()))), nil
	}
	return Value{}, Errorf(Invalid, "$binarySize requires a string or BinData argument, found: %s", v.TypeName())
}
