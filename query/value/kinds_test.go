package value_test

import (
	"testing"

	"github.com/omgdb/omgdb/query/value"
)

// The kinds beyond plain JSON: their Extended JSON input forms, stored
// form, relaxed and canonical output. Decimal texts are from the BSON
// corpus of mongodb/specifications (source/bson-corpus/tests/
// decimal128-1.json ... decimal128-7.json: "canonical_extjson" of valid
// cases, clamped exponents, zeros) and jstests/decimal/
// decimal_roundtrip_basic.js.
func TestParse_NewKinds(t *testing.T) {
	cases := []struct{ in, kind, stored, relaxed string }{
		{`{"$numberInt":"-2147483648"}`, "int", `{"$numberInt":"-2147483648"}`, `-2147483648`},
		{`{"$numberInt":"7"}`, "int", `{"$numberInt":"7"}`, `7`},
		{`{"$numberDecimal":"1.50"}`, "decimal", `{"$numberDecimal":"1.50"}`, `{"$numberDecimal":"1.50"}`},
		{`{"$numberDecimal":"-0"}`, "decimal", `{"$numberDecimal":"-0"}`, ``},
		{`{"$numberDecimal":"0E-9"}`, "decimal", `{"$numberDecimal":"0E-9"}`, ``},
		{`{"$numberDecimal":"0.000001"}`, "decimal", `{"$numberDecimal":"0.000001"}`, ``},
		{`{"$numberDecimal":"0.0000001"}`, "decimal", `{"$numberDecimal":"1E-7"}`, ``},
		{`{"$numberDecimal":"1E+3"}`, "decimal", `{"$numberDecimal":"1E+3"}`, ``},
		{`{"$numberDecimal":"1000"}`, "decimal", `{"$numberDecimal":"1000"}`, ``},
		{`{"$numberDecimal":"12345678901234567890.12345678901234"}`, "decimal", `{"$numberDecimal":"12345678901234567890.12345678901234"}`, ``},
		{`{"$numberDecimal":"9999999999999999999999999999999999E6111"}`, "decimal", `{"$numberDecimal":"9.999999999999999999999999999999999E+6144"}`, ``},
		{`{"$numberDecimal":"1E6112"}`, "decimal", `{"$numberDecimal":"1.0E+6112"}`, ``},
		{`{"$numberDecimal":"1E-6176"}`, "decimal", `{"$numberDecimal":"1E-6176"}`, ``},
		{`{"$numberDecimal":"0E-6177"}`, "decimal", `{"$numberDecimal":"0E-6176"}`, ``},
		{`{"$numberDecimal":"1.0000000000000000000000000000000000000"}`, "decimal", `{"$numberDecimal":"1.000000000000000000000000000000000"}`, ``},
		{`{"$numberDecimal":"-NaN"}`, "decimal", `{"$numberDecimal":"NaN"}`, ``},
		{`{"$numberDecimal":"sNaN"}`, "decimal", `{"$numberDecimal":"NaN"}`, ``},
		{`{"$numberDecimal":"-Infinity"}`, "decimal", `{"$numberDecimal":"-Infinity"}`, ``},
		{`{"$numberDecimal":"Inf"}`, "decimal", `{"$numberDecimal":"Infinity"}`, ``},
		{`{"$timestamp":{"t":4294967295,"i":1}}`, "timestamp", `{"$timestamp":{"t":4294967295,"i":1}}`, ``},
		{`{"$regularExpression":{"pattern":"^a\"b","options":"xmi"}}`, "regex", `{"$regularExpression":{"pattern":"^a\"b","options":"imx"}}`, ``},
		{`{"$minKey":1}`, "minKey", `{"$minKey":1}`, ``},
		{`{"$maxKey":1}`, "maxKey", `{"$maxKey":1}`, ``},
	}
	for _, c := range cases {
		v, err := value.ParseString(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if v.TypeName() != c.kind {
			t.Errorf("%s: type %s, want %s", c.in, v.TypeName(), c.kind)
		}
		if got := string(value.AppendJSON(nil, v)); got != c.stored {
			t.Errorf("%s: stored %s, want %s", c.in, got, c.stored)
		}
		relaxed := c.relaxed
		if relaxed == "" {
			relaxed = c.stored
		}
		if got := string(value.AppendEJSON(nil, v, value.EJSONRelaxed)); got != relaxed {
			t.Errorf("%s: relaxed %s, want %s", c.in, got, relaxed)
		}
		if got := string(value.AppendEJSON(nil, v, value.EJSONCanonical)); got != c.stored {
			t.Errorf("%s: canonical %s, want %s", c.in, got, c.stored)
		}
		if back := value.MustParse(c.stored); !value.SameCanonical(back, v) {
			t.Errorf("%s: stored form parses to %s", c.in, back)
		}
	}
}

func TestPrepareDocument_LegacyRegex(t *testing.T) {
	doc := value.MustParse(`{"_id":1,"r":{"$regex":"^a","$options":"mi"},"a":[{"$regex":"b","$options":""}],"o":{"x":1}}`)
	got, err := value.PrepareDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"_id":1,"r":{"$regularExpression":{"pattern":"^a","options":"im"}},"a":[{"$regularExpression":{"pattern":"b","options":""}}],"o":{"x":1}}`
	if got.String() != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// In a filter the same object stays the $regex operator.
	if f := value.MustParse(`{"$regex":"^a","$options":"i"}`); f.Kind() != value.Object {
		t.Errorf("Parse turned the $regex operator into a %s", f.TypeName())
	}
	if _, err := value.PrepareDocument(value.MustParse(`{"r":{"$regex":"a"}}`)); err == nil {
		t.Error(`{"$regex":"a"} without $options was stored`)
	}
}
