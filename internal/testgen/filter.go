package testgen

import (
	"math/rand/v2"
	"strconv"

	"github.com/omgdb/omgdb/query/value"
)

// Collect gathers the dotted paths (with array positions) and the values of
// a document.
func Collect(v value.Value, prefix string, paths *[]string, vals *[]value.Value) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch v.Kind() {
	case value.Object:
		for _, f := range v.Fields() {
			*paths = append(*paths, join(f.Key))
			Collect(f.Value, join(f.Key), paths, vals)
		}
	case value.Array:
		for i, e := range v.Array() {
			*paths = append(*paths, join(strconv.Itoa(i)))
			Collect(e, join(strconv.Itoa(i)), paths, vals)
			Collect(e, prefix, paths, vals) // paths through the array, without the position
		}
	}
	*vals = append(*vals, v)
}

// Filter returns a random filter over the given paths and values (as
// Collect gathers them), with the operators whose edge cases matter:
// comparisons, $in, $nin and $all, $exists, $type, $size, $elemMatch, $not,
// $or, $and and $nor (nested up to depth), $regex, $expr and $mod.
func Filter(r *rand.Rand, paths []string, vals []value.Value, depth int) value.Value {
	var fields []value.Field
	for n := 1 + r.IntN(3); n > 0; n-- {
		path := paths[r.IntN(len(paths))]
		val := vals[r.IntN(len(vals))]
		if r.IntN(8) == 0 {
			val = Value(r, 1)
		}
		op := func(name string, arg value.Value) value.Value {
			return value.ObjectValue([]value.Field{{Key: name, Value: arg}})
		}
		var f value.Field
		switch k := r.IntN(15); {
		case k == 0:
			f = value.Field{Key: path, Value: val}
		case k <= 2:
			f = value.Field{Key: path, Value: op([]string{"$gt", "$gte", "$lt", "$lte", "$ne", "$eq"}[r.IntN(6)], val)}
		case k == 3:
			list := value.ArrayValue([]value.Value{val, vals[r.IntN(len(vals))], value.NullValue()})
			f = value.Field{Key: path, Value: op([]string{"$in", "$nin", "$all"}[r.IntN(3)], list)}
		case k == 4:
			f = value.Field{Key: path, Value: op("$exists", value.BoolValue(r.IntN(2) == 0))}
		case k == 5:
			names := []string{"null", "bool", "long", "double", "string", "array", "object", "date", "objectId", "binData", "number"}
			f = value.Field{Key: path, Value: op("$type", value.StringValue(names[r.IntN(len(names))]))}
		case k == 6:
			f = value.Field{Key: path, Value: op("$size", value.LongValue(int64(r.IntN(4))))}
		case k == 7 && depth > 0:
			sub := Filter(r, []string{"aa", "ab", "ba", "x_yb", "0", "ac.aa"}, vals, depth-1)
			f = value.Field{Key: path, Value: op("$elemMatch", sub)}
		case k == 8:
			f = value.Field{Key: path, Value: op("$elemMatch", op("$gte", val))}
		case k == 9:
			f = value.Field{Key: path, Value: op("$not", op("$lt", val))}
		case k == 10 && depth > 0:
			kids := []value.Value{Filter(r, paths, vals, depth-1), Filter(r, paths, vals, depth-1)}
			f = value.Field{Key: []string{"$or", "$and", "$nor"}[r.IntN(3)], Value: value.ArrayValue(kids)}
		case k == 11:
			f = value.Field{Key: path, Value: op("$regex", value.StringValue("[aé]"))}
		case k == 12:
			f = value.Field{Key: "$expr", Value: op("$eq", value.ArrayValue([]value.Value{value.StringValue("$" + path), val}))}
		case k == 13:
			f = value.Field{Key: path, Value: op("$mod", value.ArrayValue([]value.Value{value.LongValue(3), value.LongValue(1)}))}
		default:
			f = value.Field{Key: path, Value: value.NullValue()}
		}
		if !hasField(fields, f.Key) {
			fields = append(fields, f)
		}
	}
	return value.ObjectValue(fields)
}

func hasField(fields []value.Field, key string) bool {
	for _, f := range fields {
		if f.Key == key {
			return true
		}
	}
	return false
}
