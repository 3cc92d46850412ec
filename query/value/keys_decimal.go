package value

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/cockroachdb/apd/v3"
)

// A decimal's key is that of its nearest double (orderedFloat) followed by
// a marker, as for a long: numExact when the decimal equals the double (so
// that 5, 5.0 and NumberDecimal("5.00") share a key), else numBelow or
// numAbove and the exact distance from the double, which orders the
// values that round to one double among themselves:
//
//   - where longs also carry a distance (doubles from 2^53 to 2^63 in
//     magnitude), as a long does: the distance's floor in 8 bytes, then,
//     when it has a fraction, decSuffix, the fraction's digits and
//     decEndAbove. No type byte is 0xFF, so a decimal sorts after the long
//     of its floor whatever follows the long in a compound key;
//   - elsewhere only decimals carry a distance, written by magnitude: its
//     adjusted exponent in 8 bytes, decSuffix, its digits, and
//     decEndAbove; a negative distance negates the exponent, writes the
//     digits' nines' complements and ends with decEndBelow, which reverses
//     their order.
//
// A decimal beyond the range of doubles takes the bucket of the infinity
// it rounds to, on the side of the finite numbers, ordered by its value.
const (
	decSuffix   = 0xFF
	decEndAbove = 0x00
	decEndBelow = 0xFE
)

// decExact is precise enough to subtract any double from any decimal128
// exactly: their digits span at most 6176 + 309 + 34 places.
var decExact = apd.Context{Precision: 7000, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent}

func appendKeyDecimal(dst []byte, v Value) []byte {
	f := decimalFloat(v.str)
	if math.IsNaN(f) || v.str == "Infinity" || v.str == "-Infinity" {
		return appendKeyDouble(dst, f)
	}
	dst = binary.BigEndian.AppendUint64(dst, orderedFloat(f))
	d := v.Decimal()
	if math.IsInf(f, 0) {
		if f > 0 {
			return appendDecimalMagnitude(append(dst, numBelow), d, false)
		}
		d.Negative = false
		return appendDecimalMagnitude(append(dst, numAbove), d, true)
	}
	diff := new(apd.Decimal)
	decExact.Sub(diff, d, exactDecimal(f))
	switch diff.Sign() {
	case 0:
		return append(dst, numExact)
	case -1:
		dst = append(dst, numBelow)
	default:
		dst = append(dst, numAbove)
	}
	if abs := math.Abs(f); abs >= 1<<53 && abs <= 1<<63 {
		return appendDecimalFloor(dst, diff)
	}
	down := diff.Negative
	diff.Negative = false
	return appendDecimalMagnitude(dst, diff, down)
}

// appendDecimalFloor writes a distance of at most 2^10 as a long's
// distance is written, followed by its fraction's digits when it has one.
func appendDecimalFloor(dst []byte, diff *apd.Decimal) []byte {
	floor, frac := new(apd.Decimal), new(apd.Decimal)
	decExact.Floor(floor, diff)
	decExact.Sub(frac, diff, floor)
	i, _ := floor.Int64()
	dst = binary.BigEndian.AppendUint64(dst, uint64(i)^(1<<63))
	if frac.IsZero() {
		return dst
	}
	digits := frac.Coeff.Append(nil, 10) // frac = digits × 10^Exponent, below 1
	dst = append(dst, decSuffix)
	for n := int(-frac.Exponent) - len(digits); n > 0; n-- {
		dst = append(dst, '0')
	}
	dst = append(dst, bytes.TrimRight(digits, "0")...)
	return append(dst, decEndAbove)
}

// appendDecimalMagnitude writes a positive m by magnitude, in reverse
// order when down.
func appendDecimalMagnitude(dst []byte, m *apd.Decimal, down bool) []byte {
	digits := bytes.TrimRight(m.Coeff.Append(nil, 10), "0")
	adj := int64(m.Exponent) + m.NumDigits() - 1
	if down {
		adj = -adj
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(adj)^(1<<63))
	dst = append(dst, decSuffix)
	for _, c := range digits {
		if down {
			c = '9' - (c - '0')
		}
		dst = append(dst, c)
	}
	if down {
		return append(dst, decEndBelow)
	}
	return append(dst, decEndAbove)
}
