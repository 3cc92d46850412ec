package query

import (
	"encoding/hex"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/value"
)

// maxMessageValue caps how much of a value an error message shows.
const maxMessageValue = 256

// mongoValue renders v the way MongoDB's messages print values
// ({ a: 1, b: [ "x" ] }), cut to maxMessageValue bytes.
func mongoValue(v value.Value) string {
	return clipMessage(string(appendMongo(nil, v)))
}

// mongoElem renders a named value the way MongoDB's messages print an
// element (a: { b: 1 }), cut to maxMessageValue bytes.
func mongoElem(name string, v value.Value) string {
	return clipMessage(string(appendMongo(append([]byte(name), ": "...), v)))
}

// clipMessage cuts s to maxMessageValue bytes on a rune boundary, marking the cut.
func clipMessage(s string) string {
	if len(s) <= maxMessageValue {
		return s
	}
	cut := maxMessageValue
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// appendMongo appends the MongoDB shell-style text of v. It stops early
// once dst is longer than clipMessage would keep.
func appendMongo(dst []byte, v value.Value) []byte {
	if len(dst) > maxMessageValue {
		return dst
	}
	switch v.Kind() {
	case value.Object:
		return appendMongoObject(dst, v)
	case value.Array:
		return appendMongoArray(dst, v)
	case value.Double:
		return appendMongoDouble(dst, v.Double())
	case value.ObjectID:
		dst = append(dst, "ObjectId('"...)
		id := v.OID()
		dst = hex.AppendEncode(dst, id[:])
		return append(dst, "')"...)
	case value.Date:
		dst = append(dst, "new Date("...)
		dst = strconv.AppendInt(dst, v.Date(), 10)
		return append(dst, ')')
	case value.Binary:
		dst = append(dst, "BinData("...)
		dst = strconv.AppendInt(dst, int64(v.Subtype()), 10)
		dst = append(dst, ", "...)
		dst = hex.AppendEncode(dst, v.Bytes())
		return append(dst, ')')
	}
	return value.AppendJSON(dst, v)
}

func appendMongoObject(dst []byte, v value.Value) []byte {
	if v.Len() == 0 {
		return append(dst, "{}"...)
	}
	dst = append(dst, "{ "...)
	for i, f := range v.Fields() {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, f.Key...)
		dst = append(dst, ": "...)
		dst = appendMongo(dst, f.Value)
	}
	return append(dst, " }"...)
}

func appendMongoArray(dst []byte, v value.Value) []byte {
	if v.Len() == 0 {
		return append(dst, "[]"...)
	}
	dst = append(dst, "[ "...)
	for i, e := range v.Array() {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendMongo(dst, e)
	}
	return append(dst, " ]"...)
}

func appendMongoDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return value.AppendDouble(dst, f)
}

// aTypeName names v's type with an article for hints: "a string", "an
// array", "null".
func aTypeName(v value.Value) string {
	switch v.Kind() {
	case value.Null:
		return "null"
	case value.Array, value.Object, value.ObjectID:
		return "an " + v.TypeName()
	}
	return "a " + v.TypeName()
}
