package value_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/value"
)

// ParseInput reads numbers as mongoimport does (its JSON reader is the Go
// driver's bson.UnmarshalExtJSON): a plain integer that fits in 32 bits is
// an int, a larger one a long, a fraction or an exponent a double; explicit
// wrappers keep their type. Parse, for the stored form, reads longs.
func TestParseInput_Numbers(t *testing.T) {
	cases := []struct{ in, input, stored string }{
		{`{"a":1}`, `{"a":{"$numberInt":"1"}}`, `{"a":1}`},
		{`{"a":-2147483648}`, `{"a":{"$numberInt":"-2147483648"}}`, `{"a":-2147483648}`},
		{`{"a":2147483647}`, `{"a":{"$numberInt":"2147483647"}}`, `{"a":2147483647}`},
		{`{"a":2147483648}`, `{"a":2147483648}`, `{"a":2147483648}`},
		{`{"a":-2147483649}`, `{"a":-2147483649}`, `{"a":-2147483649}`},
		{`{"a":9223372036854775807}`, `{"a":9223372036854775807}`, `{"a":9223372036854775807}`},
		{`{"a":-0}`, `{"a":{"$numberInt":"0"}}`, `{"a":0}`},
		{`{"a":1.0}`, `{"a":1.0}`, `{"a":1.0}`},
		{`{"a":1e2}`, `{"a":100.0}`, `{"a":100.0}`},
		{`{"a":[1,[2,{"b":3}],4.5,null]}`, `{"a":[{"$numberInt":"1"},[{"$numberInt":"2"},{"b":{"$numberInt":"3"}}],4.5,null]}`, `{"a":[1,[2,{"b":3}],4.5,null]}`},
		{`{"a":{"$numberLong":"1"}}`, `{"a":1}`, `{"a":1}`},
		{`{"a":{"$numberInt":"1"}}`, `{"a":{"$numberInt":"1"}}`, `{"a":{"$numberInt":"1"}}`},
		{`{"a":{"$numberDouble":"1"}}`, `{"a":1.0}`, `{"a":1.0}`},
		{`{"a":{"$numberDecimal":"1"}}`, `{"a":{"$numberDecimal":"1"}}`, `{"a":{"$numberDecimal":"1"}}`},
		// A wrapper's numbers are its arguments: a date, a timestamp.
		{`{"a":{"$date":5}}`, `{"a":{"$date":5}}`, `{"a":{"$date":5}}`},
		{`{"a":{"$date":1700000000000}}`, `{"a":{"$date":1700000000000}}`, `{"a":{"$date":1700000000000}}`},
		{`{"a":{"$timestamp":{"t":1,"i":2}}}`, `{"a":{"$timestamp":{"t":1,"i":2}}}`, `{"a":{"$timestamp":{"t":1,"i":2}}}`},
		{`{"a":{"$minKey":1}}`, `{"a":{"$minKey":1}}`, `{"a":{"$minKey":1}}`},
	}
	for _, c := range cases {
		for _, f := range []struct {
			name  string
			parse func([]byte) (value.Value, error)
			want  string
		}{{"ParseInput", value.ParseInput, c.input}, {"Parse", value.Parse, c.stored}} {
			v, err := f.parse([]byte(c.in))
			if err != nil {
				t.Errorf("%s(%s): %v", f.name, c.in, err)
				continue
			}
			if got := string(value.AppendJSON(nil, v)); got != f.want {
				t.Errorf("%s(%s) stores %s, want %s", f.name, c.in, got, f.want)
			}
		}
		// The import's transcoder writes what the parser reads.
		out, _, err := value.AppendCanonicalInput(nil, []byte(`{"_id":0,`+c.in[1:]))
		if err != nil {
			t.Errorf("AppendCanonicalInput(%s): %v", c.in, err)
			continue
		}
		if want := `{"_id":{"$numberInt":"0"},` + c.input[1:]; string(out) != want {
			t.Errorf("AppendCanonicalInput(%s) = %s, want %s", c.in, out, want)
		}
	}
}

// TestParseInput_AsTheDriverReads compares ParseInput with the oracle:
// for random documents written in relaxed mode, where every integer is a
// plain number, omgdb reads each number as the same type the driver reads.
func TestParseInput_AsTheDriverReads(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	for i := 0; i < 2000; i++ {
		js, err := bson.MarshalExtJSON(toBSON(testgen.Document(r)), false, false)
		if err != nil {
			t.Fatal(err)
		}
		var d bson.D
		if err := bson.UnmarshalExtJSON(js, false, &d); err != nil {
			t.Fatalf("the driver cannot read its own %s: %v", js, err)
		}
		want, err := fromBSON(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := value.ParseInput(js)
		if err != nil {
			t.Fatalf("ParseInput(%s): %v", js, err)
		}
		if !value.SameCanonical(got, want) {
			t.Fatalf("ParseInput(%s) = %s; the driver reads %s", js, value.AppendJSON(nil, got), value.AppendJSON(nil, want))
		}
		out, _, err := value.AppendCanonicalInput(nil, js)
		if err != nil {
			t.Fatalf("AppendCanonicalInput(%s): %v", js, err)
		}
		back := value.MustParse(string(out))
		if want.Get("_id").IsMissing() {
			back = back.Without("_id")
		}
		if !value.SameCanonical(back, want.IDFirst()) {
			t.Fatalf("AppendCanonicalInput(%s) = %s; the driver reads %s", js, out, value.AppendJSON(nil, want))
		}
	}
}

// FuzzParseInput: ParseInput accepts what Parse accepts, to a value that
// differs only in the type of its integers; AppendCanonicalInput writes a
// document that reads back to ParseInput's value.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"_id":-0,"a":[2147483648,{"b":-2147483649}]}`, `{"a":{"$date":5}}`, `{"t":{"$timestamp":{"t":1,"i":2}}}`, `[1,1.0,1e2,{"$numberLong":"3"}]`, `{"a":{"$minKey":1},"b":{"$numberInt":"7"}}`, `{"a":9223372036854775808}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		a, errA := value.Parse(in)
		b, errB := value.ParseInput(in)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%q: Parse: %v; ParseInput: %v", in, errA, errB)
		}
		if errA != nil {
			return
		}
		if value.Compare(a, b) != 0 || !value.SameCanonical(integersAsLongs(a), integersAsLongs(b)) {
			t.Fatalf("%q: Parse %s, ParseInput %s", in, value.AppendJSON(nil, a), value.AppendJSON(nil, b))
		}
		out, _, err := value.AppendCanonicalInput(nil, in)
		if err != nil {
			return // not a storable document
		}
		back, err := value.Parse(out)
		if err != nil {
			t.Fatalf("%q: wrote %s, which does not read back: %v", in, out, err)
		}
		if b.Get("_id").IsMissing() {
			back = back.Without("_id")
		}
		if !value.SameCanonical(back, b.IDFirst()) {
			t.Fatalf("%q: wrote %s, ParseInput reads %s", in, out, value.AppendJSON(nil, b))
		}
	})
}

// TestAppendCanonicalDocument_RefusesWrappers: a top-level type wrapper is
// a value, not a document. The import's fast path used to store
// {"$numberLong":"5"} as the invalid bytes 5"_id":{…} and {"$minKey":1}
// as a document with a "$minKey" field (found by FuzzParseInput).
func TestAppendCanonicalDocument_RefusesWrappers(t *testing.T) {
	for _, in := range []string{`{"$minKey":1}`, `{"$date":5}`, `{"$numberLong":"5"}`, ` {"$oid":"507f1f77bcf86cd799439011"}`, `{"$numberInt":"1"}`} {
		for name, f := range map[string]func(dst, src []byte) ([]byte, value.Value, error){
			"AppendCanonicalDocument": value.AppendCanonicalDocument, "AppendCanonicalInput": value.AppendCanonicalInput,
		} {
			out, _, err := f(nil, []byte(in))
			if err == nil || !strings.Contains(err.Error(), "a document must be a JSON object") {
				t.Errorf("%s(%s) = %s, %v; want an error", name, in, out, err)
			}
		}
	}
}
