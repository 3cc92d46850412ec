package expr

import (
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// MongoDB's promotion of numeric types in arithmetic: int < long < double
// < decimal. An operator computes over ints as over longs and gives an int
// when every argument was an int and the result fits in 32 bits (int +
// int overflowing gives a long); with a decimal among its arguments it
// computes in decimal128 (34 digits, half to even: value.Decimal128),
// every other number converted exactly first.

type numFunc = func([]value.Value) (value.Value, error)

// promoting wraps an operator over longs and doubles with the promotion
// rules; dec computes it in decimal (nil: decimals go to f as doubles).
func promoting(f, dec numFunc) numFunc {
	return func(args []value.Value) (value.Value, error) {
		hasInt, allInt, hasDec := false, true, false
		for _, a := range args {
			switch a.Kind() {
			case value.Int:
				hasInt = true
			case value.Decimal:
				hasDec, allInt = true, false
			default:
				allInt = false
			}
		}
		if hasDec && dec != nil && !anyNullish(args) {
			return dec(args)
		}
		if !hasInt && !hasDec {
			return f(args)
		}
		r, err := f(widened(args))
		if err == nil && allInt && r.Kind() == value.Long && r.Long() >= math.MinInt32 && r.Long() <= math.MaxInt32 {
			return value.IntValue(int32(r.Long())), nil
		}
		return r, err
	}
}

func promotingUnary(f, dec func(value.Value) (value.Value, error)) func(value.Value) (value.Value, error) {
	g := promoting(func(a []value.Value) (value.Value, error) { return f(a[0]) }, nil)
	if dec != nil {
		g = promoting(func(a []value.Value) (value.Value, error) { return f(a[0]) },
			func(a []value.Value) (value.Value, error) { return dec(a[0]) })
	}
	return func(v value.Value) (value.Value, error) { return g([]value.Value{v}) }
}

func anyNullish(args []value.Value) bool {
	for _, a := range args {
		if Nullish(a) {
			return true
		}
	}
	return false
}

// widened returns args with ints as longs and decimals as doubles.
func widened(args []value.Value) []value.Value {
	out := make([]value.Value, len(args))
	for i, a := range args {
		switch a.Kind() {
		case value.Int:
			out[i] = value.LongValue(a.Long())
		case value.Decimal:
			out[i] = value.DoubleValue(a.Float())
		default:
			out[i] = a
		}
	}
	return out
}

// decimals returns numbers as decimals (rounded to 34 digits), or a type
// error naming op and what it takes.
func decimals(op, takes string, args []value.Value) ([]*apd.Decimal, error) {
	out := make([]*apd.Decimal, len(args))
	for i, a := range args {
		if !a.IsNumber() {
			return nil, typeError(op, takes, a)
		}
		out[i] = toDec(a)
	}
	return out, nil
}

// toDec is a number as a decimal128 value (value.Decimal128Of).
func toDec(v value.Value) *apd.Decimal { return value.Decimal128Of(v) }

// quo divides as IEEE 754 does: an exact quotient takes the exponent
// closest to the ideal one (the dividend's less the divisor's), so 3 / 2
// is 1.5, not 1.500000000000000000000000000000000.
func quo(c *apd.Context, d, x, y *apd.Decimal) (apd.Condition, error) {
	cond, err := c.Quo(d, x, y)
	if err != nil || cond.Inexact() || d.Form != apd.Finite {
		return cond, err
	}
	ideal := x.Exponent - y.Exponent
	r := new(apd.Decimal)
	r.Reduce(d)
	if r.Exponent > ideal {
		c.Quantize(r, r, ideal)
	}
	d.Set(r)
	return cond, nil
}

// decFold combines numbers left to right with a decimal operation.
func decFold(op string, args []value.Value, f func(c *apd.Context, d, x, y *apd.Decimal) (apd.Condition, error)) (value.Value, error) {
	ds, err := decimals(op, "numeric types", args)
	if err != nil {
		return value.Value{}, err
	}
	ctx := value.Decimal128
	acc := ds[0]
	for _, d := range ds[1:] {
		r := new(apd.Decimal)
		if _, err := f(&ctx, r, acc, d); err != nil {
			return value.Value{}, errs.Errorf(errs.Invalid, "%s: %v", op, err)
		}
		acc = r
	}
	return value.DecimalValue(acc), nil
}

func addDecimals(args []value.Value) (value.Value, error) {
	for _, a := range args {
		if a.Kind() == value.Date {
			return addValues(widened(args))
		}
	}
	return decFold("$add", args, (*apd.Context).Add)
}

func subtractDecimals(a []value.Value) (value.Value, error) {
	if a[0].Kind() == value.Date {
		return subtractValues(widened(a))
	}
	return decFold("$subtract", a, (*apd.Context).Sub)
}

func multiplyDecimals(args []value.Value) (value.Value, error) {
	return decFold("$multiply", args, (*apd.Context).Mul)
}

func divideDecimals(a []value.Value) (value.Value, error) {
	if value.IsInteger(a[1], 0) {
		return value.Value{}, errs.Errorf(errs.Invalid, "can't $divide by zero")
	}
	return decFold("$divide", a, quo)
}

func modDecimals(a []value.Value) (value.Value, error) {
	if value.IsInteger(a[1], 0) {
		return value.Value{}, errs.Errorf(errs.Invalid, "can't $mod by zero")
	}
	return decFold("$mod", a, (*apd.Context).Rem)
}

// decUnary is a one-number decimal operator.
func decUnary(op string, f func(c *apd.Context, d, x *apd.Decimal) (apd.Condition, error)) func(value.Value) (value.Value, error) {
	return func(v value.Value) (value.Value, error) {
		ctx := value.Decimal128
		r := new(apd.Decimal)
		if _, err := f(&ctx, r, v.Decimal()); err != nil {
			return value.Value{}, errs.Errorf(errs.Invalid, "%s: %v", op, err)
		}
		return value.DecimalValue(r), nil
	}
}

// positiveDecimal checks the argument of $sqrt, $ln and $log10 on a decimal.
func positiveDecimal(op string, zeroOK bool, f func(value.Value) (value.Value, error)) func(value.Value) (value.Value, error) {
	return func(v value.Value) (value.Value, error) {
		d := v.Decimal()
		if d.Form != apd.NaN && (d.Sign() < 0 || (!zeroOK && d.Sign() == 0)) {
			if zeroOK {
				return value.Value{}, errs.Errorf(errs.Invalid, "%s's argument must be greater than or equal to 0", op)
			}
			return value.Value{}, errs.Errorf(errs.Invalid, "%s's argument must be a positive number, but is %s", op, v)
		}
		return f(v)
	}
}

func powDecimals(a []value.Value) (value.Value, error) {
	if value.IsInteger(a[0], 0) && value.Compare(a[1], value.LongValue(0)) < 0 {
		return value.Value{}, errs.Errorf(errs.Invalid, "$pow cannot take a base of 0 and a negative exponent")
	}
	return decFold("$pow", a, (*apd.Context).Pow)
}

// roundDecimal is $round and $trunc of a decimal to place digits after
// the point (half to even, or toward zero).
func roundDecimal(v value.Value, place int64, trunc bool) value.Value {
	d := v.Decimal()
	if d.Form != apd.Finite || int64(d.Exponent) >= -place {
		return v
	}
	ctx := value.Decimal128
	ctx.Rounding = apd.RoundHalfEven
	if trunc {
		ctx.Rounding = apd.RoundDown
	}
	ctx.Precision = uint32(max(d.NumDigits()+int64(d.Exponent)+place, 1))
	r := new(apd.Decimal)
	ctx.Quantize(r, d, int32(-place))
	return value.DecimalValue(r)
}

// decimalAverage is sum / n in decimal.
func decimalAverage(sum *apd.Decimal, n int64) value.Value {
	ctx := value.Decimal128
	r := new(apd.Decimal)
	quo(&ctx, r, sum, apd.New(n, 0))
	return value.DecimalValue(r)
}
