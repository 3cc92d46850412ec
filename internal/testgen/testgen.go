package testgen

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/omgdb/omgdb/query/value"
)

// Value returns a random value of any type, nested up to depth levels.
func Value(r *rand.Rand, depth int) value.Value {
	n := 12
	if depth <= 0 {
		n = 10
	}
	switch r.IntN(n) {
	case 8:
		return Int(r)
	case 9:
		return otherKind(r)
	case 0:
		return value.NullValue()
	case 1:
		return value.BoolValue(r.IntN(2) == 1)
	case 2:
		return Long(r)
	case 3:
		return Double(r)
	case 4:
		return value.StringValue(String(r))
	case 5:
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return value.BinaryValue(b, byte(r.IntN(2)*4))
	case 6:
		return value.ObjectIDValue(value.NewOID())
	case 7:
		return value.DateValue(r.Int64N(1<<42) - 1<<41)
	case 10:
		elems := make([]value.Value, r.IntN(4))
		for i := range elems {
			elems[i] = Value(r, depth-1)
		}
		return value.ArrayValue(elems)
	default:
		return Object(r, depth-1, r.IntN(4), false)
	}
}

// Long returns a random long, often an edge case.
func Long(r *rand.Rand) value.Value {
	edges := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 53, 1<<53 + 1, -(1 << 53) - 1}
	if r.IntN(3) == 0 {
		return value.LongValue(edges[r.IntN(len(edges))])
	}
	return value.LongValue(r.Int64N(2000) - 1000)
}

// Int returns a random int, often an edge case.
func Int(r *rand.Rand) value.Value {
	edges := []int32{0, 1, -1, math.MaxInt32, math.MinInt32}
	if r.IntN(3) == 0 {
		return value.IntValue(edges[r.IntN(len(edges))])
	}
	return value.IntValue(int32(r.IntN(2000) - 1000))
}

// Decimal returns a random decimal, often an edge case: equal to or just
// beside a double or a long, beyond the range of doubles, special.
func Decimal(r *rand.Rand) value.Value {
	edges := []string{"0", "-0", "0E-9", "1.50", "0.1", "0.3", "-1.5", "5", "5.000", "NaN", "Infinity", "-Infinity",
		"1E+400", "-1E+400", "1.5E+400", "1E-6176", "-1E-400", "1E-300", "9007199254740993", "9007199254740992.5",
		"9223372036854775807.5", "-9223372036854775808.25", "9223372036854775808", "1E+19", "12345678901234567890.12345678901234",
		"1.000000000000000000000000000000001", "0.9999999999999999999999999999999999", "2147483647", "1E+300"}
	var s string
	if r.IntN(2) == 0 {
		s = edges[r.IntN(len(edges))]
	} else {
		s = strconv.FormatInt(r.Int64N(2000000)-1000000, 10) + "E" + strconv.Itoa(r.IntN(12)-9)
	}
	v, err := value.ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return v
}

// otherKind returns a random decimal, timestamp, regex, minKey or maxKey.
func otherKind(r *rand.Rand) value.Value {
	switch r.IntN(6) {
	case 0, 1:
		return Decimal(r)
	case 2:
		return value.TimestampValue(uint32(r.IntN(3))<<31|uint32(r.IntN(100)), uint32(r.IntN(3)))
	case 3:
		pats := []string{"", "^a", "a.b", "é\\d+\"", "a", "ab"}
		return value.RegexValue(pats[r.IntN(len(pats))], []string{"", "i", "ims", "x"}[r.IntN(4)])
	case 4:
		return value.MinKeyValue()
	}
	return value.MaxKeyValue()
}

// Double returns a random double, often an edge case.
func Double(r *rand.Rand) value.Value {
	edges := []float64{2.0, math.Copysign(0, -1), 0, 1e300, -1e-300, 0.1, math.NaN(), math.Inf(1), math.Inf(-1), 1 << 53, 9.5, 5e-324}
	if r.IntN(2) == 0 {
		return value.DoubleValue(edges[r.IntN(len(edges))])
	}
	return value.DoubleValue(r.NormFloat64() * 1000)
}

// String returns a random string built from pieces that need escaping.
func String(r *rand.Rand) string {
	pieces := []string{"a", "Z", "\"", "\\", "\n", "\t", "\x00", "\x01", "\x1f", "é", "😀", "/", "<", "\u2028", " ", "\u007f"}
	var b strings.Builder
	for i := r.IntN(6); i > 0; i-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// Object returns a random object with n fields. With storable, its field
// names are valid for stored documents (no '$' prefix, no '.').
func Object(r *rand.Rand, depth, n int, storable bool) value.Value {
	names := []string{"a", "b", "x_y", "é", "", "$x", "k\"\\", "a.b"}
	if storable {
		names = names[:5]
	}
	fields := []value.Field{}
	for i := 0; i < n; i++ {
		key := names[r.IntN(len(names))] + string(rune('a'+i))
		v := Value(r, depth)
		if storable {
			v = Storable(v)
		}
		fields = append(fields, value.Field{Key: key, Value: v})
	}
	return value.ObjectValue(fields)
}

// Storable rewrites nested objects of v so their field names are valid
// for stored documents.
func Storable(v value.Value) value.Value {
	switch v.Kind() {
	case value.Array:
		out := make([]value.Value, v.Len())
		for i, e := range v.Array() {
			out[i] = Storable(e)
		}
		return value.ArrayValue(out)
	case value.Object:
		out := make([]value.Field, 0, v.Len())
		for i, f := range v.Fields() {
			key := strings.NewReplacer("$", "d", ".", "_").Replace(f.Key)
			out = append(out, value.Field{Key: key + string(rune('a'+i)), Value: Storable(f.Value)})
		}
		return value.ObjectValue(out)
	}
	return v
}

// Document returns a random storable document, with a random _id of a
// scalar type half of the time and none (so one is generated) otherwise.
func Document(r *rand.Rand) value.Value {
	doc := Object(r, 3, 1+r.IntN(5), true)
	if r.IntN(2) == 0 {
		var id value.Value
		for id.IsMissing() || id.Kind() == value.Array {
			id = Storable(Value(r, 1))
		}
		doc = doc.With("_id", id)
	}
	return doc.IDFirst()
}
