package value_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
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
		{`{"$numberInt":"-7"}`, `{"$numberInt":"-7"}`},
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
		v, err := value.ParseString(c.in)
		if err != nil {
			t.Errorf("Parse(%s): %v", c.in, err)
			continue
		}
		if got := string(value.JSON(v)); got != c.want {
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
		{`{"$numberDecimal":"1.5.2"}`, `not a decimal number`},
		{`{"$numberDecimal":"1234567890123456789012345678901234567"}`, `does not fit in a decimal128`},
		{`{"$numberDecimal":1.5}`, `$numberDecimal needs a string`},
		// jstests/decimal/decimal_constructors.js: exact doubles of more than 34 digits.
		{`{"$numberDecimal":"1427247692705959881058285969449495136382746624"}`, `does not fit in a decimal128`},
		{`{"$numberDecimal":"0.00000000000000000000000000000000000000000000000000000000000062230152778611417071440640537801242405902521687211671331011166147896988340353834411839448231257136169569665895551224821247160434722900390625"}`, `does not fit in a decimal128`},
		{`{"$numberDecimal":"some garbage"}`, `not a decimal number`},
		{`{"$timestamp":{"t":-1,"i":0}}`, `$timestamp needs`},
		{`{"$timestamp":{"t":4294967296,"i":0}}`, `$timestamp needs`},
		{`{"$regularExpression":{"pattern":"a","options":"q"}}`, `option 'q' is not one of MongoDB's`},
		{`{"$minKey":2}`, `$minKey needs the value 1`},
		{`{"$symbol":"a"}`, `deprecated`},
		{`{"$date":"yesterday"}`, `not an ISO-8601 time`},
		{`{"$oid":"507f1f77bcf86cd799439011","x":1}`, `must be the only key`},
		{`tru`, `expected a value`},
		{`NaN`, `expected a value`},
	}
	for _, c := range cases {
		_, err := value.ParseString(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%.40q) error = %v, want it to contain %q", c.in, err, c.want)
			continue
		}
		if errs.KindOf(err) != errs.Invalid {
			t.Errorf("Parse(%.40q) kind = %v, want invalid", c.in, errs.KindOf(err))
		}
	}
	ok := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if _, err := value.ParseString(ok); err != nil {
		t.Errorf("depth 100 must parse: %v", err)
	}
}

func TestCodec_RoundTripProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		v := testgen.Value(r, 4)
		enc := value.JSON(v)
		back, err := value.Parse(enc)
		if err != nil {
			t.Fatalf("Parse(JSON(%v)) = %v (enc %s)", v, err, enc)
		}
		if again := value.JSON(back); !bytes.Equal(again, enc) {
			t.Fatalf("round trip changed bytes:\n%s\n%s", enc, again)
		}
		if value.Compare(v, back) != 0 {
			t.Fatalf("round trip changed value: %s", enc)
		}
	}
}

func TestIDFirst(t *testing.T) {
	v := value.MustParse(`{"a":1,"b":{"_id":2,"c":3},"_id":7}`).IDFirst()
	if got := string(value.JSON(v)); got != `{"_id":7,"a":1,"b":{"_id":2,"c":3}}` {
		t.Errorf("IDFirst = %s", got)
	}
}

func TestOID(t *testing.T) {
	a, b := value.NewOID(), value.NewOID()
	if a == b {
		t.Fatal("two ObjectIds are equal")
	}
	if bytes.Compare(a[:], b[:]) >= 0 && a.Time().Equal(b.Time()) {
		t.Errorf("ObjectIds from one process in one second must ascend: %s %s", a.Hex(), b.Hex())
	}
	back, ok := value.ParseOID(a.Hex())
	if !ok || back != a {
		t.Errorf("ParseOID(%s) = %v %v", a.Hex(), back, ok)
	}
}

func TestParseIDArg(t *testing.T) {
	oid := value.NewOID()
	for _, tc := range []struct {
		arg  string
		want value.Value
	}{
		{oid.Hex(), value.ObjectIDValue(oid)},
		{`{"$oid":"` + oid.Hex() + `"}`, value.ObjectIDValue(oid)},
		{"42", value.LongValue(42)},
		{"4.5", value.DoubleValue(4.5)},
		{`"ada"`, value.StringValue("ada")},
		{"ada", value.StringValue("ada")},
		{"42abc", value.StringValue("42abc")},
		{"", value.StringValue("")},
	} {
		if got := value.ParseIDArg(tc.arg); value.Compare(got, tc.want) != 0 || got.Kind() != tc.want.Kind() {
			t.Errorf("ParseIDArg(%q) = %v, want %v", tc.arg, got, tc.want)
		}
	}
}
