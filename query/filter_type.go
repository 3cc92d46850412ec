package query

import (
	"math"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// typeNames maps the $type aliases of omgdb's ten types to their kinds.
var typeNames = map[string]value.Kind{
	"null": value.Null, "bool": value.Bool, "long": value.Long, "double": value.Double, "string": value.String,
	"binData": value.Binary, "array": value.Array, "object": value.Object, "objectId": value.ObjectID, "date": value.Date,
}

// typeNameList is typeNames' keys plus "number", in a fixed order for
// suggestions and messages.
var typeNameList = []string{
	"double", "string", "object", "array", "binData", "objectId", "bool", "date", "null", "long", "number",
}

// typeCodes maps MongoDB's numeric BSON type codes to omgdb's kinds.
var typeCodes = map[int64]value.Kind{
	1: value.Double, 2: value.String, 3: value.Object, 4: value.Array, 5: value.Binary, 7: value.ObjectID, 8: value.Bool, 9: value.Date, 10: value.Null, 18: value.Long,
}

// foreignTypes are MongoDB's types that omgdb never stores, by alias and
// code.
var foreignTypes = map[string]int64{
	"undefined": 6, "regex": 11, "dbPointer": 12, "javascript": 13, "symbol": 14,
	"javascriptWithScope": 15, "int": 16, "timestamp": 17, "decimal": 19, "minKey": -1, "maxKey": 127,
}

const numberMask = typePred(1<<value.Long | 1<<value.Double)

// compileType compiles the operand of $type: a type name, a numeric code,
// or an array of them.
func compileType(arg value.Value) (valuePred, error) {
	if arg.Kind() != value.Array {
		return typeOf(arg)
	}
	if len(arg.Array()) == 0 {
		return nil, malformed("$type must match at least one type")
	}
	var mask typePred
	for _, e := range arg.Array() {
		m, err := typeOf(e)
		if err != nil {
			return nil, err
		}
		mask |= m
	}
	return mask, nil
}

// typeOf returns the mask of one type name or code.
func typeOf(v value.Value) (typePred, error) {
	switch v.Kind() {
	case value.String:
		return typeByName(v.Str())
	case value.Long:
		return typeByCode(v.Long(), v)
	case value.Double:
		f := v.Double()
		if f != math.Trunc(f) || math.Abs(f) > 1<<31 {
			return 0, malformed("$type: unknown type code %s", v)
		}
		return typeByCode(int64(f), v)
	}
	return 0, malformed("$type needs a type name, a type code, or an array of them; got %s", v.TypeName()).
		WithHint("type names: double, string, object, array, binData, objectId, bool, date, null, long, number")
}

func typeByName(name string) (typePred, error) {
	if name == "number" {
		return numberMask, nil
	}
	if k, ok := typeNames[name]; ok {
		return 1 << k, nil
	}
	if _, ok := foreignTypes[name]; ok {
		return 0, foreignType(name)
	}
	return 0, malformed("$type: unknown type name `%s`%s", name, errs.DidYouMean(name, typeNameList)).
		WithHint("type names: double, string, object, array, binData, objectId, bool, date, null, long, number")
}

func typeByCode(code int64, v value.Value) (typePred, error) {
	if k, ok := typeCodes[code]; ok {
		return 1 << k, nil
	}
	for name, c := range foreignTypes {
		if c == code {
			return 0, foreignType(name)
		}
	}
	return 0, malformed("$type: unknown type code %s", v).
		WithHint("type codes: 1 double, 2 string, 3 object, 4 array, 5 binData, 7 objectId, 8 bool, 9 date, 10 null, 18 long")
}

// foreignType is the error for a MongoDB type that omgdb never stores.
func foreignType(name string) *errs.Error {
	switch name {
	case "int":
		return malformed("$type: OMGDB stores no `int` values (integers are `long`); use `long`, `double`, or `number`")
	case "decimal":
		return malformed("$type: OMGDB stores no `decimal` values (numbers are `long` or `double`); use `long`, `double`, or `number`")
	}
	return malformed("$type: OMGDB stores no `%s` values", name).
		WithHint("omgdb's types are null, bool, long, double, string, binData, array, object, objectId and date")
}
