package value

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query/errs"
)

// extended turns an object whose first key starts with '$' into the value an
// Extended JSON wrapper denotes. Objects that are not type wrappers (query
// operators such as {"$gt":1}) are returned as objects.
func (p *parser) extended(start int, fields []Field) (Value, error) {
	key := fields[0].Key
	switch key {
	case "$oid", "$date", "$numberLong", "$numberInt", "$numberDouble", "$binary", "$numberDecimal",
		"$uuid", "$timestamp", "$regularExpression", "$minKey", "$maxKey", "$symbol", "$code", "$undefined", "$dbPointer":
	default:
		return ObjectValue(fields), nil
	}
	v, err := extendedValue(fields)
	if err != nil {
		e := errs.Errorf(errs.Invalid, "invalid JSON at byte %d: %s", start, err.Message)
		e.Hint = err.Hint
		return Value{}, e
	}
	return v, nil
}

func extendedValue(fields []Field) (Value, *errs.Error) {
	key, arg := fields[0].Key, fields[0].Value
	if key == "$binary" && len(fields) == 2 && fields[1].Key == "$type" {
		return legacyBinary(arg, fields[1].Value)
	}
	if len(fields) != 1 {
		return Value{}, errs.Errorf(errs.Invalid, "%s must be the only key of its object", key)
	}
	switch key {
	case "$oid":
		if id, ok := ParseOID(arg.Str()); ok && arg.kind == String {
			return ObjectIDValue(id), nil
		}
		return Value{}, errs.Errorf(errs.Invalid, "$oid needs 24 hexadecimal digits, got %s", arg)
	case "$numberLong":
		i, err := strconv.ParseInt(arg.Str(), 10, 64)
		if arg.kind != String || err != nil {
			return Value{}, errs.Errorf(errs.Invalid, "$numberLong needs a string of a 64-bit integer, got %s", arg)
		}
		return LongValue(i), nil
	case "$numberInt":
		i, err := strconv.ParseInt(arg.Str(), 10, 32)
		if arg.kind != String || err != nil {
			return Value{}, errs.Errorf(errs.Invalid, "$numberInt needs a string of a 32-bit integer, got %s", arg)
		}
		return LongValue(i), nil
	case "$numberDouble":
		return parseNumberDouble(arg)
	case "$date":
		return parseDate(arg)
	case "$binary":
		return parseBinary(arg)
	case "$uuid":
		return parseUUID(arg)
	case "$numberDecimal":
		return Value{}, errs.Errorf(errs.Invalid, "$numberDecimal is not supported: omgdb has no decimal type").
			WithHint("store the amount as a long in the smallest unit (cents), or as a double or a string")
	}
	return Value{}, errs.Errorf(errs.Invalid, "Extended JSON type %s is not supported: omgdb stores null, bool, long, double, string, binData, array, object, objectId and date", key)
}

func parseNumberDouble(arg Value) (Value, *errs.Error) {
	switch arg.Str() {
	case "NaN":
		return DoubleValue(math.NaN()), nil
	case "Infinity":
		return DoubleValue(math.Inf(1)), nil
	case "-Infinity":
		return DoubleValue(math.Inf(-1)), nil
	}
	f, err := strconv.ParseFloat(arg.Str(), 64)
	if arg.kind != String || err != nil || strings.ContainsAny(arg.Str(), "xXpPnNiI_") {
		return Value{}, errs.Errorf(errs.Invalid, `$numberDouble needs a string such as "1.5", "NaN", "Infinity" or "-Infinity", got %s`, arg)
	}
	return DoubleValue(f), nil
}

func parseDate(arg Value) (Value, *errs.Error) {
	switch arg.kind {
	case Long:
		return DateValue(arg.Long()), nil
	case String:
		t, err := time.Parse(time.RFC3339Nano, arg.Str())
		if err != nil {
			return Value{}, errs.Errorf(errs.Invalid, "$date string %q is not an ISO-8601 time", arg.Str()).
				WithHint(`write "2024-05-01T12:00:00Z" or milliseconds since 1970 as a number`)
		}
		return DateValue(t.UnixMilli()), nil
	case Double:
		f := arg.Double()
		if f == math.Trunc(f) && f >= -(1<<62) && f <= 1<<62 {
			return DateValue(int64(f)), nil
		}
	}
	return Value{}, errs.Errorf(errs.Invalid, "$date needs milliseconds since 1970 or an ISO-8601 string, got %s", arg)
}

func parseBinary(arg Value) (Value, *errs.Error) {
	var b64, sub string
	switch arg.kind {
	case String:
		b64 = arg.Str()
	case Object:
		if arg.Len() != 2 || arg.Get("base64").kind != String || arg.Get("subType").kind != String {
			return Value{}, errs.Errorf(errs.Invalid, `$binary needs a base64 string or {"base64":"…","subType":"00"}, got %s`, arg)
		}
		b64, sub = arg.Get("base64").Str(), arg.Get("subType").Str()
	default:
		return Value{}, errs.Errorf(errs.Invalid, `$binary needs a base64 string or {"base64":"…","subType":"00"}, got %s`, arg)
	}
	return binaryFrom(b64, sub)
}

func legacyBinary(data, typ Value) (Value, *errs.Error) {
	if data.kind != String || typ.kind != String {
		return Value{}, errs.Errorf(errs.Invalid, `legacy $binary needs {"$binary":"<base64>","$type":"00"}`)
	}
	return binaryFrom(data.Str(), typ.Str())
}

func binaryFrom(b64, sub string) (Value, *errs.Error) {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return Value{}, errs.Errorf(errs.Invalid, "$binary: invalid base64 %q", b64)
	}
	var st uint64
	if sub != "" {
		if st, err = strconv.ParseUint(sub, 16, 8); err != nil || len(sub) > 2 {
			return Value{}, errs.Errorf(errs.Invalid, "$binary: subType %q is not one or two hexadecimal digits", sub)
		}
	}
	return BinaryValue(data, byte(st)), nil
}

// parseUUID reads {"$uuid":"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"}, the
// Extended JSON v2 input form of binData subtype 4.
func parseUUID(arg Value) (Value, *errs.Error) {
	s := arg.Str()
	ok := arg.kind == String && len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-'
	if ok {
		data, err := hex.DecodeString(s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:])
		if err == nil {
			return BinaryValue(data, 4), nil
		}
	}
	return Value{}, errs.Errorf(errs.Invalid, `$uuid needs a string "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" of hexadecimal digits, got %s`, arg)
}
