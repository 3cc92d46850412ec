package query_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query"
)

func TestParse_Canonical(t *testing.T) {
	cases := []struct{ in, want string }{
		{`9007199254740993`, `9007199254740993`},
		{`-9223372036854775808`, `-9223372036854775808`},
		{`9223372036854775807`, `9223372036854775807`},
		{`2.0`, `2.0`},
		{`-0.0`, `-0.0`},
		{`-0`, `0`},
		{`1e300`, `1e+300`},
		{`1.5E-7`, `1.5e-07`},
		{`123456789012345678901234.0`, `1.2345678901234569e+23`},
		{`0.1`, `0.1`},
		{`1e20`, `100000000000000000000.0`},
		{` { "b" : 1 , "a" : [ 1 , 2.5 , "x" ] } `, `{"b":1,"a":[1,2.5,"x"]}`},
		{`"\u00e9\n\t\"\\\/\u0001\b\f\r<>&"`, `"é\n\t\"\\/\u0001\b\f\r<>&"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`{"$oid":"507f1f77bcf86cd799439011"}`, `{"$oid":"507f1f77bcf86cd799439011"}`},
		{`{"$numberLong":"42"}`, `42`},
		{`{"$numberInt":"-7"}`, `-7`},
		{`{"$numberDouble":"NaN"}`, `{"$numberDouble":"NaN"}`},
		{`{"$numberDouble":"-Infinity"}`, `{"$numberDouble":"-Infinity"}`},
		{`{"$numberDouble":"3"}`, `3.0`},
		{`{"$date":"2024-05-01T12:00:00.5Z"}`, `{"$date":1714564800500}`},
		{`{"$date":{"$numberLong":"-1"}}`, `{"$date":-1}`},
		{`{"$date":86400000}`, `{"$date":86400000}`},
		{`{"$binary":"AAEC"}`, `{"$binary":"AAEC"}`},
		{`{"$binary":{"base64":"AAEC","subType":"00"}}`, `{"$binary":"AAEC"}`},
		{`{"$binary":{"base64":"AAEC","subType":"04"}}`, `{"$binary":{"base64":"AAEC","subType":"04"}}`},
		{`{"$gt":5}`, `{"$gt":5}`},
		{`[]`, `[]`},
		{`{}`, `{}`},
	}
	for _, c := range cases {
		v, err := query.ParseString(c.in)
		if err != nil {
			t.Errorf("Parse(%s): %v", c.in, err)
			continue
		}
		if got := string(query.JSON(v)); got != c.want {
			t.Errorf("Parse(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestParse_Errors(t *testing.T) {
	deep := strings.Repeat("[", 101) + strings.Repeat("]", 101)
	cases := []struct{ in, want string }{
		{`{"a":1,"a":2}`, `byte 7: duplicate key "a"`},
		{"\"\xff\"", `byte 1: invalid UTF-8`},
		{`9223372036854775808`, `integer 9223372036854775808 does not fit`},
		{`1e400`, `out of the range of a double`},
		{deep, `nesting deeper than 100`},
		{`{"a":1,}`, `expected a quoted key`},
		{`[1 2]`, `expected ',' or ']'`},
		{`01`, `leading zero`},
		{`"\ud800"`, `lone surrogate`},
		{`"a` + "\n" + `"`, `control character 0x0a`},
		{`{"a":1} x`, `after the JSON value`},
		{``, `unexpected end of input`},
		{`{"$oid":"xyz"}`, `$oid needs 24 hexadecimal digits`},
		{`{"$numberDecimal":"1.5"}`, `no decimal type`},
		{`{"$date":"yesterday"}`, `not an ISO-8601 time`},
		{`{"$oid":"507f1f77bcf86cd799439011","x":1}`, `must be the only key`},
		{`tru`, `expected a value`},
		{`NaN`, `expected a value`},
	}
	for _, c := range cases {
		_, err := query.ParseString(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%.40q) error = %v, want it to contain %q", c.in, err, c.want)
			continue
		}
		if query.KindOf(err) != query.Invalid {
			t.Errorf("Parse(%.40q) kind = %v, want invalid", c.in, query.KindOf(err))
		}
	}
	ok := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if _, err := query.ParseString(ok); err != nil {
		t.Errorf("depth 100 must parse: %v", err)
	}
}

// randValue builds a random value of any of the ten types, nested up to depth.
func randValue(r *rand.Rand, depth int) query.Value {
	n := 10
	if depth <= 0 {
		n = 8
	}
	switch r.IntN(n) {
	case 0:
		return query.NullValue()
	case 1:
		return query.BoolValue(r.IntN(2) == 1)
	case 2:
		edges := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 53, 1<<53 + 1, -(1 << 53) - 1}
		if r.IntN(3) == 0 {
			return query.LongValue(edges[r.IntN(len(edges))])
		}
		return query.LongValue(r.Int64N(2000) - 1000)
	case 3:
		edges := []float64{2.0, math.Copysign(0, -1), 0, 1e300, -1e-300, 0.1, math.NaN(), math.Inf(1), math.Inf(-1), 1 << 53, 9.5}
		if r.IntN(2) == 0 {
			return query.DoubleValue(edges[r.IntN(len(edges))])
		}
		return query.DoubleValue(r.NormFloat64() * 1000)
	case 4:
		return query.StringValue(randString(r))
	case 5:
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return query.BinaryValue(b, byte(r.IntN(2)*4))
	case 6:
		return query.ObjectIDValue(query.NewOID())
	case 7:
		return query.DateValue(r.Int64N(1<<42) - 1<<41)
	case 8:
		elems := make([]query.Value, r.IntN(4))
		for i := range elems {
			elems[i] = randValue(r, depth-1)
		}
		return query.ArrayValue(elems)
	default:
		return randObject(r, depth-1, r.IntN(4))
	}
}

func randObject(r *rand.Rand, depth, n int) query.Value {
	fields := []query.Field{}
	for i := 0; i < n; i++ {
		key := []string{"a", "b", "_id", "x.y", "é", "", "$x", "k\"\\"}[r.IntN(8)] + string(rune('a'+i))
		fields = append(fields, query.Field{Key: key, Value: randValue(r, depth)})
	}
	return query.ObjectValue(fields)
}

func randString(r *rand.Rand) string {
	pieces := []string{"a", "Z", "\"", "\\", "\n", "\t", "\x00", "\x01", "\x1f", "é", "😀", "/", "<", "\u2028", " "}
	var b strings.Builder
	for i := r.IntN(6); i > 0; i-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func TestCodec_RoundTripProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		v := randValue(r, 4)
		enc := query.JSON(v)
		back, err := query.Parse(enc)
		if err != nil {
			t.Fatalf("Parse(JSON(%v)) = %v (enc %s)", v, err, enc)
		}
		if again := query.JSON(back); !bytes.Equal(again, enc) {
			t.Fatalf("round trip changed bytes:\n%s\n%s", enc, again)
		}
		if query.Compare(v, back) != 0 {
			t.Fatalf("round trip changed value: %s", enc)
		}
	}
}

func TestIDFirst(t *testing.T) {
	v := query.MustParse(`{"a":1,"b":{"_id":2,"c":3},"_id":7}`).IDFirst()
	if got := string(query.JSON(v)); got != `{"_id":7,"a":1,"b":{"_id":2,"c":3}}` {
		t.Errorf("IDFirst = %s", got)
	}
}

func TestOID(t *testing.T) {
	a, b := query.NewOID(), query.NewOID()
	if a == b {
		t.Fatal("two ObjectIds are equal")
	}
	if bytes.Compare(a[:], b[:]) >= 0 && a.Time().Equal(b.Time()) {
		t.Errorf("ObjectIds from one process in one second must ascend: %s %s", a.Hex(), b.Hex())
	}
	back, ok := query.ParseOID(a.Hex())
	if !ok || back != a {
		t.Errorf("ParseOID(%s) = %v %v", a.Hex(), back, ok)
	}
}
