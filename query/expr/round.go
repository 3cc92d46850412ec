package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// roundPlace is $round and $trunc: [number, place]. Doubles are rounded
// in decimal, as MongoDB does through Decimal128 (15 significant digits),
// so that {$round:[1.15,1]} is 1.2; $round rounds half to even.
func roundPlace(op string, a []value.Value) (value.Value, error) {
	v := a[0]
	place := int64(0)
	if len(a) == 2 {
		if Nullish(a[1]) {
			return value.NullValue(), nil
		}
		p, ok := ExactInt(a[1])
		if !ok || p < -20 || p > 100 {
			return value.Value{}, errs.Errorf(errs.Invalid, "%s requires \"place\" argument to be an integer between -20 and 100, found %s", op, a[1])
		}
		place = p
	}
	if ok, err := number(op, v); !ok {
		return value.NullValue(), err
	}
	trunc := op == "$trunc"
	if v.Kind() == value.Decimal {
		return roundDecimal(v, place, trunc), nil
	}
	if v.Kind() == value.Long {
		return roundLong(v.Long(), place, trunc), nil
	}
	return value.DoubleValue(roundDouble(v.Double(), int(place), trunc)), nil
}

// roundLong rounds to a multiple of 10^-place (places >= 0 change
// nothing).
func roundLong(x, place int64, trunc bool) value.Value {
	if place >= 0 {
		return value.LongValue(x)
	}
	if place < -18 {
		if trunc || absInt64(x) < 5e18 {
			return value.LongValue(0)
		}
		return value.DoubleValue(roundDouble(float64(x), int(place), false))
	}
	p := int64(math.Pow10(int(-place)))
	q, r := x/p, x%p
	if !trunc && (2*absInt64(r) > p || (2*absInt64(r) == p && q%2 != 0)) {
		if x < 0 {
			q--
		} else {
			q++
		}
	}
	if m, ok := mulInt64(q, p); ok {
		return value.LongValue(m)
	}
	return value.DoubleValue(float64(q) * float64(p))
}

// roundDouble rounds (or truncates) x to place decimal places.
func roundDouble(x float64, place int, trunc bool) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	s := strconv.FormatFloat(x, 'e', 14, 64) // [-]d.dddddddddddddde±dd
	neg := s[0] == '-'
	s = strings.TrimPrefix(s, "-")
	mant, expText, _ := strings.Cut(s, "e")
	digits := mant[:1] + mant[2:]
	exp, _ := strconv.Atoi(expText)
	keep := exp + 1 + place // digits before the rounding point
	if keep >= len(digits) {
		return x
	}
	var kept int64
	if keep > 0 {
		kept, _ = strconv.ParseInt(digits[:keep], 10, 64)
	}
	if !trunc && keep >= 0 && roundsUp(digits[keep:], kept) {
		kept++
	}
	r, _ := strconv.ParseFloat(strconv.FormatInt(kept, 10)+"e"+strconv.Itoa(-place), 64)
	if neg {
		r = -r
	}
	return r
}

// roundsUp decides half-to-even rounding given the dropped digits.
func roundsUp(rest string, kept int64) bool {
	switch {
	case rest[0] > '5':
		return true
	case rest[0] < '5':
		return false
	case strings.TrimRight(rest[1:], "0") != "":
		return true
	}
	return kept%2 == 1
}
