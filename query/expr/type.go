package query

import (
	"math"
	"strconv"
	"strings"
)

// Type operators: $type, $isNumber, $convert and the $toX shorthands.
// There is no int32 in omgdb: "int" conversions check the int32 range, as
// MongoDB does, and return a long.

func registerExprTypeOps() {
	registerOps(map[string]opCompiler{
		"$type":       unaryOp(func(v Value) (Value, error) { return StringValue(v.TypeName()), nil }),
		"$isNumber":   unaryOp(func(v Value) (Value, error) { return BoolValue(v.IsNumber()), nil }),
		"$convert":    compileConvert,
		"$toString":   toOp("string"),
		"$toLong":     toOp("long"),
		"$toInt":      toOp("int"),
		"$toDouble":   toOp("double"),
		"$toBool":     toOp("bool"),
		"$toDate":     toOp("date"),
		"$toObjectId": toOp("objectId"),
		"$toDecimal":  toOp("decimal"),
	})
}

// convertTypes maps $convert's "to" names and numeric codes to names.
var convertTypes = map[string]string{
	"double": "double", "string": "string", "objectId": "objectId", "bool": "bool", "date": "date",
	"int": "int", "long": "long", "decimal": "decimal", "binData": "binData",
	"1": "double", "2": "string", "5": "binData", "7": "objectId", "8": "bool", "9": "date",
	"16": "int", "18": "long", "19": "decimal",
}

func convertTypeNames() []string {
	return []string{"double", "string", "objectId", "bool", "date", "int", "long"}
}

// convertNode is $convert.
type convertNode struct {
	input, to, onError, onNull expression
}

func compileConvert(c *exprCompiler, name string, arg Value) (expression, error) {
	m, err := c.named(name, arg, []string{"input", "to"}, []string{"onError", "onNull", "format", "base"})
	if err != nil {
		return nil, err
	}
	if m["format"] != nil || m["base"] != nil {
		return nil, Errorf(Invalid, "$convert: 'format' and 'base' are not supported")
	}
	n := &convertNode{m["input"], m["to"], m["onError"], m["onNull"]}
	if k, ok := n.to.(literal); ok {
		if _, err := convertTarget(k.v); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func toOp(target string) opCompiler {
	return func(c *exprCompiler, name string, arg Value) (expression, error) {
		args, err := c.args(name, arg, 1, 1)
		if err != nil {
			return nil, err
		}
		if target == "decimal" {
			return nil, Errorf(Invalid, "%s is not supported: omgdb has no decimal type", name).
				WithHint("use $toDouble, or $toLong on amounts in the smallest unit")
		}
		return &convertNode{input: args[0], to: literal{StringValue(target)}}, nil
	}
}

// convertTarget resolves a "to" value to a type name.
func convertTarget(to Value) (string, error) {
	key := to.Str()
	if to.IsNumber() {
		i, _ := exactInt(to)
		key = strconv.FormatInt(i, 10)
	} else if to.Kind() != String {
		return "", Errorf(Invalid, "$convert's 'to' argument must be a string or number, but is %s", to.TypeName())
	}
	t, ok := convertTypes[key]
	if !ok {
		return "", Errorf(Invalid, "$convert: unknown type name: %s%s", key, DidYouMean(key, convertTypeNames()))
	}
	if t == "decimal" || t == "binData" {
		return "", Errorf(Invalid, "$convert to %s is not supported by omgdb", t)
	}
	return t, nil
}

func (n *convertNode) eval(c *evalCtx) (Value, error) {
	in, err := n.input.eval(c)
	if err != nil {
		return Value{}, err
	}
	toV, err := n.to.eval(c)
	if err != nil {
		return Value{}, err
	}
	if nullish(toV) {
		return NullValue(), nil
	}
	to, err := convertTarget(toV)
	if err != nil {
		return Value{}, err
	}
	if nullish(in) {
		if n.onNull != nil {
			return n.onNull.eval(c)
		}
		return NullValue(), nil
	}
	out, cerr := convertValue(in, to)
	if cerr == nil {
		return out, nil
	}
	if n.onError != nil {
		return n.onError.eval(c)
	}
	return Value{}, cerr
}

// convertValue converts a non-null value to the named type.
func convertValue(v Value, to string) (Value, *Error) {
	if v.Kind().String() == to {
		return v, nil
	}
	switch to {
	case "bool":
		return toBool(v)
	case "double":
		return toDouble(v)
	case "long", "int":
		return toInteger(v, to == "int")
	case "string":
		return toString(v)
	case "objectId":
		if id, ok := ParseOID(v.Str()); ok && v.Kind() == String {
			return ObjectIDValue(id), nil
		}
		if v.Kind() == String {
			return Value{}, convertError("failed to parse objectId '%s': it needs 24 hexadecimal digits", v.Str())
		}
	case "date":
		return toDate(v)
	}
	return Value{}, convertError("unsupported conversion from %s to %s", v.TypeName(), to)
}

func convertError(format string, args ...any) *Error {
	return Errorf(Invalid, "$convert: "+format+", and there is no onError value", args...).
		WithHint(`add "onError" to $convert to give a value instead of failing`)
}

func toBool(v Value) (Value, *Error) {
	switch v.Kind() {
	case Long, Double, String, ObjectID, Date:
		return BoolValue(v.Kind() == String || v.Kind() == ObjectID || v.Kind() == Date || truthy(v)), nil
	}
	return Value{}, convertError("unsupported conversion from %s to bool", v.TypeName())
}

func toDouble(v Value) (Value, *Error) {
	switch v.Kind() {
	case Bool:
		return DoubleValue(float64(v.num)), nil
	case Long:
		return DoubleValue(float64(v.Long())), nil
	case Date:
		return DoubleValue(float64(v.Date())), nil
	case String:
		s := strings.TrimSpace(v.Str())
		switch s {
		case "NaN", "Infinity", "-Infinity", "inf", "-inf", "infinity", "-infinity":
			return parseNumberDoubleText(s), nil
		}
		f, err := strconv.ParseFloat(v.Str(), 64)
		if err != nil || strings.ContainsAny(v.Str(), "xXpP_") {
			return Value{}, convertError("failed to parse number '%s'", v.Str())
		}
		return DoubleValue(f), nil
	}
	return Value{}, convertError("unsupported conversion from %s to double", v.TypeName())
}

func parseNumberDoubleText(s string) Value {
	switch strings.ToLower(s) {
	case "nan":
		return DoubleValue(math.NaN())
	case "-infinity", "-inf":
		return DoubleValue(math.Inf(-1))
	}
	return DoubleValue(math.Inf(1))
}

func toInteger(v Value, int32Range bool) (Value, *Error) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if int32Range {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	var i int64
	switch v.Kind() {
	case Bool:
		i = int64(v.num)
	case Long, Date:
		i = v.Long()
	case Double:
		f := v.Double()
		if math.IsNaN(f) {
			return Value{}, convertError("attempt to convert NaN value to integer type")
		}
		t := math.Trunc(f)
		if t < float64(lo) || t >= float64(hi)+1 {
			return Value{}, convertError("conversion would overflow target type: %s", v)
		}
		i = int64(t)
	case String:
		n, err := strconv.ParseInt(v.Str(), 10, 64)
		if err != nil {
			return Value{}, convertError("failed to parse number '%s'", v.Str())
		}
		i = n
	default:
		return Value{}, convertError("unsupported conversion from %s to %s", v.TypeName(), map[bool]string{true: "int", false: "long"}[int32Range])
	}
	if i < lo || i > hi {
		return Value{}, convertError("conversion would overflow target type: %s", v)
	}
	return LongValue(i), nil
}

func toString(v Value) (Value, *Error) {
	switch v.Kind() {
	case Bool:
		return StringValue(strconv.FormatBool(v.Bool())), nil
	case Long:
		return StringValue(strconv.FormatInt(v.Long(), 10)), nil
	case Double:
		return StringValue(formatDouble(v.Double())), nil
	case ObjectID:
		return StringValue(v.OID().Hex()), nil
	case Date:
		return StringValue(formatDate(v.Date())), nil
	}
	return Value{}, convertError("unsupported conversion from %s to string", v.TypeName())
}

func toDate(v Value) (Value, *Error) {
	switch v.Kind() {
	case Long:
		return DateValue(v.Long()), nil
	case Double:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 9.2e18 {
			return Value{}, convertError("conversion would overflow target type: %s", v)
		}
		return DateValue(int64(f)), nil
	case ObjectID:
		return DateValue(v.OID().Time().UnixMilli()), nil
	case String:
		ms, err := parseDateString(v.Str(), nil)
		if err != nil {
			return Value{}, convertError("error parsing date string '%s'", v.Str())
		}
		return DateValue(ms), nil
	}
	return Value{}, convertError("unsupported conversion from %s to date", v.TypeName())
}
