package value

import (
	"cmp"
	"math"
	"strings"
)

// typeRank is MongoDB's canonical type order for comparison and sort:
// MinKey < null (and missing) < numbers < string < object < array <
// binData < objectId < bool < date < timestamp < regex < MaxKey. The
// numbers (int, long, double, decimal) share a rank.
func typeRank(k Kind) int {
	switch k {
	case MinKey:
		return 0
	case Missing, Null:
		return 1
	case Long, Double, Int, Decimal:
		return 2
	case String:
		return 3
	case Object:
		return 4
	case Array:
		return 5
	case Binary:
		return 6
	case ObjectID:
		return 7
	case Bool:
		return 8
	case Date:
		return 9
	case Timestamp:
		return 10
	case Regex:
		return 11
	}
	return 12 // MaxKey
}

// TypeRank returns v's position in MongoDB's type order; values of
// different ranks compare by rank alone ("type bracketing").
func TypeRank(v Value) int { return typeRank(v.kind) }

// Compare returns -1, 0 or +1 as a orders before, equal to or after b in
// MongoDB's total order. Missing compares equal to null. Numbers of every
// type compare exactly by value; NaN orders below every other number and
// equals NaN. Regexes compare by pattern, then options.
func Compare(a, b Value) int {
	ra, rb := typeRank(a.kind), typeRank(b.kind)
	if ra != rb {
		return cmpInt(ra, rb)
	}
	switch a.kind {
	case Missing, Null, MinKey, MaxKey:
		return 0
	case Long, Double, Int, Decimal:
		return compareNumbers(a, b)
	case String:
		return strings.Compare(a.str, b.str)
	case Object:
		return compareObjects(a.fields, b.fields)
	case Array:
		return compareArrays(a.arr, b.arr)
	case Binary:
		if len(a.str) != len(b.str) {
			return cmpInt(len(a.str), len(b.str))
		}
		if a.num != b.num {
			return cmpInt(int(a.num), int(b.num))
		}
		return strings.Compare(a.str, b.str)
	case ObjectID:
		return strings.Compare(a.str, b.str)
	case Bool:
		return cmpInt(int(a.num), int(b.num))
	case Date:
		return cmpInt64(int64(a.num), int64(b.num))
	case Timestamp:
		return cmp.Compare(a.num, b.num)
	case Regex:
		if c := strings.Compare(a.Pattern(), b.Pattern()); c != 0 {
			return c
		}
		return strings.Compare(a.Options(), b.Options())
	}
	return 0
}

// Equal reports whether Compare(a, b) == 0.
func Equal(a, b Value) bool { return Compare(a, b) == 0 }

func compareObjects(a, b []Field) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := cmpInt(typeRank(a[i].Value.kind), typeRank(b[i].Value.kind)); c != 0 {
			return c
		}
		if c := strings.Compare(a[i].Key, b[i].Key); c != 0 {
			return c
		}
		if c := Compare(a[i].Value, b[i].Value); c != 0 {
			return c
		}
	}
	return cmpInt(len(a), len(b))
}

func compareArrays(a, b []Value) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmpInt(len(a), len(b))
}

func compareNumbers(a, b Value) int {
	ai, bi := a.kind == Long || a.kind == Int, b.kind == Long || b.kind == Int
	switch {
	case ai && bi:
		return cmpInt64(int64(a.num), int64(b.num))
	case a.kind == Decimal || b.kind == Decimal:
		return compareDecimals(a, b)
	case a.kind == Double && b.kind == Double:
		return compareFloats(a.Double(), b.Double())
	case ai:
		return compareLongDouble(int64(a.num), b.Double())
	}
	return -compareLongDouble(int64(b.num), a.Double())
}

func compareFloats(x, y float64) int {
	switch {
	case math.IsNaN(x) && math.IsNaN(y):
		return 0
	case math.IsNaN(x):
		return -1
	case math.IsNaN(y):
		return 1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// compareLongDouble compares an int64 with a float64 exactly.
func compareLongDouble(i int64, f float64) int {
	switch {
	case math.IsNaN(f):
		return 1
	case f >= 9223372036854775808.0: // 2^63: above every int64
		return -1
	case f < -9223372036854775808.0:
		return 1
	}
	t := math.Trunc(f) // in [-2^63, 2^63): converts exactly
	ti := int64(t)
	if i != ti {
		return cmpInt64(i, ti)
	}
	frac := f - t
	switch {
	case frac > 0:
		return -1
	case frac < 0:
		return 1
	}
	return 0
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// IsInteger reports whether v is the number n (of any numeric type).
func IsInteger(v Value, n int64) bool {
	switch v.kind {
	case Long, Int:
		return v.Long() == n
	case Double:
		return v.Double() == float64(n)
	case Decimal:
		return compareDecimals(v, LongValue(n)) == 0
	}
	return false
}

// SameCanonical reports whether a and b have the same canonical JSON: same
// types, same field order, same bits (all NaNs alike).
func SameCanonical(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case Double:
		fa, fb := a.Double(), b.Double()
		return a.num == b.num || (fa != fa && fb != fb)
	case Array:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !SameCanonical(a.arr[i], b.arr[i]) {
				return false
			}
		}
		return true
	case Object:
		if len(a.fields) != len(b.fields) {
			return false
		}
		for i := range a.fields {
			if a.fields[i].Key != b.fields[i].Key || !SameCanonical(a.fields[i].Value, b.fields[i].Value) {
				return false
			}
		}
		return true
	}
	return a.num == b.num && a.str == b.str
}

// Rank returns the kind's position in MongoDB's type order (TypeRank).
func (k Kind) Rank() int { return typeRank(k) }
