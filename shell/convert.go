package shell

import (
	"math"
	"strconv"
	"time"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// toValue converts a JavaScript value to omgdb's value model, as mongosh's
// BSON serialiser (the Node driver's) does: an integral number in the int32
// range becomes an int, any other number a double (so insertOne({a:1})
// stores an int, as mongosh does; the legacy mongo shell stored a double);
// a Date a date; undefined null; a regular expression {$regex, $options}.
func (s *Shell) toValue(v goja.Value) (value.Value, error) {
	return s.convert(v, 0)
}

func (s *Shell) convert(v goja.Value, depth int) (value.Value, error) {
	if depth > value.MaxDepth {
		return value.Value{}, errs.Errorf(errs.Limit, "document nested deeper than %d levels", value.MaxDepth).
			WithHint("a document may nest at most %d objects or arrays", value.MaxDepth)
	}
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return value.NullValue(), nil
	}
	if obj, ok := v.(*goja.Object); ok {
		return s.convertObject(obj, depth)
	}
	switch x := v.Export().(type) {
	case bool:
		return value.BoolValue(x), nil
	case string:
		return value.StringValue(x), nil
	case int64:
		return number(float64(x), x), nil
	case float64:
		return number(x, int64(x)), nil
	}
	return value.Value{}, errs.Errorf(errs.Invalid, "cannot store a JavaScript %s", v.ExportType()).
		WithHint("documents hold objects, arrays, strings, numbers, booleans, null, dates, ObjectId, Long and regular expressions in filters")
}

func number(f float64, i int64) value.Value {
	if float64(i) == f && i >= math.MinInt32 && i <= math.MaxInt32 && !(f == 0 && math.Signbit(f)) {
		return value.IntValue(int32(i))
	}
	return value.DoubleValue(f)
}

func (s *Shell) convertObject(obj *goja.Object, depth int) (value.Value, error) {
	switch x := obj.Export().(type) {
	case *ObjectID:
		return value.ObjectIDValue(x.id), nil
	case *Long:
		return value.LongValue(x.n), nil
	case *Binary:
		return value.BinaryValue(x.data, x.subtype), nil
	case time.Time:
		return value.DateValue(x.UnixMilli()), nil
	}
	switch obj.ClassName() {
	case "RegExp":
		return value.ObjectValue([]value.Field{
			{Key: "$regex", Value: value.StringValue(obj.Get("source").String())},
			{Key: "$options", Value: value.StringValue(obj.Get("flags").String())},
		}), nil
	case "Array":
		return s.convertArray(obj, depth)
	case "Function":
		return value.Value{}, errs.Errorf(errs.Invalid, "cannot store a function").
			WithHint("JavaScript runs in the shell only: compute the value first, then store it")
	}
	if c := s.cursorOf(obj); c != nil {
		return value.Value{}, errs.Errorf(errs.Invalid, "cannot store a cursor").WithHint("call .toArray() on the cursor to get its documents")
	}
	var fields []value.Field
	for _, k := range obj.Keys() {
		fv := obj.Get(k)
		if fv != nil && goja.IsUndefined(fv) {
			continue // mongosh leaves out undefined fields
		}
		cv, err := s.convert(fv, depth+1)
		if err != nil {
			return value.Value{}, err
		}
		fields = append(fields, value.Field{Key: k, Value: cv})
	}
	return value.ObjectValue(fields), nil
}

func (s *Shell) convertArray(obj *goja.Object, depth int) (value.Value, error) {
	n := obj.Get("length").ToInteger()
	elems := make([]value.Value, 0, n)
	for i := int64(0); i < n; i++ {
		ev, err := s.convert(obj.Get(strconv.FormatInt(i, 10)), depth+1)
		if err != nil {
			return value.Value{}, err
		}
		elems = append(elems, ev)
	}
	return value.ArrayValue(elems), nil
}

// toJS converts a value to JavaScript: an int is a number, a long outside
// the int32 range stays exact as a Long, a date becomes a Date.
func (s *Shell) toJS(v value.Value) goja.Value {
	switch v.Kind() {
	case value.Missing:
		return goja.Undefined()
	case value.Null:
		return goja.Null()
	case value.Bool:
		return s.rt.ToValue(v.Bool())
	case value.Int:
		return s.rt.ToValue(v.Long())
	case value.Long:
		if n := v.Long(); n >= math.MinInt32 && n <= math.MaxInt32 {
			return s.rt.ToValue(n)
		}
		return s.rt.ToValue(&Long{n: v.Long()})
	case value.Double:
		return s.rt.ToValue(v.Double())
	case value.String:
		return s.rt.ToValue(v.Str())
	case value.ObjectID:
		return s.rt.ToValue(&ObjectID{id: v.OID()})
	case value.Date:
		return s.newDate(v.Date())
	case value.Binary:
		return s.rt.ToValue(&Binary{data: v.Bytes(), subtype: v.Subtype()})
	case value.Array:
		elems := make([]any, v.Len())
		for i, e := range v.Array() {
			elems[i] = s.toJS(e)
		}
		return s.rt.NewArray(elems...)
	}
	obj := s.rt.NewObject()
	for _, f := range v.Fields() {
		_ = obj.DefineDataProperty(f.Key, s.toJS(f.Value), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
	return obj
}

func (s *Shell) newDate(ms int64) goja.Value {
	d, err := s.rt.New(s.rt.Get("Date"), s.rt.ToValue(ms))
	s.must(err)
	return d
}

// arg converts argument i of a call, or returns the zero Value (missing)
// when it was not given or is undefined.
func (s *Shell) arg(call goja.FunctionCall, i int) value.Value {
	a := call.Argument(i)
	if goja.IsUndefined(a) {
		return value.Value{}
	}
	v, err := s.toValue(a)
	s.must(err)
	return v
}

// docArg is arg for an argument that must be an object, such as a filter.
func (s *Shell) docArg(call goja.FunctionCall, i int, what string) value.Value {
	v := s.arg(call, i)
	if v.IsMissing() || v.IsNull() {
		return value.ObjectValue(nil)
	}
	if v.Kind() != value.Object {
		s.throw(errs.Errorf(errs.Invalid, "%s must be an object, got %s", what, v.TypeName()).
			WithHint("write it as {field: value}, e.g. {name: 'ada'}"))
	}
	return v
}
