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
	if p.ints {
		fields = longArgs(fields)
	}
	v, err := extendedValue(fields)
	if err != nil {
		e := errs.Errorf(errs.Invalid, "invalid JSON at byte %d: %s", start, err.Message)
		e.Hint = err.Hint
		return Value{}, e
	}
	return v, nil
}

// longArgs turns the ints that ParseInput read inside a type wrapper back
// into longs: a wrapper's numbers ({"$date":0}, {"$timestamp":{"t":1,"i":2}})
// are arguments that name a value, not values a document stores.
func longArgs(fields []Field) []Field {
	out := make([]Field, len(fields))
	for i, f := range fields {
		out[i] = Field{Key: f.Key, Value: longArg(f.Value)}
	}
	return out
}

func longArg(v Value) Value {
	switch v.kind {
	case Int:
		return LongValue(v.Long())
	case Object:
		return ObjectValue(longArgs(v.Fields()))
	}
	return v
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
		return IntValue(int32(i)), nil
	case "$numberDouble":
		return parseNumberDouble(arg)
	case "$date":
		return parseDate(arg)
	case "$binary":
		return parseBinary(arg)
	case "$uuid":
		return parseUUID(arg)
	case "$numberDecimal":
		return parseNumberDecimal(arg)
	case "$timestamp":
		return parseTimestamp(arg)
	case "$regularExpression":
		return parseRegularExpression(arg)
	case "$minKey", "$maxKey":
		if !IsInteger(arg, 1) || arg.kind == Double {
			return Value{}, errs.Errorf(errs.Invalid, `%s needs the value 1, as in {"%s":1}, got %s`, key, key, arg)
		}
		if key == "$minKey" {
			return MinKeyValue(), nil
		}
		return MaxKeyValue(), nil
	}
	return Value{}, errs.Errorf(errs.Invalid, "Extended JSON type %s is not supported: it is deprecated in MongoDB and omgdb does not store it", key).
		WithHint("store the value as a string")
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

func parseNumberDecimal(arg Value) (Value, *errs.Error) {
	if arg.kind != String {
		return Value{}, errs.Errorf(errs.Invalid, `$numberDecimal needs a string such as "12.50", got %s`, arg)
	}
	v, err := ParseDecimal(arg.Str())
	if err != nil {
		return Value{}, err.(*errs.Error)
	}
	return v, nil
}

// parseTimestamp reads {"$timestamp":{"t":<uint32>,"i":<uint32>}}.
func parseTimestamp(arg Value) (Value, *errs.Error) {
	t, i := arg.Get("t"), arg.Get("i")
	if arg.kind != Object || arg.Len() != 2 || !isUint32(t) || !isUint32(i) {
		return Value{}, errs.Errorf(errs.Invalid, `$timestamp needs {"t":<seconds>,"i":<increment>}, two integers from 0 to 4294967295, got %s`, arg)
	}
	return TimestampValue(uint32(t.Long()), uint32(i.Long())), nil
}

func isUint32(v Value) bool { return v.IsIntegral() && v.Long() >= 0 && v.Long() <= math.MaxUint32 }

// parseRegularExpression reads {"$regularExpression":{"pattern":…,"options":…}}.
func parseRegularExpression(arg Value) (Value, *errs.Error) {
	pat, opts := arg.Get("pattern"), arg.Get("options")
	if arg.kind != Object || arg.Len() != 2 || pat.kind != String || opts.kind != String {
		return Value{}, errs.Errorf(errs.Invalid, `$regularExpression needs {"pattern":"…","options":"…"}, got %s`, arg)
	}
	return regexFrom(pat.Str(), opts.Str())
}

// regexFrom checks a regex's parts: no NUL (BSON cannot hold it), and
// only MongoDB's options.
func regexFrom(pat, opts string) (Value, *errs.Error) {
	if strings.IndexByte(pat, 0) >= 0 || strings.IndexByte(opts, 0) >= 0 {
		return Value{}, errs.Errorf(errs.Invalid, "a regular expression cannot contain a NUL character")
	}
	for _, c := range opts {
		if !strings.ContainsRune("ilmsux", c) {
			return Value{}, errs.Errorf(errs.Invalid, "regular expression option %q is not one of MongoDB's (i, l, m, s, u, x)", c)
		}
	}
	return RegexValue(pat, opts), nil
}

// LegacyRegex returns the regex that a legacy Extended JSON object
// {"$regex":"…","$options":"…"} denotes. Parse leaves that object as it
// is, because it is also the $regex query operator; documents to be
// stored take it as a regex (PrepareDocument).
func LegacyRegex(v Value) (Value, bool) {
	f := v.Fields()
	if v.kind != Object || len(f) != 2 || f[0].Key != "$regex" || f[1].Key != "$options" ||
		f[0].Value.kind != String || f[1].Value.kind != String {
		return Value{}, false
	}
	r, err := regexFrom(f[0].Value.Str(), f[1].Value.Str())
	return r, err == nil
}
