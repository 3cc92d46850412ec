package value_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/value"
)

func TestCompare_TypeOrder(t *testing.T) {
	// Ascending, per MongoDB's comparison order.
	// Decimals beside doubles and longs as in jstests/decimal/
	// decimal_find_mixed.js: the double 0.3 is below the decimal 0.3.
	ordered := []string{
		`{"$minKey":1}`,
		`null`,
		`{"$numberDouble":"NaN"}`,
		`{"$numberDouble":"-Infinity"}`,
		`{"$numberDecimal":"-1E+400"}`,
		`{"$numberDecimal":"-1.797693134862315708145274237317044E+308"}`,
		`{"$numberDouble":"-1.7976931348623157e308"}`,
		`{"$numberDecimal":"-9223372036854775808.25"}`,
		`-9223372036854775808`,
		`{"$numberDecimal":"-9223372036854775807.5"}`,
		`-1.5`, `-1`,
		`{"$numberDecimal":"-1E-400"}`,
		`0`,
		`{"$numberDecimal":"1E-6176"}`,
		`{"$numberDecimal":"2E-6176"}`,
		`{"$numberDouble":"5e-324"}`,
		`{"$numberDecimal":"0.29999999999999997"}`,
		`{"$numberDecimal":"0.29999999999999998"}`,
		`{"$numberDecimal":"0.299999999999999985"}`,
		`0.29999999999999998`, // the double 0.3: 0.299999999999999988897…
		`{"$numberDecimal":"0.29999999999999999"}`,
		`{"$numberDecimal":"0.2999999999999999995"}`,
		`{"$numberDecimal":"0.3"}`,
		`{"$numberDecimal":"0.30000000000000001"}`,
		`0.5`, `1`,
		`{"$numberDecimal":"1.000000000000000000000000000000001"}`,
		`1.5`,
		`{"$numberInt":"2147483647"}`,
		`9007199254740992`,
		`{"$numberDecimal":"9007199254740992.5"}`,
		`9007199254740993`,
		`{"$numberDecimal":"9007199254740993.000000000000000001"}`,
		`{"$numberDecimal":"9007199254740993.5"}`,
		`9007199254740994`,
		`{"$numberDecimal":"9223372036854775806.5"}`,
		`9223372036854775807`,
		`{"$numberDecimal":"9223372036854775807.5"}`,
		`9223372036854775808.0`,
		`{"$numberDecimal":"9223372036854775808.5"}`,
		`{"$numberDecimal":"1E+300"}`,
		`1e300`, // 1.0000000000000000525…E+300
		`{"$numberDecimal":"1.000000000000000100000000000000001E+300"}`,
		`{"$numberDecimal":"1E+400"}`,
		`{"$numberDecimal":"1.000000000000000000000000000000001E+400"}`,
		`{"$numberDouble":"Infinity"}`,
		`""`, `"A"`, `"a"`, `"a\u0000"`, `"ab"`, `"b"`,
		`{}`, `{"a":1}`, `{"a":1,"b":1}`, `{"a":2}`, `{"b":1}`, `{"a":"x"}`,
		`[]`, `[1]`, `[1,2]`, `[2]`, `["a"]`,
		`{"$binary":"AA=="}`, `{"$binary":{"base64":"AA==","subType":"04"}}`, `{"$binary":"AAA="}`,
		`{"$oid":"000000000000000000000000"}`, `{"$oid":"ffffffffffffffffffffffff"}`,
		`false`, `true`,
		`{"$date":-1}`, `{"$date":0}`, `{"$date":1}`,
		`{"$timestamp":{"t":0,"i":5}}`, `{"$timestamp":{"t":1,"i":0}}`, `{"$timestamp":{"t":4294967295,"i":0}}`,
		`{"$regularExpression":{"pattern":"","options":"i"}}`, `{"$regularExpression":{"pattern":"a","options":""}}`,
		`{"$regularExpression":{"pattern":"a","options":"i"}}`, `{"$regularExpression":{"pattern":"ab","options":""}}`,
		`{"$maxKey":1}`,
	}
	vals := make([]value.Value, len(ordered))
	for i, s := range ordered {
		vals[i] = value.MustParse(s)
	}
	for i := range vals {
		for j := range vals {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := value.Compare(vals[i], vals[j]); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", ordered[i], ordered[j], got, want)
			}
			kc := bytes.Compare(value.AppendKey(nil, vals[i]), value.AppendKey(nil, vals[j]))
			if kc != want {
				t.Errorf("key order (%s, %s) = %d, want %d", ordered[i], ordered[j], kc, want)
			}
		}
	}
}

func TestCompare_MixedNumbersEqual(t *testing.T) {
	// jstests/decimal/decimal_find_mixed.js, decimal_constructors.js:
	// numbers of every type that are equal match each other.
	pairs := [][2]string{{`5`, `5.0`}, {`0`, `-0.0`}, {`9007199254740992`, `9007199254740992.0`}, {`null`, `null`},
		{`{"$numberInt":"5"}`, `5`}, {`{"$numberDecimal":"5.00"}`, `5.0`}, {`{"$numberDecimal":"-0"}`, `0`},
		{`{"$numberDecimal":"0E-9"}`, `{"$numberInt":"0"}`}, {`{"$numberDecimal":"0.5"}`, `0.5`},
		{`{"$numberDecimal":"NaN"}`, `{"$numberDouble":"NaN"}`}, {`{"$numberDecimal":"-Infinity"}`, `{"$numberDouble":"-Infinity"}`},
		{`{"$numberDecimal":"36028797018963967"}`, `36028797018963967`},
		{`{"$numberDecimal":"9223372036854775807"}`, `9223372036854775807`},
		{`{"$numberDecimal":"1E+300"}`, `{"$numberDecimal":"1.000E+300"}`},
		{`{"$numberDecimal":"1267650600228229401496703205376"}`, `1.2676506002282294e30`}}
	for _, p := range pairs {
		a, b := value.MustParse(p[0]), value.MustParse(p[1])
		if value.Compare(a, b) != 0 {
			t.Errorf("Compare(%s, %s) != 0", p[0], p[1])
		}
		if !bytes.Equal(value.AppendKey(nil, a), value.AppendKey(nil, b)) {
			t.Errorf("keys of %s and %s differ", p[0], p[1])
		}
	}
	if value.Compare(value.MissingValue, value.NullValue()) != 0 {
		t.Error("missing must compare equal to null")
	}
	// 2^53+1 as a long is greater than the double 2^53, which it rounds to.
	if value.Compare(value.LongValue(1<<53+1), value.DoubleValue(1<<53)) != 1 {
		t.Error("long 2^53+1 must be greater than double 2^53")
	}
	if value.Compare(value.LongValue(math.MaxInt64), value.DoubleValue(9223372036854775808.0)) != -1 {
		t.Error("MaxInt64 must be less than the double 2^63")
	}
}

// TestKey_OrderProperty checks that byte order of keys equals Compare for
// random values, ascending and descending, and for compound keys.
func TestKey_OrderProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := make([]value.Value, 3000)
	for i := range vals {
		vals[i] = testgen.Value(r, 2)
	}
	for i := 0; i < 50000; i++ {
		a, b := vals[r.IntN(len(vals))], vals[r.IntN(len(vals))]
		want := value.Compare(a, b)
		if got := bytes.Compare(value.AppendKey(nil, a), value.AppendKey(nil, b)); got != want {
			t.Fatalf("key order of %v and %v = %d, Compare = %d", a, b, got, want)
		}
		if got := bytes.Compare(value.AppendKeyDesc(nil, a), value.AppendKeyDesc(nil, b)); got != -want {
			t.Fatalf("descending key order of %v and %v = %d, want %d", a, b, got, -want)
		}
		c, d := vals[r.IntN(len(vals))], vals[r.IntN(len(vals))]
		want2 := want
		if want2 == 0 {
			want2 = value.Compare(c, d)
		}
		ka := value.AppendKey(value.AppendKey(nil, a), c)
		kb := value.AppendKey(value.AppendKey(nil, b), d)
		if got := bytes.Compare(ka, kb); got != want2 {
			t.Fatalf("compound key order of (%v,%v) and (%v,%v) = %d, want %d", a, c, b, d, got, want2)
		}
	}
	sorted := append([]value.Value(nil), vals...)
	sort.SliceStable(sorted, func(i, j int) bool { return value.Compare(sorted[i], sorted[j]) < 0 })
	for i := 1; i < len(sorted); i++ {
		if value.Compare(sorted[i-1], sorted[i]) > 0 {
			t.Fatalf("Compare is not a total order at %v, %v", sorted[i-1], sorted[i])
		}
	}
}
