package value

import (
	"math"
	"math/big"
	"strconv"

	"github.com/cockroachdb/apd/v3"

	"github.com/omgdb/omgdb/query/errs"
)

// Decimal128 is the arithmetic context of MongoDB's decimal type: IEEE
// 754-2008 decimal128, 34 significant digits, exponents from -6143 to
// 6144 (adjusted), rounding half to even, no traps (an overflow gives an
// infinity, an invalid operation NaN). Results are brought into decimal128's
// range of coefficient exponents by DecimalValue.
var Decimal128 = apd.Context{
	Precision:   34,
	MaxExponent: 6144,
	MinExponent: -6143,
	Rounding:    apd.RoundHalfEven,
}

// The range of a decimal128's coefficient exponent (q).
const (
	decMaxQ      = 6111
	decMinQ      = -6176
	decMaxDigits = 34
)

// ParseDecimal returns the decimal that the text s denotes exactly, as
// {"$numberDecimal":s} and NumberDecimal(s) read it: text that decimal128
// cannot hold without rounding (more than 34 significant digits, an
// exponent out of range) is an error, as in MongoDB.
func ParseDecimal(s string) (Value, error) {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return Value{}, errs.Errorf(errs.Invalid, "%q is not a decimal number", s).
			WithHint(`write digits with an optional point and exponent, e.g. "12.50" or "1E-3", or "NaN", "Infinity", "-Infinity"`)
	}
	if !fitDecimal128(d) {
		return Value{}, errs.Errorf(errs.Invalid, "%q does not fit in a decimal128 without rounding", s).
			WithHint("a decimal holds at most 34 significant digits, with an exponent from -6176 to 6111")
	}
	return Value{kind: Decimal, str: decimalText(d)}, nil
}

// DecimalValue returns the decimal128 nearest to d (rounded to 34 digits
// half to even; an infinity beyond its range, zero below it), as the
// result of decimal arithmetic.
func DecimalValue(d *apd.Decimal) Value {
	r := new(apd.Decimal)
	ctx := Decimal128
	ctx.Round(r, d)
	if r.Form == apd.Finite && !fitDecimal128(r) {
		// Below the smallest exponent: round to it (a subnormal or zero).
		ctx.Precision = uint32(max(int64(r.Exponent)+r.NumDigits()-decMinQ, 1))
		ctx.MinExponent = math.MinInt32 / 2
		ctx.Quantize(r, r, decMinQ)
		if !fitDecimal128(r) {
			r.SetFinite(0, decMinQ)
		}
	}
	return Value{kind: Decimal, str: decimalText(r)}
}

// fitDecimal128 reports whether d is a decimal128, adjusting the
// representation of a finite d (not its value) into decimal128's range:
// trailing zeros of a long coefficient folded into the exponent, an
// exponent over the largest padded with zeros ("clamped"), zero's exponent
// brought into range. NaNs lose their sign and payload, as in MongoDB.
func fitDecimal128(d *apd.Decimal) bool {
	if d.Form != apd.Finite {
		if d.Form != apd.Infinite {
			d.Form, d.Negative = apd.NaN, false
			d.Coeff.SetInt64(0)
		}
		return true
	}
	if d.IsZero() {
		d.Exponent = min(max(d.Exponent, decMinQ), decMaxQ)
		return true
	}
	var ten, r big.Int
	ten.SetInt64(10)
	c := d.Coeff.MathBigInt()
	for d.NumDigits() > decMaxDigits || d.Exponent < decMinQ {
		var q big.Int
		q.QuoRem(c, &ten, &r)
		if r.Sign() != 0 {
			return false
		}
		c = &q
		d.Coeff.SetMathBigInt(c)
		d.Exponent++
	}
	for d.Exponent > decMaxQ {
		c.Mul(c, &ten)
		d.Coeff.SetMathBigInt(c)
		d.Exponent--
		if d.NumDigits() > decMaxDigits {
			return false
		}
	}
	return true
}

// decimalText writes d as the "to-scientific-string" of IEEE 754-2008
// (the General Decimal Arithmetic specification), as MongoDB and its
// drivers write decimals: plain notation when the exponent is at most zero
// and the adjusted exponent at least -6, else one digit, a point and an
// exponent.
func decimalText(d *apd.Decimal) string {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return "NaN"
	case apd.Infinite:
		if d.Negative {
			return "-Infinity"
		}
		return "Infinity"
	}
	digits := d.Coeff.Append(nil, 10)
	var b []byte
	if d.Negative {
		b = append(b, '-')
	}
	exp := int(d.Exponent)
	adj := exp + len(digits) - 1
	switch {
	case exp <= 0 && adj >= -6:
		point := len(digits) + exp // digits before the point
		if point <= 0 {
			b = append(b, "0."...)
			for ; point < 0; point++ {
				b = append(b, '0')
			}
			b = append(b, digits...)
		} else {
			b = append(b, digits[:point]...)
			if point < len(digits) {
				b = append(append(b, '.'), digits[point:]...)
			}
		}
	default:
		b = append(b, digits[0])
		if len(digits) > 1 {
			b = append(append(b, '.'), digits[1:]...)
		}
		b = append(b, 'E')
		if adj >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(adj), 10)
	}
	return string(b)
}

// Decimal returns a number as an exact decimal: a decimal's value, an int
// or long's, a double's exact binary value (not its shortest text); nil
// for other kinds. The result is the caller's.
func (v Value) Decimal() *apd.Decimal {
	switch v.kind {
	case Decimal:
		d, _, err := apd.NewFromString(v.str)
		if err != nil {
			panic("value: stored decimal text " + strconv.Quote(v.str) + " does not parse")
		}
		return d
	case Int, Long:
		return apd.New(int64(v.num), 0)
	case Double:
		return exactDecimal(math.Float64frombits(v.num))
	}
	return nil
}

// DecimalString returns the text of a decimal ("" for other kinds).
func (v Value) DecimalString() string {
	if v.kind == Decimal {
		return v.str
	}
	return ""
}

// exactDecimal returns the exact decimal value of a double: m·2^e is
// m·5^-e·10^e for a negative e.
func exactDecimal(f float64) *apd.Decimal {
	switch {
	case math.IsNaN(f):
		return &apd.Decimal{Form: apd.NaN}
	case math.IsInf(f, 0):
		return &apd.Decimal{Form: apd.Infinite, Negative: f < 0}
	}
	frac, exp := math.Frexp(math.Abs(f))
	m := int64(frac * (1 << 53)) // exact: frac has 53 significant bits
	exp -= 53
	c := new(big.Int).SetInt64(m)
	var e int32
	if exp >= 0 {
		c.Lsh(c, uint(exp))
	} else {
		c.Mul(c, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(-exp)), nil))
		e = int32(exp)
	}
	d := apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(c), e)
	d.Negative = math.Signbit(f) && f != 0
	return d
}

// decimalFloat returns the double nearest to a decimal's text.
func decimalFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64) // ±Inf beyond the range of doubles, as wanted
	return f
}

// isDecimalNaN reports whether v is a NaN decimal.
func isDecimalNaN(v Value) bool { return v.kind == Decimal && v.str == "NaN" }

// compareDecimals compares two numbers, one of them a decimal, exactly.
// NaN orders below every other number and equals NaN.
func compareDecimals(a, b Value) int {
	an, bn := isNaNNumber(a), isNaNNumber(b)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	return a.Decimal().Cmp(b.Decimal())
}

// isNaNNumber reports whether v is a NaN double or decimal.
func isNaNNumber(v Value) bool {
	if v.kind == Double {
		f := math.Float64frombits(v.num)
		return f != f
	}
	return isDecimalNaN(v)
}

// Decimal128Of returns a number as the decimal128 that arithmetic with a
// decimal uses: a double's exact value without the trailing zeros of its
// expansion, rounded to 34 digits; other numbers exactly.
func Decimal128Of(v Value) *apd.Decimal {
	d := v.Decimal()
	if v.kind == Double {
		d.Reduce(d)
		return DecimalValue(d).Decimal()
	}
	return d
}
