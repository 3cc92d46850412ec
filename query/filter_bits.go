package query

import (
	"math"

	"github.com/omgdb/omgdb/query/value"
)

type bitsOp uint8

const (
	bitsAllSet bitsOp = iota
	bitsAllClear
	bitsAnySet
	bitsAnyClear
)

var bitsOps = map[string]bitsOp{
	"$bitsAllSet": bitsAllSet, "$bitsAllClear": bitsAllClear, "$bitsAnySet": bitsAnySet, "$bitsAnyClear": bitsAnyClear,
}

// bitsPred is a bitwise operator: it tests the listed bit positions of an
// integral number (two's complement, sign-extended beyond bit 63) or of
// binData (little-endian: bit 0 is the low bit of the first byte).
type bitsPred struct {
	op        bitsOp
	positions []uint32
}

// compileBits compiles $bitsAllSet, $bitsAllClear, $bitsAnySet and
// $bitsAnyClear: an array of bit positions, a non-negative integer bitmask,
// or a binData bitmask.
func compileBits(name string, arg value.Value) (valuePred, error) {
	p := &bitsPred{op: bitsOps[name]}
	switch arg.Kind() {
	case value.Array:
		for _, e := range arg.Array() {
			pos, err := bitPosition(name, e)
			if err != nil {
				return nil, err
			}
			p.positions = append(p.positions, pos)
		}
	case value.Long, value.Double, value.Int:
		mask, ok := integral(arg)
		if !ok || mask < 0 {
			return nil, malformed("%s needs a non-negative integer bitmask, got %s", name, arg)
		}
		for i := uint32(0); i < 63; i++ {
			if mask&(1<<i) != 0 {
				p.positions = append(p.positions, i)
			}
		}
	case value.Binary:
		for i, b := range arg.Bytes() {
			for j := uint32(0); j < 8; j++ {
				if b&(1<<j) != 0 {
					p.positions = append(p.positions, uint32(i)*8+j)
				}
			}
		}
	default:
		return nil, malformed("%s takes an array of bit positions, a number, or a binData bitmask; got %s", name, arg.TypeName())
	}
	return p, nil
}

func bitPosition(name string, e value.Value) (uint32, error) {
	n, ok := integral(e)
	if !ok || n < 0 || n > math.MaxInt32 {
		return 0, malformed("%s: bit positions must be integers from 0 to 2147483647, got %s", name, e)
	}
	return uint32(n), nil
}

// integral returns a long, or a double that holds an integer in the int64
// range, as an int64.
func integral(v value.Value) (int64, bool) {
	switch v.Kind() {
	case value.Long, value.Int:
		return v.Long(), true
	case value.Double:
		f := v.Double()
		if f != math.Trunc(f) {
			return 0, false
		}
		return truncToLong(f)
	}
	return 0, false
}

func (p *bitsPred) matchValue(v value.Value, _ *matchCtx) bool {
	switch v.Kind() {
	case value.Long, value.Double, value.Int:
		x, ok := integral(v)
		if !ok {
			return false
		}
		return p.test(func(pos uint32) bool {
			if pos >= 64 {
				return x < 0
			}
			return x&(1<<pos) != 0
		})
	case value.Binary:
		b := v.Bytes()
		return p.test(func(pos uint32) bool {
			i := int(pos / 8)
			return i < len(b) && b[i]&(1<<(pos%8)) != 0
		})
	}
	return false
}

// test applies the operator to the listed positions of a bit source.
func (p *bitsPred) test(bit func(uint32) bool) bool {
	wantSet := p.op == bitsAllSet || p.op == bitsAnySet
	all := p.op == bitsAllSet || p.op == bitsAllClear
	for _, pos := range p.positions {
		if (bit(pos) == wantSet) != all {
			return !all
		}
	}
	return all
}
