package mongoengine

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// toBSON converts a value to what the driver encodes as the same BSON
// value: an object to bson.D (field order kept), an array to bson.A, each
// scalar to its BSON type. Nothing passes through text or float64.
func toBSON(v value.Value) (any, error) {
	switch v.Kind() {
	case value.Null:
		return nil, nil
	case value.Bool:
		return v.Bool(), nil
	case value.Int:
		return int32(v.Long()), nil
	case value.Long:
		return v.Long(), nil
	case value.Double:
		return v.Double(), nil
	case value.Decimal:
		d, err := bson.ParseDecimal128(v.DecimalString())
		if err != nil {
			return nil, errs.Errorf(errs.Invalid, "decimal %s does not fit a decimal128: %v", v.DecimalString(), err)
		}
		return d, nil
	case value.String:
		return v.Str(), nil
	case value.Binary:
		return bson.Binary{Subtype: v.Subtype(), Data: v.Bytes()}, nil
	case value.ObjectID:
		return bson.ObjectID(v.OID()), nil
	case value.Date:
		return bson.DateTime(v.Date()), nil
	case value.Timestamp:
		t, i := v.Timestamp()
		return bson.Timestamp{T: t, I: i}, nil
	case value.Regex:
		return bson.Regex{Pattern: v.Pattern(), Options: v.Options()}, nil
	case value.MinKey:
		return bson.MinKey{}, nil
	case value.MaxKey:
		return bson.MaxKey{}, nil
	case value.Array:
		return arrayToBSON(v)
	case value.Object:
		return docToBSON(v)
	}
	return nil, errs.Errorf(errs.Invalid, "a %s value cannot be sent to MongoDB", v.Kind())
}

func docToBSON(v value.Value) (bson.D, error) {
	d := make(bson.D, 0, v.Len())
	for _, f := range v.Fields() {
		if f.Value.IsMissing() {
			continue
		}
		b, err := toBSON(f.Value)
		if err != nil {
			return nil, err
		}
		d = append(d, bson.E{Key: f.Key, Value: b})
	}
	return d, nil
}

func arrayToBSON(v value.Value) (bson.A, error) {
	a := make(bson.A, 0, v.Len())
	for _, e := range v.Array() {
		b, err := toBSON(e)
		if err != nil {
			return nil, err
		}
		a = append(a, b)
	}
	return a, nil
}

// fromDoc converts a BSON document to an object value, field order kept.
func fromDoc(raw bson.Raw) (value.Value, error) {
	elems, err := raw.Elements()
	if err != nil {
		return value.Value{}, errs.Errorf(errs.IO, "a malformed BSON document from the server: %v", err)
	}
	fields := make([]value.Field, 0, len(elems))
	for _, e := range elems {
		v, err := fromBSON(e.Value())
		if err != nil {
			return value.Value{}, fmt.Errorf("field %q: %w", e.Key(), err)
		}
		fields = append(fields, value.Field{Key: e.Key(), Value: v})
	}
	return value.ObjectValue(fields), nil
}

// fromBSON converts one BSON value. The deprecated types (undefined,
// DBPointer, JavaScript code, symbol) have no omgdb value: an error
// names them.
func fromBSON(rv bson.RawValue) (value.Value, error) {
	switch rv.Type {
	case bson.TypeNull:
		return value.NullValue(), nil
	case bson.TypeBoolean:
		return value.BoolValue(rv.Boolean()), nil
	case bson.TypeInt32:
		return value.IntValue(rv.Int32()), nil
	case bson.TypeInt64:
		return value.LongValue(rv.Int64()), nil
	case bson.TypeDouble:
		return value.DoubleValue(rv.Double()), nil
	case bson.TypeDecimal128:
		return value.ParseDecimal(rv.Decimal128().String())
	case bson.TypeString:
		return value.StringValue(rv.StringValue()), nil
	case bson.TypeBinary:
		sub, data := rv.Binary()
		return value.BinaryValue(data, sub), nil
	case bson.TypeObjectID:
		return value.ObjectIDValue(value.OID(rv.ObjectID())), nil
	case bson.TypeDateTime:
		return value.DateValue(rv.DateTime()), nil
	case bson.TypeTimestamp:
		t, i := rv.Timestamp()
		return value.TimestampValue(t, i), nil
	case bson.TypeRegex:
		p, o := rv.Regex()
		return value.RegexValue(p, o), nil
	case bson.TypeMinKey:
		return value.MinKeyValue(), nil
	case bson.TypeMaxKey:
		return value.MaxKeyValue(), nil
	case bson.TypeEmbeddedDocument:
		return fromDoc(rv.Document())
	case bson.TypeArray:
		return fromArray(rv.Array())
	}
	return value.Value{}, errs.Errorf(errs.Invalid, "the server returned a BSON %s value, a deprecated type omgdb does not read", rv.Type).
		WithHint("convert the field on the server, or leave it out with a projection")
}

func fromArray(raw bson.RawArray) (value.Value, error) {
	vals, err := raw.Values()
	if err != nil {
		return value.Value{}, errs.Errorf(errs.IO, "a malformed BSON array from the server: %v", err)
	}
	elems := make([]value.Value, 0, len(vals))
	for i, rv := range vals {
		v, err := fromBSON(rv)
		if err != nil {
			return value.Value{}, fmt.Errorf("element %d: %w", i, err)
		}
		elems = append(elems, v)
	}
	return value.ArrayValue(elems), nil
}
