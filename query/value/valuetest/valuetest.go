// Package valuetest holds helpers for tests of the value model: turning the
// whole numbers of a document into int32s, and comparing documents by
// numeric value rather than numeric type. The golden suites of query,
// query/expr and query/agg use them to run every case again with int32s,
// the type MongoDB's drivers and mongoimport give small whole numbers.
package valuetest

import (
	"math"

	"github.com/omgdb/omgdb/query/value"
)

// AsInt32 returns v with every long that fits in 32 bits made an int32.
func AsInt32(v value.Value) value.Value {
	switch v.Kind() {
	case value.Long:
		if n := v.Long(); n >= math.MinInt32 && n <= math.MaxInt32 {
			return value.IntValue(int32(n))
		}
	case value.Array:
		elems := make([]value.Value, v.Len())
		for i, e := range v.Array() {
			elems[i] = AsInt32(e)
		}
		return value.ArrayValue(elems)
	case value.Object:
		fields := make([]value.Field, 0, v.Len())
		for _, f := range v.Fields() {
			fields = append(fields, value.Field{Key: f.Key, Value: AsInt32(f.Value)})
		}
		return value.ObjectValue(fields)
	}
	return v
}

// SameNumbers reports whether a and b are equal, field order included,
// when numbers are compared by value and not by type: 1 as an int32
// equals 1 as a long and 1.0 as a double.
func SameNumbers(a, b value.Value) bool {
	if a.IsNumber() && b.IsNumber() {
		return value.Compare(a, b) == 0
	}
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case value.Array:
		ae, be := a.Array(), b.Array()
		if len(ae) != len(be) {
			return false
		}
		for i := range ae {
			if !SameNumbers(ae[i], be[i]) {
				return false
			}
		}
		return true
	case value.Object:
		af, bf := a.Fields(), b.Fields()
		if len(af) != len(bf) {
			return false
		}
		for i := range af {
			if af[i].Key != bf[i].Key || !SameNumbers(af[i].Value, bf[i].Value) {
				return false
			}
		}
		return true
	}
	return value.Compare(a, b) == 0
}
