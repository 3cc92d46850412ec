package mcpserver

import (
	"fmt"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query"
)

// Responses are built as query.Values: objects keep their field order, so
// every answer has a stable, canonical encoding (query.AppendJSON).

// jv converts a Go value to a query.Value. Strings are made valid UTF-8.
// A query.Value passes through unchanged, including the missing value,
// which obj leaves out.
func jv(x any) query.Value {
	switch x := x.(type) {
	case nil:
		return query.NullValue()
	case query.Value:
		return x
	case string:
		return query.StringValue(strings.ToValidUTF8(x, "\uFFFD"))
	case bool:
		return query.BoolValue(x)
	case int:
		return query.LongValue(int64(x))
	case int64:
		return query.LongValue(x)
	case float64:
		return query.DoubleValue(x)
	case []string:
		vals := make([]query.Value, len(x))
		for i, s := range x {
			vals[i] = jv(s)
		}
		return query.ArrayValue(vals)
	case []query.Value:
		return query.ArrayValue(x)
	}
	panic(fmt.Sprintf("mcpserver: cannot convert %T to a value", x))
}

// obj builds an object from alternating keys and values. Pairs whose value
// is the missing value are left out, which is how optional fields are
// omitted.
func obj(kv ...any) query.Value {
	fields := make([]query.Field, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		v := jv(kv[i+1])
		if v.IsMissing() {
			continue
		}
		fields = append(fields, query.Field{Key: kv[i].(string), Value: v})
	}
	return query.ObjectValue(fields)
}

// arr builds an array.
func arr(vals ...query.Value) query.Value { return query.ArrayValue(vals) }

// omitEmpty returns the missing value for an empty string, so obj leaves
// the field out.
func omitEmpty(s string) query.Value {
	if s == "" {
		return query.MissingValue
	}
	return jv(s)
}

// sortedKeys returns an object with its keys sorted recursively, for
// digests that must not depend on key order.
func sortedKeys(v query.Value) query.Value {
	switch v.Kind() {
	case query.Object:
		fields := append([]query.Field(nil), v.Fields()...)
		sort.Slice(fields, func(i, j int) bool { return fields[i].Key < fields[j].Key })
		for i := range fields {
			fields[i].Value = sortedKeys(fields[i].Value)
		}
		return query.ObjectValue(fields)
	case query.Array:
		elems := make([]query.Value, v.Len())
		for i, e := range v.Array() {
			elems[i] = sortedKeys(e)
		}
		return query.ArrayValue(elems)
	}
	return v
}
