package value

import "encoding/binary"

// KeyLen returns the length of the first key encoding (of AppendKey, or of
// AppendKeyDesc when desc) at the start of b, or -1 when b does not start
// with a whole, well-formed encoding. Index keys are concatenations of
// encodings; KeyLen splits them back into their components.
func KeyLen(b []byte, desc bool) int {
	r := keyReader{b: b, desc: desc}
	if !r.value() {
		return -1
	}
	return r.pos
}

// keyReader walks an encoding without decoding it.
type keyReader struct {
	b    []byte
	pos  int
	desc bool
}

func (r *keyReader) byte() (byte, bool) {
	if r.pos >= len(r.b) {
		return 0, false
	}
	c := r.b[r.pos]
	r.pos++
	if r.desc {
		c = ^c
	}
	return c, true
}

func (r *keyReader) skip(n int) bool {
	if n < 0 || len(r.b)-r.pos < n {
		return false
	}
	r.pos += n
	return true
}

// value reads one type byte and its body.
func (r *keyReader) value() bool {
	t, ok := r.byte()
	return ok && r.body(t)
}

func (r *keyReader) body(t byte) bool {
	switch t {
	case keyNull, KeyMinKey, KeyMaxKey:
		return true
	case keyNumber:
		if !r.skip(8) {
			return false
		}
		m, ok := r.byte()
		switch {
		case !ok:
			return false
		case m == numExact:
			return true
		case m == numBelow || m == numAbove:
			return r.skip(8) && r.decimalSuffix()
		}
		return false
	case keyString, keyRegex:
		if t == keyRegex && !r.str() {
			return false
		}
		return r.str()
	case keyObject:
		for {
			ft, ok := r.byte()
			if !ok {
				return false
			}
			if ft == keyEnd {
				return true
			}
			if !r.str() || !r.body(ft) {
				return false
			}
		}
	case keyArray:
		for {
			if r.pos >= len(r.b) {
				return false
			}
			if c := r.peek(); c == keyEnd {
				r.pos++
				return true
			}
			if !r.value() {
				return false
			}
		}
	case keyBinary:
		if len(r.b)-r.pos < 4 {
			return false
		}
		var n [4]byte
		for i := range n {
			n[i], _ = r.byte()
		}
		return r.skip(1) && r.skip(int(binary.BigEndian.Uint32(n[:])))
	case keyObjectID:
		return r.skip(12)
	case keyBool:
		return r.skip(1)
	case keyDate, keyStamp:
		return r.skip(8)
	}
	return false
}

// decimalSuffix skips the digits that follow a decimal's distance from its
// nearest double (appendKeyDecimal), if there are any.
func (r *keyReader) decimalSuffix() bool {
	if r.pos >= len(r.b) || r.peek() != decSuffix {
		return true
	}
	r.pos++
	for {
		c, ok := r.byte()
		switch {
		case !ok:
			return false
		case c == decEndAbove || c == decEndBelow:
			return true
		case c < '0' || c > '9':
			return false
		}
	}
}

func (r *keyReader) peek() byte {
	c := r.b[r.pos]
	if r.desc {
		c = ^c
	}
	return c
}

// str skips an escaped string and its 0x00 0x01 terminator.
func (r *keyReader) str() bool {
	for {
		c, ok := r.byte()
		if !ok {
			return false
		}
		if c != 0 {
			continue
		}
		c, ok = r.byte()
		switch {
		case !ok:
			return false
		case c == 0x01:
			return true
		case c != 0xFF:
			return false
		}
	}
}

// KeyTypeByte returns the first byte of v's key encoding: its type bracket.
// Every encoding of a value of the same bracket starts with it, and the
// brackets are ordered as MongoDB orders types.
func KeyTypeByte(v Value) byte { return keyType(v.kind) }
