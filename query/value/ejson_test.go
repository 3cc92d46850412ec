package value_test

import (
	"math/rand/v2"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/value"
)

// Cases from the Extended JSON v2 specification's tables (mongodb/
// specifications source/extended-json/extended-json.md, "Conversion
// table") and its BSON corpus (datetime.json, double.json, binary.json).
func TestAppendEJSON_Modes(t *testing.T) {
	cases := []struct{ in, relaxed, canonical string }{
		{`42`, `42`, `{"$numberLong":"42"}`},
		{`-9223372036854775808`, `-9223372036854775808`, `{"$numberLong":"-9223372036854775808"}`},
		{`1.0`, `1.0`, `{"$numberDouble":"1.0"}`},
		{`-0.0`, `-0.0`, `{"$numberDouble":"-0.0"}`},
		{`1e300`, `1e+300`, `{"$numberDouble":"1e+300"}`},
		{`{"$numberDouble":"Infinity"}`, `{"$numberDouble":"Infinity"}`, `{"$numberDouble":"Infinity"}`},
		{`{"$numberDouble":"NaN"}`, `{"$numberDouble":"NaN"}`, `{"$numberDouble":"NaN"}`},
		{`{"$date":0}`, `{"$date":"1970-01-01T00:00:00Z"}`, `{"$date":{"$numberLong":"0"}}`},
		{`{"$date":"2025-05-21T00:00:00Z"}`, `{"$date":"2025-05-21T00:00:00Z"}`, `{"$date":{"$numberLong":"1747785600000"}}`},
		{`{"$date":"2012-12-24T12:15:30.501Z"}`, `{"$date":"2012-12-24T12:15:30.501Z"}`, `{"$date":{"$numberLong":"1356351330501"}}`},
		{`{"$date":-284643869501}`, `{"$date":{"$numberLong":"-284643869501"}}`, `{"$date":{"$numberLong":"-284643869501"}}`},
		{`{"$date":253402300800000}`, `{"$date":{"$numberLong":"253402300800000"}}`, `{"$date":{"$numberLong":"253402300800000"}}`},
		{`{"$date":253402300799999}`, `{"$date":"9999-12-31T23:59:59.999Z"}`, `{"$date":{"$numberLong":"253402300799999"}}`},
		{`{"$binary":"AAEC"}`, `{"$binary":{"base64":"AAEC","subType":"00"}}`, `{"$binary":{"base64":"AAEC","subType":"00"}}`},
		{`{"$uuid":"73ffd264-44b3-4c69-90e8-e7d1dfc035d4"}`, `{"$binary":{"base64":"c//SZESzTGmQ6OfR38A11A==","subType":"04"}}`, `{"$binary":{"base64":"c//SZESzTGmQ6OfR38A11A==","subType":"04"}}`},
		{`{"$oid":"57e193d7a9cc81b4027498b5"}`, `{"$oid":"57e193d7a9cc81b4027498b5"}`, `{"$oid":"57e193d7a9cc81b4027498b5"}`},
		{`{"a":[1,2.5,null,true,"x"],"b":{}}`, `{"a":[1,2.5,null,true,"x"],"b":{}}`, `{"a":[{"$numberLong":"1"},{"$numberDouble":"2.5"},null,true,"x"],"b":{}}`},
	}
	for _, c := range cases {
		v := value.MustParse(c.in)
		if got := string(value.AppendEJSON(nil, v, value.EJSONRelaxed)); got != c.relaxed {
			t.Errorf("relaxed %s = %s, want %s", c.in, got, c.relaxed)
		}
		if got := string(value.AppendEJSON(nil, v, value.EJSONCanonical)); got != c.canonical {
			t.Errorf("canonical %s = %s, want %s", c.in, got, c.canonical)
		}
		for _, out := range []string{c.relaxed, c.canonical} {
			if back := value.MustParse(out); !value.SameCanonical(back, v) {
				t.Errorf("%s parses to %s, want %s", out, back, v)
			}
		}
	}
}

func TestTranscodeEJSON_EqualsAppend(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 17))
	for i := 0; i < 2000; i++ {
		doc := testgen.Document(r)
		stored := value.JSON(doc)
		for _, m := range []value.EJSONMode{value.EJSONStored, value.EJSONRelaxed, value.EJSONCanonical} {
			got, err := value.TranscodeEJSON(nil, stored, m)
			if err != nil {
				t.Fatalf("%s: %v", stored, err)
			}
			if want := value.AppendEJSON(nil, doc, m); string(got) != string(want) {
				t.Fatalf("%s: TranscodeEJSON %s = %s, want %s", m, stored, got, want)
			}
		}
	}
}

func TestParseEJSONMode(t *testing.T) {
	for _, s := range []string{"relaxed", "canonical", "stored"} {
		m, err := value.ParseEJSONMode(s)
		if err != nil || m.String() != s {
			t.Errorf("ParseEJSONMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := value.ParseEJSONMode("shell"); err == nil {
		t.Error(`ParseEJSONMode("shell") gave no error`)
	}
}

func TestParse_LegacyAndV2Forms(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"$date":{"$numberLong":"1356351330501"}}`, `{"$date":1356351330501}`},
		{`{"$date":"2012-12-24T12:15:30.501+01:00"}`, `{"$date":1356347730501}`},
		{`{"$binary":"AAEC","$type":"80"}`, `{"$binary":{"base64":"AAEC","subType":"80"}}`},
		{`{"$uuid":"00000000-0000-0000-0000-000000000001"}`, `{"$binary":{"base64":"AAAAAAAAAAAAAAAAAAAAAQ==","subType":"04"}}`},
	}
	for _, c := range cases {
		v, err := value.ParseString(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := v.String(); got != c.want {
			t.Errorf("%s = %s, want %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{`{"$uuid":"0000"}`, `{"$uuid":"zzzzzzzz-0000-0000-0000-000000000001"}`, `{"$uuid":1}`} {
		if _, err := value.ParseString(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// BenchmarkTranscodeEJSON_Relaxed is find's default output of a stored
// document with a date, an objectId and a long: the wrappers rewritten in
// place, the rest copied.
func BenchmarkTranscodeEJSON_Relaxed(b *testing.B) {
	js := []byte(`{"_id":{"$oid":"507f1f77bcf86cd799439011"},"name":"Ada Lovelace","age":36,"tags":["math","poetry"],"created":{"$date":1714564800500},"score":12.5}`)
	var out []byte
	b.SetBytes(int64(len(js)))
	for i := 0; i < b.N; i++ {
		out, _ = value.TranscodeEJSON(out[:0], js, value.EJSONRelaxed)
	}
}
