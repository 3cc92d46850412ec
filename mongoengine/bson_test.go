package mongoengine

import (
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/value"
)

// TestBSON_RoundTrip converts random documents (every type, nested,
// numeric edge cases) to BSON bytes with the driver's encoder and back,
// and checks that every value and type comes back exactly.
func TestBSON_RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		doc := testgen.Object(r, 4, 1+r.IntN(5), true)
		d, err := docToBSON(doc)
		if err != nil {
			t.Fatalf("doc %d %s: to BSON: %v", i, value.JSON(doc), err)
		}
		raw, err := bson.Marshal(d)
		if err != nil {
			t.Fatalf("doc %d %s: marshal: %v", i, value.JSON(doc), err)
		}
		back, err := fromDoc(raw)
		if err != nil {
			t.Fatalf("doc %d %s: from BSON: %v", i, value.JSON(doc), err)
		}
		if got, want := canonical(back), canonical(doc); got != want {
			t.Fatalf("doc %d changed through BSON:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestBSON_Types checks each type against the driver's own Extended JSON
// reading of the same document (the oracle): int32, long, double and
// decimal stay apart, and so do null and a missing field.
func TestBSON_Types(t *testing.T) {
	cases := []string{
		`{"i":{"$numberInt":"1"},"l":{"$numberLong":"1"},"d":{"$numberDouble":"1.0"}}`,
		`{"big":{"$numberLong":"9007199254740993"},"neg":{"$numberLong":"-9223372036854775808"}}`,
		`{"dec":{"$numberDecimal":"0.10"},"inf":{"$numberDecimal":"-Infinity"},"nan":{"$numberDecimal":"NaN"}}`,
		`{"n":null,"a":[null,[],{}],"o":{"":{"$numberInt":"1"}}}`,
		`{"oid":{"$oid":"5f0000000000000000000001"},"date":{"$date":{"$numberLong":"-1"}}}`,
		`{"bin":{"$binary":{"base64":"AQI=","subType":"04"}},"ts":{"$timestamp":{"t":5,"i":1}}}`,
		`{"re":{"$regularExpression":{"pattern":"^a.b","options":"im"}},"min":{"$minKey":1},"max":{"$maxKey":1}}`,
		`{"nd":{"$numberDouble":"-0.0"},"ninf":{"$numberDouble":"-Infinity"}}`,
	}
	for _, js := range cases {
		var oracle bson.Raw
		if err := bson.UnmarshalExtJSON([]byte(js), true, &oracle); err != nil {
			t.Fatalf("oracle reads %s: %v", js, err)
		}
		d, err := docToBSON(value.MustParse(js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		ours, err := bson.Marshal(d)
		if err != nil {
			t.Fatalf("%s: marshal: %v", js, err)
		}
		if string(ours) != string(oracle) {
			t.Errorf("%s:\n ours   %s\n oracle %s", js, bson.Raw(ours), oracle)
		}
		back, err := fromDoc(oracle)
		if err != nil {
			t.Fatalf("%s: from BSON: %v", js, err)
		}
		if got, want := canonical(back), canonical(value.MustParse(js)); got != want {
			t.Errorf("from the oracle's BSON:\n got %s\nwant %s", got, want)
		}
	}
}

// TestBSON_DeprecatedTypes checks that a type omgdb has no value for is
// an error naming it, never a silent null.
func TestBSON_DeprecatedTypes(t *testing.T) {
	for _, js := range []string{`{"u":{"$undefined":true}}`, `{"s":{"$symbol":"x"}}`, `{"c":{"$code":"f()"}}`} {
		var raw bson.Raw
		if err := bson.UnmarshalExtJSON([]byte(js), true, &raw); err != nil {
			t.Fatal(err)
		}
		_, err := fromDoc(raw)
		if err == nil {
			t.Errorf("%s: no error", js)
			continue
		}
		t.Logf("%s: %v", js, err)
	}
}

func canonical(v value.Value) string { return string(value.AppendEJSON(nil, v, value.EJSONCanonical)) }
