package mcpserver

import (
	"fmt"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query/value"
)

// Responses are built as query.Values: objects keep their field order, so
// every answer has a stable encoding. What a tool or resource answers is
// encoded by encodeJSON, in Extended JSON v2 relaxed mode, as
// mongodb-mcp-server answers and as omgdb find prints by default: ints and
// longs as plain numbers, dates as {"$date":"<ISO-8601>"}, decimals as
// {"$numberDecimal":"…"}, binData as {"$binary":{"base64","subType"}}.
// Protocol messages, digests and the audit log keep value.AppendJSON.

// encodeJSON appends v to dst as relaxed Extended JSON v2.
func encodeJSON(dst []byte, v value.Value) []byte {
	return value.AppendEJSON(dst, v, value.EJSONRelaxed)
}

// relaxedJSON returns a stored document's JSON as relaxed Extended JSON
// v2, copied where the two forms agree.
func relaxedJSON(js []byte) ([]byte, error) {
	return value.TranscodeEJSON(nil, js, value.EJSONRelaxed)
}

// jv converts a Go value to a value.Value. Strings are made valid UTF-8.
// A value.Value passes through unchanged, including the missing value,
// which obj leaves out.
func jv(x any) value.Value {
	switch x := x.(type) {
	case nil:
		return value.NullValue()
	case value.Value:
		return x
	case string:
		return value.StringValue(strings.ToValidUTF8(x, "\uFFFD"))
	case bool:
		return value.BoolValue(x)
	case int:
		return value.LongValue(int64(x))
	case int64:
		return value.LongValue(x)
	case float64:
		return value.DoubleValue(x)
	case []string:
		vals := make([]value.Value, len(x))
		for i, s := range x {
			vals[i] = jv(s)
		}
		return value.ArrayValue(vals)
	case []value.Value:
		return value.ArrayValue(x)
	}
	panic(fmt.Sprintf("mcpserver: cannot convert %T to a value", x))
}

// obj builds an object from alternating keys and values. Pairs whose value
// is the missing value are left out, which is how optional fields are
// omitted.
func obj(kv ...any) value.Value {
	fields := make([]value.Field, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		v := jv(kv[i+1])
		if v.IsMissing() {
			continue
		}
		fields = append(fields, value.Field{Key: kv[i].(string), Value: v})
	}
	return value.ObjectValue(fields)
}

// arr builds an array.
func arr(vals ...value.Value) value.Value { return value.ArrayValue(vals) }

// omitEmpty returns the missing value for an empty string, so obj leaves
// the field out.
func omitEmpty(s string) value.Value {
	if s == "" {
		return value.MissingValue
	}
	return jv(s)
}

// sortedKeys returns an object with its keys sorted recursively, for
// digests that must not depend on key order.
func sortedKeys(v value.Value) value.Value {
	switch v.Kind() {
	case value.Object:
		fields := append([]value.Field(nil), v.Fields()...)
		sort.Slice(fields, func(i, j int) bool { return fields[i].Key < fields[j].Key })
		for i := range fields {
			fields[i].Value = sortedKeys(fields[i].Value)
		}
		return value.ObjectValue(fields)
	case value.Array:
		elems := make([]value.Value, v.Len())
		for i, e := range v.Array() {
			elems[i] = sortedKeys(e)
		}
		return value.ArrayValue(elems)
	}
	return v
}
