package query

import "math"

// typeNames maps the $type aliases of omgdb's ten types to their kinds.
var typeNames = map[string]Kind{
	"null": Null, "bool": Bool, "long": Long, "double": Double, "string": String,
	"binData": Binary, "array": Array, "object": Object, "objectId": ObjectID, "date": Date,
}

// typeNameList is typeNames' keys plus "number", in a fixed order for
// suggestions and messages.
var typeNameList = []string{
	"double", "string", "object", "array", "binData", "objectId", "bool", "date", "null", "long", "number",
}

// typeCodes maps MongoDB's numeric BSON type codes to omgdb's kinds.
var typeCodes = map[int64]Kind{
	1: Double, 2: String, 3: Object, 4: Array, 5: Binary, 7: ObjectID, 8: Bool, 9: Date, 10: Null, 18: Long,
}

// foreignTypes are MongoDB's types that omgdb never stores, by alias and
// code.
var foreignTypes = map[string]int64{
	"undefined": 6, "regex": 11, "dbPointer": 12, "javascript": 13, "symbol": 14,
	"javascriptWithScope": 15, "int": 16, "timestamp": 17, "decimal": 19, "minKey": -1, "maxKey": 127,
}

const numberMask = typePred(1<<Long | 1<<Double)

// compileType compiles the operand of $type: a type name, a numeric code,
// or an array of them.
func compileType(arg Value) (valuePred, error) {
	if arg.kind != Array {
		return typeOf(arg)
	}
	if len(arg.arr) == 0 {
		return nil, malformed("$type must match at least one type")
	}
	var mask typePred
	for _, e := range arg.arr {
		m, err := typeOf(e)
		if err != nil {
			return nil, err
		}
		mask |= m
	}
	return mask, nil
}

// typeOf returns the mask of one type name or code.
func typeOf(v Value) (typePred, error) {
	switch v.kind {
	case String:
		return typeByName(v.str)
	case Long:
		return typeByCode(v.Long(), v)
	case Double:
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
	return 0, malformed("$type: unknown type name `%s`%s", name, DidYouMean(name, typeNameList)).
		WithHint("type names: double, string, object, array, binData, objectId, bool, date, null, long, number")
}

func typeByCode(code int64, v Value) (typePred, error) {
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
func foreignType(name string) *Error {
	switch name {
	case "int":
		return malformed("$type: OMGDB stores no `int` values (integers are `long`); use `long`, `double`, or `number`")
	case "decimal":
		return malformed("$type: OMGDB stores no `decimal` values (numbers are `long` or `double`); use `long`, `double`, or `number`")
	}
	return malformed("$type: OMGDB stores no `%s` values", name).
		WithHint("omgdb's types are null, bool, long, double, string, binData, array, object, objectId and date")
}
