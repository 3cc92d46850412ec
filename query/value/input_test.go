package value_test

import (
	"math/rand/v2"
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
