package value

import (
	"encoding/binary"
	"math"
)

// Type bytes of the key encoding, in MongoDB's type order. MinKey and
// MaxKey bound every value; they are used for open-ended index ranges, and
// are the keys of the minKey and maxKey values.
const (
	keyEnd      = 0x00 // ends an object or array
	KeyMinKey   = 0x01 // below every value
	keyNull     = 0x10
	keyNumber   = 0x20
	keyString   = 0x30
	keyObject   = 0x40
	keyArray    = 0x50
	keyBinary   = 0x60
	keyObjectID = 0x70
	keyBool     = 0x80
	keyDate     = 0x90
	keyStamp    = 0xA0 // timestamp
	keyRegex    = 0xB0
	KeyMaxKey   = 0xF0 // above every value
)

// Markers that follow a number's rounded float: the exact value is below,
// equal to, or above that float.
const (
	numBelow = 0x01
	numExact = 0x02
	numAbove = 0x03
)

// AppendKey appends an order-preserving encoding of v to dst: for any a and
// b, bytes.Compare(AppendKey(nil, a), AppendKey(nil, b)) == Compare(a, b).
// Encodings are self-delimiting, so keys of several values can be
// concatenated (compound index keys) and still compare component-wise.
// Missing encodes as null, as in MongoDB indexes. Equal values encode to
// the same bytes: the long 5 and the double 5.0 share one key.
func AppendKey(dst []byte, v Value) []byte {
	dst = append(dst, keyType(v.kind))
	return appendKeyBody(dst, v)
}

// AppendKeyDesc appends the encoding of v for a descending index field:
// the bytes of AppendKey inverted, which reverses the order.
func AppendKeyDesc(dst []byte, v Value) []byte {
	start := len(dst)
	dst = AppendKey(dst, v)
	for i := start; i < len(dst); i++ {
		dst[i] = ^dst[i]
	}
	return dst
}

func keyType(k Kind) byte {
	switch k {
	case MinKey:
		return KeyMinKey
	case Missing, Null:
		return keyNull
	case Long, Double, Int, Decimal:
		return keyNumber
	case String:
		return keyString
	case Object:
		return keyObject
	case Array:
		return keyArray
	case Binary:
		return keyBinary
	case ObjectID:
		return keyObjectID
	case Bool:
		return keyBool
	case Date:
		return keyDate
	case Timestamp:
		return keyStamp
	case Regex:
		return keyRegex
	}
	return KeyMaxKey
}

func appendKeyBody(dst []byte, v Value) []byte {
	switch v.kind {
	case Long, Int:
		return appendKeyLong(dst, int64(v.num))
	case Decimal:
		return appendKeyDecimal(dst, v)
	case Double:
		return appendKeyDouble(dst, math.Float64frombits(v.num))
	case String:
		return appendKeyString(dst, v.str)
	case Object:
		for _, f := range v.fields {
			dst = append(dst, keyType(f.Value.kind))
			dst = appendKeyString(dst, f.Key)
			dst = appendKeyBody(dst, f.Value)
		}
		return append(dst, keyEnd)
	case Array:
		for _, e := range v.arr {
			dst = AppendKey(dst, e)
		}
		return append(dst, keyEnd)
	case Binary:
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(v.str)))
		dst = append(dst, byte(v.num))
		return append(dst, v.str...)
	case ObjectID:
		return append(dst, v.str...)
	case Bool:
		return append(dst, byte(v.num))
	case Date:
		return binary.BigEndian.AppendUint64(dst, uint64(int64(v.num))^(1<<63))
	case Timestamp:
		return binary.BigEndian.AppendUint64(dst, v.num)
	case Regex:
		return appendKeyString(appendKeyString(dst, v.Pattern()), v.Options())
	}
	return dst
}

// appendKeyString escapes 0x00 as 0x00 0xFF and terminates with 0x00 0x01,
// so that a string sorts before its extensions.
func appendKeyString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			dst = append(dst, 0x00, 0xFF)
		} else {
			dst = append(dst, s[i])
		}
	}
	return append(dst, 0x00, 0x01)
}

// orderedFloat maps a float64 to a uint64 whose unsigned order is the
// float's numeric order; NaN maps to 0, below -Inf, and -0 equals +0.
func orderedFloat(f float64) uint64 {
	if math.IsNaN(f) {
		return 0
	}
	if f == 0 {
		f = 0 // -0 -> +0
	}
	b := math.Float64bits(f)
	if b&(1<<63) != 0 {
		return ^b
	}
	return b | 1<<63
}

func appendKeyDouble(dst []byte, f float64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, orderedFloat(f))
	return append(dst, numExact)
}

// appendKeyLong encodes i as the nearest double followed by the exact
// distance from it, so that longs beyond 2^53 keep their exact order among
// themselves and against doubles.
func appendKeyLong(dst []byte, i int64) []byte {
	f := float64(i)
	dst = binary.BigEndian.AppendUint64(dst, orderedFloat(f))
	var diff int64
	if f >= 9223372036854775808.0 {
		diff = int64(uint64(i) - 1<<63) // i - 2^63, negative
	} else {
		diff = i - int64(f)
	}
	switch {
	case diff < 0:
		dst = append(dst, numBelow)
	case diff > 0:
		dst = append(dst, numAbove)
	default:
		return append(dst, numExact)
	}
	return binary.BigEndian.AppendUint64(dst, uint64(diff)^(1<<63))
}
