package value_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/value"
)

// The official Go driver's Extended JSON codec is the oracle of omgdb's
// (DESIGN.md section 5): for random documents of every type, in both
// modes, what omgdb writes the driver reads to the same values, and what
// the driver writes omgdb reads to the same values.

var oracleModes = []value.EJSONMode{value.EJSONRelaxed, value.EJSONCanonical}

func TestEJSON_DriverReadsOmgdb(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 17))
	for i := 0; i < 3000; i++ {
		doc := testgen.Document(r)
		for _, m := range oracleModes {
			js := value.AppendEJSON(nil, doc, m)
			var d bson.D
			if err := bson.UnmarshalExtJSON(js, m == value.EJSONCanonical, &d); err != nil {
				t.Fatalf("%s: the driver cannot read %s: %v", m, js, err)
			}
			got, err := fromBSON(d)
			if err != nil {
				t.Fatalf("%s: %s: %v", m, js, err)
			}
			if !sameInMode(got, doc, m) {
				t.Fatalf("%s: omgdb wrote %s; the driver read %s", m, js, got)
			}
		}
	}
}

func TestEJSON_OmgdbReadsDriver(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 17))
	for i := 0; i < 3000; i++ {
		doc := testgen.Document(r)
		d := toBSON(doc)
		for _, m := range oracleModes {
			js, err := bson.MarshalExtJSON(d, m == value.EJSONCanonical, false)
			if err != nil {
				t.Fatalf("the driver cannot write %s: %v", doc, err)
			}
			got, err := value.Parse(js)
			if err != nil {
				t.Fatalf("%s: omgdb cannot read the driver's %s: %v", m, js, err)
			}
			if !sameInMode(got, doc, m) {
				t.Fatalf("%s: the driver wrote %s; omgdb read %s, want %s", m, js, got, doc)
			}
		}
	}
}

// sameInMode reports whether a and b are the same values as far as mode m
// can tell: relaxed mode writes every integer as a plain number, which a
// reader takes for an int when it fits in 32 bits and a long otherwise, so
// there the integer types are compared by value only.
func sameInMode(a, b value.Value, m value.EJSONMode) bool {
	if m == value.EJSONRelaxed {
		a, b = integersAsLongs(a), integersAsLongs(b)
	}
	return value.SameCanonical(a, b)
}

// integersAsLongs returns v with every integer number as a long.
func integersAsLongs(v value.Value) value.Value {
	switch v.Kind() {
	case value.Array:
		elems := make([]value.Value, v.Len())
		for i, e := range v.Array() {
			elems[i] = integersAsLongs(e)
		}
		return value.ArrayValue(elems)
	case value.Object:
		fields := make([]value.Field, v.Len())
		for i, f := range v.Fields() {
			fields[i] = value.Field{Key: f.Key, Value: integersAsLongs(f.Value)}
		}
		return value.ObjectValue(fields)
	case value.Int:
		return value.LongValue(v.Long())
	}
	return v
}

// toBSON returns the driver's value for an omgdb value.
func toBSON(v value.Value) any {
	switch v.Kind() {
	case value.Null:
		return nil
	case value.Bool:
		return v.Bool()
	case value.Long:
		return v.Long()
	case value.Double:
		return v.Double()
	case value.String:
		return v.Str()
	case value.Binary:
		return bson.Binary{Subtype: v.Subtype(), Data: v.Bytes()}
	case value.ObjectID:
		return bson.ObjectID(v.OID())
	case value.Date:
		return bson.DateTime(v.Date())
	case value.Int:
		return int32(v.Long())
	case value.Decimal:
		d, err := bson.ParseDecimal128(v.DecimalString())
		if err != nil {
			panic(fmt.Sprintf("the driver cannot parse decimal %s: %v", v.DecimalString(), err))
		}
		return d
	case value.Timestamp:
		t, i := v.Timestamp()
		return bson.Timestamp{T: t, I: i}
	case value.Regex:
		return bson.Regex{Pattern: v.Pattern(), Options: v.Options()}
	case value.MinKey:
		return bson.MinKey{}
	case value.MaxKey:
		return bson.MaxKey{}
	case value.Array:
		a := bson.A{}
		for _, e := range v.Array() {
			a = append(a, toBSON(e))
		}
		return a
	case value.Object:
		d := bson.D{}
		for _, f := range v.Fields() {
			d = append(d, bson.E{Key: f.Key, Value: toBSON(f.Value)})
		}
		return d
	}
	panic(fmt.Sprintf("toBSON: no driver type for %s", v.Kind()))
}

// fromBSON returns the omgdb value for a value the driver decoded.
func fromBSON(x any) (value.Value, error) {
	switch x := x.(type) {
	case nil:
		return value.NullValue(), nil
	case bool:
		return value.BoolValue(x), nil
	case int32:
		return value.IntValue(x), nil
	case bson.Decimal128:
		return value.ParseDecimal(x.String())
	case bson.Timestamp:
		return value.TimestampValue(x.T, x.I), nil
	case bson.Regex:
		return value.RegexValue(x.Pattern, x.Options), nil
	case bson.MinKey:
		return value.MinKeyValue(), nil
	case bson.MaxKey:
		return value.MaxKeyValue(), nil
	case int64:
		return value.LongValue(x), nil
	case float64:
		return value.DoubleValue(x), nil
	case string:
		return value.StringValue(x), nil
	case bson.Binary:
		return value.BinaryValue(x.Data, x.Subtype), nil
	case bson.ObjectID:
		return value.ObjectIDValue(value.OID(x)), nil
	case bson.DateTime:
		return value.DateValue(int64(x)), nil
	case bson.A:
		elems := make([]value.Value, len(x))
		for i, e := range x {
			v, err := fromBSON(e)
			if err != nil {
				return value.Value{}, err
			}
			elems[i] = v
		}
		return value.ArrayValue(elems), nil
	case bson.D:
		fields := make([]value.Field, len(x))
		for i, e := range x {
			v, err := fromBSON(e.Value)
			if err != nil {
				return value.Value{}, err
			}
			fields[i] = value.Field{Key: e.Key, Value: v}
		}
		return value.ObjectValue(fields), nil
	}
	return value.Value{}, fmt.Errorf("the driver decoded a %T, which omgdb has no type for", x)
}
