package query

import (
	"math"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// typeNameList is the $type aliases plus "number", in a fixed order for
// suggestions and messages.
var typeNameList = []string{
	"double", "string", "object", "array", "binData", "objectId", "bool", "date", "null", "regex",
	"int", "timestamp", "long", "decimal", "minKey", "maxKey", "number",
}

// foreignTypes are MongoDB's deprecated types that omgdb never stores, by
// alias and code.
var foreignTypes = map[string]int64{
	"undefined": 6, "dbPointer": 12, "javascript": 13, "symbol": 14, "javascriptWithScope": 15,
}

const numberMask = typePred(1<<value.Long | 1<<value.Double | 1<<value.Int | 1<<value.Decimal)

const typeNamesHint = "type names: double, string, object, array, binData, objectId, bool, date, null, regex, int, timestamp, long, decimal, minKey, maxKey, number"

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
	case value.Long, value.Int:
		return typeByCode(v.Long(), v)
	case value.Double:
		f := v.Double()
		if f != math.Trunc(f) || math.Abs(f) > 1<<31 {
			return 0, malformed("$type: unknown type code %s", v)
		}
		return typeByCode(int64(f), v)
	}
	return 0, malformed("$type needs a type name, a type code, or an array of them; got %s", v.TypeName()).
		WithHint(typeNamesHint)
}

func typeByName(name string) (typePred, error) {
	if name == "number" {
		return numberMask, nil
	}
	if k, ok := value.KindNamed(name); ok {
		return 1 << k, nil
	}
	if _, ok := foreignTypes[name]; ok {
		return 0, foreignType(name)
	}
	return 0, malformed("$type: unknown type name `%s`%s", name, errs.DidYouMean(name, typeNameList)).
		WithHint(typeNamesHint)
}

func typeByCode(code int64, v value.Value) (typePred, error) {
	if k, ok := value.KindOfCode(code); ok {
		return 1 << k, nil
	}
	for name, c := range foreignTypes {
		if c == code {
			return 0, foreignType(name)
		}
	}
	return 0, malformed("$type: unknown type code %s", v).
		WithHint("type codes: 1 double, 2 string, 3 object, 4 array, 5 binData, 7 objectId, 8 bool, 9 date, 10 null, 11 regex, 16 int, 17 timestamp, 18 long, 19 decimal, -1 minKey, 127 maxKey")
}

// foreignType is the error for a MongoDB type that omgdb never stores.
func foreignType(name string) *errs.Error {
	return malformed("$type: OMGDB stores no `%s` values: the type is deprecated in MongoDB", name).
		WithHint(typeNamesHint)
}
