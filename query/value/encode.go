package value

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the canonical JSON of v to dst: compact, field order
// kept, longs as plain integers, doubles always with a '.' or an exponent,
// non-finite doubles as {"$numberDouble":"…"}, and the other non-JSON types
// as {"$oid":"…"}, {"$date":ms} and {"$binary":"…"}. Missing encodes as
// null (it only appears where a caller asked for a missing field).
func AppendJSON(dst []byte, v Value) []byte { return appendJSON(dst, v, EJSONStored) }

// appendJSON appends v in mode m (see EJSONMode).
func appendJSON(dst []byte, v Value, m EJSONMode) []byte {
	switch v.kind {
	case Missing, Null:
		return append(dst, "null"...)
	case Bool:
		if v.num != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Long:
		return appendLong(dst, int64(v.num), m)
	case Double:
		return appendEJSONDouble(dst, math.Float64frombits(v.num), m)
	case String:
		return AppendString(dst, v.str)
	case Binary:
		if m == EJSONStored {
			return appendBinary(dst, v)
		}
		return appendBinaryV2(dst, v)
	case ObjectID:
		dst = append(dst, `{"$oid":"`...)
		dst = hex.AppendEncode(dst, []byte(v.str))
		return append(dst, `"}`...)
	case Date:
		return appendEJSONDate(dst, int64(v.num), m)
	case Int, Decimal, Timestamp, Regex, MinKey, MaxKey:
		return appendNewKinds(dst, v, m)
	case Array:
		dst = append(dst, '[')
		for i, e := range v.arr {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e, m)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i, f := range v.fields {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, f.Key)
			dst = append(dst, ':')
			dst = appendJSON(dst, f.Value, m)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// JSON returns the canonical JSON of v.
func JSON(v Value) []byte { return AppendJSON(nil, v) }

// AppendDouble appends the canonical JSON of a double: with a '.' or an
// exponent, and {"$numberDouble":…} for NaN and the infinities.
func AppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `{"$numberDouble":"NaN"}`...)
	case math.IsInf(f, 1):
		return append(dst, `{"$numberDouble":"Infinity"}`...)
	case math.IsInf(f, -1):
		return append(dst, `{"$numberDouble":"-Infinity"}`...)
	}
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		return strconv.AppendFloat(dst, f, 'e', -1, 64)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, ".0"...)
}

func appendBinary(dst []byte, v Value) []byte {
	if v.num == 0 {
		dst = append(dst, `{"$binary":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, []byte(v.str))
		return append(dst, `"}`...)
	}
	dst = append(dst, `{"$binary":{"base64":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, []byte(v.str))
	dst = append(dst, `","subType":"`...)
	dst = hex.AppendEncode(dst, []byte{byte(v.num)})
	return append(dst, `"}}`...)
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, everything else (including non-ASCII) written as is.
// s must be valid UTF-8.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// validUTF8 reports whether s is valid UTF-8; used when values are built
// from sources other than Parse.
func validUTF8(s string) bool { return utf8.ValidString(s) }
