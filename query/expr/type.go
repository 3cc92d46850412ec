package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Type operators: $type, $isNumber, $convert and the $toX shorthands, with
// MongoDB's conversion matrix (jstests/aggregation/expressions/convert.js).

func registerExprTypeOps() {
	registerOps(map[string]opCompiler{
		"$type":       unaryOp(func(v value.Value) (value.Value, error) { return value.StringValue(v.TypeName()), nil }),
		"$isNumber":   unaryOp(func(v value.Value) (value.Value, error) { return value.BoolValue(v.IsNumber()), nil }),
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
	return []string{"double", "string", "objectId", "bool", "date", "int", "long", "decimal"}
}

// convertNode is $convert.
type convertNode struct {
	input, to, onError, onNull Node
}

func compileConvert(c *Compiler, name string, arg value.Value) (Node, error) {
	m, err := c.Named(name, arg, []string{"input", "to"}, []string{"onError", "onNull", "format", "base"})
	if err != nil {
		return nil, err
	}
	if m["format"] != nil || m["base"] != nil {
		return nil, errs.Errorf(errs.Invalid, "$convert: 'format' and 'base' are not supported")
	}
	n := &convertNode{m["input"], m["to"], m["onError"], m["onNull"]}
	if k, ok := n.to.(Literal); ok {
		if _, err := convertTarget(k.Value); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func toOp(target string) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		args, err := c.args(name, arg, 1, 1)
		if err != nil {
			return nil, err
		}
		return &convertNode{input: args[0], to: Literal{value.StringValue(target)}}, nil
	}
}

// convertTarget resolves a "to" value to a type name.
func convertTarget(to value.Value) (string, error) {
	key := to.Str()
	if to.IsNumber() {
		i, _ := ExactInt(to)
		key = strconv.FormatInt(i, 10)
	} else if to.Kind() != value.String {
		return "", errs.Errorf(errs.Invalid, "$convert's 'to' argument must be a string or number, but is %s", to.TypeName())
	}
	t, ok := convertTypes[key]
	if !ok {
		return "", errs.Errorf(errs.Invalid, "$convert: unknown type name: %s%s", key, errs.DidYouMean(key, convertTypeNames()))
	}
	if t == "binData" {
		return "", errs.Errorf(errs.Invalid, "$convert to %s is not supported by omgdb", t)
	}
	return t, nil
}

func (n *convertNode) Eval(c *EvalCtx) (value.Value, error) {
	in, err := n.input.Eval(c)
	if err != nil {
		return value.Value{}, err
	}
	toV, err := n.to.Eval(c)
	if err != nil {
		return value.Value{}, err
	}
	if Nullish(toV) {
		return value.NullValue(), nil
	}
	to, err := convertTarget(toV)
	if err != nil {
		return value.Value{}, err
	}
	if Nullish(in) {
		if n.onNull != nil {
			return n.onNull.Eval(c)
		}
		return value.NullValue(), nil
	}
	out, cerr := convertValue(in, to)
	if cerr == nil {
		return out, nil
	}
	if n.onError != nil {
		return n.onError.Eval(c)
	}
	return value.Value{}, cerr
}

// convertValue converts a non-null value to the named type.
func convertValue(v value.Value, to string) (value.Value, *errs.Error) {
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
	case "decimal":
		return toDecimal(v)
	case "string":
		return toString(v)
	case "objectId":
		if id, ok := value.ParseOID(v.Str()); ok && v.Kind() == value.String {
			return value.ObjectIDValue(id), nil
		}
		if v.Kind() == value.String {
			return value.Value{}, convertError("failed to parse objectId '%s': it needs 24 hexadecimal digits", v.Str())
		}
	case "date":
		return toDate(v)
	}
	return value.Value{}, convertError("unsupported conversion from %s to %s", v.TypeName(), to)
}

func convertError(format string, args ...any) *errs.Error {
	return errs.Errorf(errs.Invalid, "$convert: "+format+", and there is no onError value", args...).
		WithHint(`add "onError" to $convert to give a value instead of failing`)
}

// toBool is false for zeros and false, true for every other value.
func toBool(v value.Value) (value.Value, *errs.Error) {
	return value.BoolValue(!v.IsNumber() && v.Kind() != value.Bool || Truthy(v)), nil
}

func toDouble(v value.Value) (value.Value, *errs.Error) {
	switch v.Kind() {
	case value.Bool:
		return value.DoubleValue(float64(boolNum(v))), nil
	case value.Long, value.Int:
		return value.DoubleValue(float64(v.Long())), nil
	case value.Decimal:
		return decimalToDouble(v)
	case value.Date:
		return value.DoubleValue(float64(v.Date())), nil
	case value.String:
		s := strings.TrimSpace(v.Str())
		switch s {
		case "NaN", "Infinity", "-Infinity", "inf", "-inf", "infinity", "-infinity":
			return parseNumberDoubleText(s), nil
		}
		f, err := strconv.ParseFloat(v.Str(), 64)
		if err != nil || strings.ContainsAny(v.Str(), "xXpP_") {
			return value.Value{}, convertError("failed to parse number '%s'", v.Str())
		}
		return value.DoubleValue(f), nil
	}
	return value.Value{}, convertError("unsupported conversion from %s to double", v.TypeName())
}

func parseNumberDoubleText(s string) value.Value {
	switch strings.ToLower(s) {
	case "nan":
		return value.DoubleValue(math.NaN())
	case "-infinity", "-inf":
		return value.DoubleValue(math.Inf(-1))
	}
	return value.DoubleValue(math.Inf(1))
}

func toInteger(v value.Value, int32Range bool) (value.Value, *errs.Error) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if int32Range {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	var i int64
	switch v.Kind() {
	case value.Bool:
		i = boolNum(v)
	case value.Long, value.Int:
		i = v.Long()
	case value.Date:
		if int32Range {
			return value.Value{}, convertError("unsupported conversion from date to int")
		}
		i = v.Long()
	case value.Decimal:
		n, err := decimalToInteger(v)
		if err != nil {
			return value.Value{}, err
		}
		i = n
	case value.Double:
		f := v.Double()
		if math.IsNaN(f) {
			return value.Value{}, convertError("attempt to convert NaN value to integer type")
		}
		t := math.Trunc(f)
		if t < float64(lo) || t >= float64(hi)+1 {
			return value.Value{}, convertError("conversion would overflow target type: %s", v)
		}
		i = int64(t)
	case value.String:
		n, err := strconv.ParseInt(v.Str(), 10, 64)
		if err != nil {
			return value.Value{}, convertError("failed to parse number '%s'", v.Str())
		}
		i = n
	default:
		return value.Value{}, convertError("unsupported conversion from %s to %s", v.TypeName(), map[bool]string{true: "int", false: "long"}[int32Range])
	}
	if i < lo || i > hi {
		return value.Value{}, convertError("conversion would overflow target type: %s", v)
	}
	if int32Range {
		return value.IntValue(int32(i)), nil
	}
	return value.LongValue(i), nil
}

func toString(v value.Value) (value.Value, *errs.Error) {
	switch v.Kind() {
	case value.Bool:
		return value.StringValue(strconv.FormatBool(v.Bool())), nil
	case value.Long, value.Int:
		return value.StringValue(strconv.FormatInt(v.Long(), 10)), nil
	case value.Double:
		return value.StringValue(formatDouble(v.Double())), nil
	case value.Decimal:
		return value.StringValue(v.DecimalString()), nil
	case value.ObjectID:
		return value.StringValue(v.OID().Hex()), nil
	case value.Date:
		return value.StringValue(formatDate(v.Date())), nil
	}
	return value.Value{}, convertError("unsupported conversion from %s to string", v.TypeName())
}

func toDate(v value.Value) (value.Value, *errs.Error) {
	switch v.Kind() {
	case value.Long:
		return value.DateValue(v.Long()), nil
	case value.Double:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 9.2e18 {
			return value.Value{}, convertError("conversion would overflow target type: %s", v)
		}
		return value.DateValue(int64(f)), nil
	case value.ObjectID:
		return value.DateValue(v.OID().Time().UnixMilli()), nil
	case value.Decimal:
		ms, err := decimalToInteger(v)
		if err != nil {
			return value.Value{}, err
		}
		return value.DateValue(ms), nil
	case value.Timestamp:
		t, _ := v.Timestamp()
		return value.DateValue(int64(t) * 1000), nil
	case value.String:
		ms, err := parseDateString(v.Str(), nil)
		if err != nil {
			return value.Value{}, convertError("error parsing date string '%s'", v.Str())
		}
		return value.DateValue(ms), nil
	}
	return value.Value{}, convertError("unsupported conversion from %s to date", v.TypeName())
}

// boolNum is a bool as a number: 1 for true, 0 for false.
func boolNum(v value.Value) int64 {
	if v.Bool() {
		return 1
	}
	return 0
}
