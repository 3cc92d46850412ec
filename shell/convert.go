package shell

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// toValue converts a JavaScript value to omgdb's value model, as mongosh's
// BSON serialiser does: a whole number in the int32 range becomes an int,
// any other number a double; a Date a date; undefined null; a regular
// expression a stored regular expression (which a filter reads as a
// match, also inside $in).
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

// regexOptions keeps the JavaScript flags a stored regular expression has
// (i, m, s, u), as mongosh's serialiser does: g and y are about how
// JavaScript walks a string and are dropped.
func regexOptions(flags string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("imsu", r) {
			return r
		}
		return -1
	}, flags)
}

// jsRegExpFlags reports the JavaScript flags for stored options, and false
// when an option (x) has none.
func jsRegExpFlags(options string) (string, bool) {
	for _, r := range options {
		if !strings.ContainsRune("imsu", r) {
			return "", false
		}
	}
	return options, true
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
	case *Int32:
		return value.IntValue(x.n), nil
	case *Double:
		return value.DoubleValue(x.f), nil
	case *Decimal128:
		return x.v, nil
	case *Timestamp:
		return value.TimestampValue(x.T, x.I), nil
	case *MinKey:
		return value.MinKeyValue(), nil
	case *MaxKey:
		return value.MaxKeyValue(), nil
	case *BSONRegExp:
		return value.RegexValue(x.Pattern, x.Options), nil
	case time.Time:
		return value.DateValue(x.UnixMilli()), nil
	}
	switch obj.ClassName() {
	case "RegExp":
		return value.RegexValue(obj.Get("source").String(), regexOptions(obj.Get("flags").String())), nil
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

// toJS converts a value to JavaScript: a long outside the int32 range
// stays exact as a Long, a date becomes a Date.
func (s *Shell) toJS(v value.Value) goja.Value {
	switch v.Kind() {
	case value.Missing:
		return goja.Undefined()
	case value.Null:
		return goja.Null()
	case value.Bool:
		return s.rt.ToValue(v.Bool())
	case value.Long:
		if n := v.Long(); n >= math.MinInt32 && n <= math.MaxInt32 {
			return s.rt.ToValue(n)
		}
		return s.rt.ToValue(&Long{n: v.Long()})
	case value.Int:
		return s.rt.ToValue(v.Long())
	case value.Double:
		return s.rt.ToValue(v.Double())
	case value.Decimal:
		return s.rt.ToValue(&Decimal128{v: v})
	case value.Timestamp:
		t, i := v.Timestamp()
		return s.rt.ToValue(&Timestamp{T: t, I: i})
	case value.MinKey:
		return s.rt.ToValue(&MinKey{})
	case value.MaxKey:
		return s.rt.ToValue(&MaxKey{})
	case value.Regex:
		return s.regExp(v.Pattern(), v.Options())
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

// regExp returns a stored regular expression as a JavaScript RegExp, as
// mongosh does, or as a BSONRegExp when JavaScript cannot hold it.
func (s *Shell) regExp(pattern, options string) goja.Value {
	if flags, ok := jsRegExpFlags(options); ok {
		if re, err := s.rt.New(s.rt.Get("RegExp"), s.rt.ToValue(pattern), s.rt.ToValue(flags)); err == nil {
			return re
		}
	}
	return s.rt.ToValue(&BSONRegExp{Pattern: pattern, Options: options})
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
