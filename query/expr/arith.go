package expr

import (
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Arithmetic operators. Longs stay longs while the result fits; a long
// result that overflows becomes a double, as MongoDB does for int64. Ints
// and decimals are promoted as numeric.go says.

// roundOp is $round or $trunc: the type of the number (not of the place)
// is the result's.
func roundOp(op string) numFunc {
	return func(a []value.Value) (value.Value, error) {
		if a[0].Kind() != value.Int {
			return roundPlace(op, a)
		}
		args := append([]value.Value{value.LongValue(a[0].Long())}, a[1:]...)
		r, err := roundPlace(op, args)
		if err == nil && r.Kind() == value.Long && r.Long() >= math.MinInt32 && r.Long() <= math.MaxInt32 {
			return value.IntValue(int32(r.Long())), nil
		}
		return r, err
	}
}

func registerExprArithOps() {
	registerOps(map[string]opCompiler{
		"$add":      rangeOp(0, -1, promoting(addValues, addDecimals)),
		"$subtract": fixedOp(2, promoting(subtractValues, subtractDecimals)),
		"$multiply": rangeOp(0, -1, promoting(multiplyValues, multiplyDecimals)),
		"$divide":   fixedOp(2, promoting(divideValues, divideDecimals)),
		"$mod":      fixedOp(2, promoting(modValues, modDecimals)),
		"$abs":      unaryOp(promotingUnary(absValue, decUnary("$abs", (*apd.Context).Abs))),
		"$ceil":     unaryOp(promotingUnary(roundingOp("$ceil", math.Ceil), decUnary("$ceil", (*apd.Context).Ceil))),
		"$floor":    unaryOp(promotingUnary(roundingOp("$floor", math.Floor), decUnary("$floor", (*apd.Context).Floor))),
		"$round":    rangeOp(1, 2, roundOp("$round")),
		"$trunc":    rangeOp(1, 2, roundOp("$trunc")),
		"$sqrt":     unaryOp(promotingUnary(sqrtValue, positiveDecimal("$sqrt", true, decUnary("$sqrt", (*apd.Context).Sqrt)))),
		"$pow":      fixedOp(2, promoting(powValues, powDecimals)),
		"$exp":      unaryOp(promotingUnary(floatOp("$exp", math.Exp), decUnary("$exp", (*apd.Context).Exp))),
		"$ln":       unaryOp(promotingUnary(logOp("$ln", math.Log), positiveDecimal("$ln", false, decUnary("$ln", (*apd.Context).Ln)))),
		"$log10":    unaryOp(promotingUnary(logOp("$log10", math.Log10), positiveDecimal("$log10", false, decUnary("$log10", (*apd.Context).Log10)))),
		"$log":      fixedOp(2, promoting(logBase, nil)),
	})
}

// numSum adds numbers exactly while they are longs that do not overflow,
// and with compensated (Neumaier) summation once a double is involved.
// Ints count as longs, and the sum is an int when only ints were added
// and it fits; once a decimal is added the sum goes on in decimal.
type numSum struct {
	l        int64
	isDouble bool
	f, comp  float64
	ints     bool         // an int was added
	notInt   bool         // a long or a double was added
	dec      *apd.Decimal // the sum in decimal, once a decimal was added
}

func (s *numSum) add(v value.Value) {
	if s.dec != nil || v.Kind() == value.Decimal {
		s.addDecimal(v)
		return
	}
	switch v.Kind() {
	case value.Int:
		s.ints = true
		s.addLong(v.Long())
	case value.Long:
		s.notInt = true
		s.addLong(v.Long())
	case value.Double:
		s.notInt = true
		if !s.isDouble {
			s.toDouble()
		}
		s.addFloat(v.Double())
	}
}

// addDecimal adds a number in decimal, turning the sum so far into one.
func (s *numSum) addDecimal(v value.Value) {
	if !v.IsNumber() {
		return
	}
	if s.dec == nil {
		if s.isDouble {
			s.dec = toDec(value.DoubleValue(s.float()))
		} else {
			s.dec = apd.New(s.l, 0)
		}
	}
	ctx := value.Decimal128
	ctx.Add(s.dec, s.dec, toDec(v))
}

func (s *numSum) addLong(x int64) {
	if !s.isDouble {
		if r, ok := addInt64(s.l, x); ok {
			s.l = r
			return
		}
		s.toDouble()
	}
	s.addFloat(float64(x))
}

func (s *numSum) toDouble() {
	s.isDouble = true
	s.f = float64(s.l)
	if s.f < 9223372036854775807.0 && s.f >= -9223372036854775808.0 {
		s.comp = float64(s.l - int64(s.f))
	}
}

func (s *numSum) addFloat(x float64) {
	t := s.f + x
	if math.Abs(s.f) >= math.Abs(x) {
		s.comp += (s.f - t) + x
	} else {
		s.comp += (x - t) + s.f
	}
	s.f = t
}

func (s *numSum) float() float64 {
	if s.dec != nil {
		return value.DecimalValue(s.dec).Float()
	}
	if !s.isDouble {
		return float64(s.l)
	}
	r := s.f + s.comp
	if math.IsNaN(r) || math.IsInf(s.f, 0) {
		return s.f
	}
	return r
}

func (s *numSum) value() value.Value {
	switch {
	case s.dec != nil:
		return value.DecimalValue(s.dec)
	case s.isDouble:
		return value.DoubleValue(s.float())
	case s.ints && !s.notInt && s.l >= math.MinInt32 && s.l <= math.MaxInt32:
		return value.IntValue(int32(s.l))
	}
	return value.LongValue(s.l)
}

func addInt64(a, b int64) (int64, bool) {
	r := a + b
	// Overflow: a and b have the same sign and r has the other.
	return r, (a >= 0) != (b >= 0) || (r >= 0) == (a >= 0)
}

func subInt64(a, b int64) (int64, bool) {
	r := a - b
	// Overflow: a and b have different signs and r's differs from a's.
	return r, (a >= 0) == (b >= 0) || (r >= 0) == (a >= 0)
}

func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return r, true
}

func absInt64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// ExactInt returns an int32, a long, or a double or decimal with an
// integral value in the range of a long, as an int64.
func ExactInt(v value.Value) (int64, bool) {
	switch v.Kind() {
	case value.Int, value.Long:
		return v.Long(), true
	case value.Decimal:
		n, err := v.Decimal().Int64()
		return n, err == nil
	case value.Double:
		f := v.Double()
		if f == math.Trunc(f) && f >= -9223372036854775808.0 && f < 9223372036854775808.0 {
			return int64(f), true
		}
	}
	return 0, false
}

// roundToLong converts a number to milliseconds for date arithmetic.
func roundToLong(v value.Value) int64 {
	if v.Kind() == value.Long {
		return v.Long()
	}
	f := math.Round(v.Double())
	if math.IsNaN(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return 0
	}
	return int64(f)
}

func addValues(args []value.Value) (value.Value, error) {
	var s numSum
	var date value.Value
	for _, v := range args {
		switch v.Kind() {
		case value.Missing, value.Null:
			return value.NullValue(), nil
		case value.Long, value.Double:
			s.add(v)
		case value.Date:
			if !date.IsMissing() {
				return value.Value{}, errs.Errorf(errs.Invalid, "only one date allowed in an $add expression")
			}
			date = v
		default:
			return value.Value{}, typeError("$add", "numeric or date types", v)
		}
	}
	if !date.IsMissing() {
		return value.DateValue(date.Date() + roundToLong(s.value())), nil
	}
	return s.value(), nil
}

func subtractValues(a []value.Value) (value.Value, error) {
	l, r := a[0], a[1]
	if Nullish(l) || Nullish(r) {
		return value.NullValue(), nil
	}
	switch {
	case l.IsNumber() && r.IsNumber():
		if l.Kind() == value.Long && r.Kind() == value.Long {
			if d, ok := subInt64(l.Long(), r.Long()); ok {
				return value.LongValue(d), nil
			}
		}
		return value.DoubleValue(l.Float() - r.Float()), nil
	case l.Kind() == value.Date && r.Kind() == value.Date:
		return value.LongValue(l.Date() - r.Date()), nil
	case l.Kind() == value.Date && r.IsNumber():
		return value.DateValue(l.Date() - roundToLong(r)), nil
	}
	return value.Value{}, errs.Errorf(errs.Invalid, "can't $subtract %s from %s", r.TypeName(), l.TypeName()).
		WithHint("$subtract takes two numbers, two dates, or a date and a number of milliseconds")
}

func multiplyValues(args []value.Value) (value.Value, error) {
	prod, isDouble := int64(1), false
	fprod := 1.0
	for _, v := range args {
		switch v.Kind() {
		case value.Missing, value.Null:
			return value.NullValue(), nil
		case value.Long:
			if !isDouble {
				if p, ok := mulInt64(prod, v.Long()); ok {
					prod = p
					continue
				}
				isDouble, fprod = true, float64(prod)
			}
			fprod *= float64(v.Long())
		case value.Double:
			if !isDouble {
				isDouble, fprod = true, float64(prod)
			}
			fprod *= v.Double()
		default:
			return value.Value{}, typeError("$multiply", "numeric types", v)
		}
	}
	if isDouble {
		return value.DoubleValue(fprod), nil
	}
	return value.LongValue(prod), nil
}

func twoNumbers(op string, a []value.Value) (bool, error) {
	if Nullish(a[0]) || Nullish(a[1]) {
		return false, nil
	}
	if !a[0].IsNumber() || !a[1].IsNumber() {
		return false, errs.Errorf(errs.Invalid, "%s only supports numeric types, not %s and %s", op, a[0].TypeName(), a[1].TypeName())
	}
	return true, nil
}

func divideValues(a []value.Value) (value.Value, error) {
	if ok, err := twoNumbers("$divide", a); !ok {
		return value.NullValue(), err
	}
	if a[1].Float() == 0 {
		return value.Value{}, errs.Errorf(errs.Invalid, "can't $divide by zero")
	}
	return value.DoubleValue(a[0].Float() / a[1].Float()), nil
}

func modValues(a []value.Value) (value.Value, error) {
	if ok, err := twoNumbers("$mod", a); !ok {
		return value.NullValue(), err
	}
	if a[1].Float() == 0 {
		return value.Value{}, errs.Errorf(errs.Invalid, "can't $mod by zero")
	}
	if a[0].Kind() == value.Long && a[1].Kind() == value.Long {
		return value.LongValue(a[0].Long() % a[1].Long()), nil
	}
	return value.DoubleValue(math.Mod(a[0].Float(), a[1].Float())), nil
}

// number checks the operand of a one-number operator: ok is false (and
// the result null) for null and missing.
func number(op string, v value.Value) (bool, error) {
	if Nullish(v) {
		return false, nil
	}
	if !v.IsNumber() {
		return false, typeError(op, "numeric types", v)
	}
	return true, nil
}

func absValue(v value.Value) (value.Value, error) {
	if ok, err := number("$abs", v); !ok {
		return value.NullValue(), err
	}
	if v.Kind() == value.Long {
		if v.Long() == math.MinInt64 {
			return value.Value{}, errs.Errorf(errs.Invalid, "can't take $abs of long long min")
		}
		return value.LongValue(absInt64(v.Long())), nil
	}
	return value.DoubleValue(math.Abs(v.Double())), nil
}

// roundingOp is $ceil or $floor: longs are returned as they are.
func roundingOp(op string, f func(float64) float64) func(value.Value) (value.Value, error) {
	return func(v value.Value) (value.Value, error) {
		if ok, err := number(op, v); !ok {
			return value.NullValue(), err
		}
		if v.Kind() == value.Long {
			return v, nil
		}
		return value.DoubleValue(f(v.Double())), nil
	}
}

// floatOp is an operator whose result is always a double.
func floatOp(op string, f func(float64) float64) func(value.Value) (value.Value, error) {
	return func(v value.Value) (value.Value, error) {
		if ok, err := number(op, v); !ok {
			return value.NullValue(), err
		}
		return value.DoubleValue(f(v.Float())), nil
	}
}

func sqrtValue(v value.Value) (value.Value, error) {
	if ok, err := number("$sqrt", v); !ok {
		return value.NullValue(), err
	}
	if v.Float() < 0 {
		return value.Value{}, errs.Errorf(errs.Invalid, "$sqrt's argument must be greater than or equal to 0")
	}
	return value.DoubleValue(math.Sqrt(v.Float())), nil
}

func logOp(op string, f func(float64) float64) func(value.Value) (value.Value, error) {
	return func(v value.Value) (value.Value, error) {
		if ok, err := number(op, v); !ok {
			return value.NullValue(), err
		}
		if x := v.Float(); !math.IsNaN(x) && x <= 0 {
			return value.Value{}, errs.Errorf(errs.Invalid, "%s's argument must be a positive number, but is %s", op, v)
		}
		return value.DoubleValue(f(v.Float())), nil
	}
}

func logBase(a []value.Value) (value.Value, error) {
	if ok, err := twoNumbers("$log", a); !ok {
		return value.NullValue(), err
	}
	x, b := a[0].Float(), a[1].Float()
	if !math.IsNaN(x) && x <= 0 {
		return value.Value{}, errs.Errorf(errs.Invalid, "$log's argument must be a positive number, but is %s", a[0])
	}
	if !math.IsNaN(b) && (b <= 0 || b == 1) {
		return value.Value{}, errs.Errorf(errs.Invalid, "$log's base must be a positive number not equal to 1, but is %s", a[1])
	}
	return value.DoubleValue(math.Log(x) / math.Log(b)), nil
}

func powValues(a []value.Value) (value.Value, error) {
	if ok, err := twoNumbers("$pow", a); !ok {
		return value.NullValue(), err
	}
	if a[0].Kind() == value.Long && a[1].Kind() == value.Long {
		return powLong(a[0].Long(), a[1].Long())
	}
	return value.DoubleValue(math.Pow(a[0].Float(), a[1].Float())), nil
}

func powLong(base, exp int64) (value.Value, error) {
	switch {
	case base == 0 && exp < 0:
		return value.Value{}, errs.Errorf(errs.Invalid, "$pow cannot take a base of 0 and a negative exponent")
	case base == 1 || exp == 0:
		return value.LongValue(1), nil
	case base == -1:
		return value.LongValue(1 - 2*(absInt64(exp%2))), nil
	case base == 0:
		return value.LongValue(0), nil
	case exp < 0:
		return value.DoubleValue(math.Pow(float64(base), float64(exp))), nil
	}
	r := int64(1)
	for i := int64(0); i < exp; i++ { // |base| >= 2: overflows within 63 steps
		p, ok := mulInt64(r, base)
		if !ok {
			return value.DoubleValue(math.Pow(float64(base), float64(exp))), nil
		}
		r = p
	}
	return value.LongValue(r), nil
}
