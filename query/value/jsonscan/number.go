package jsonscan

import (
	"math"
	"strconv"
	"unsafe"
)

// Number reads the JSON number at data[i] and returns the position after
// it, and whether it has a fraction or an exponent (float false: an
// integer, which canonical JSON writes as a long). The first byte must be
// '-' or a digit. The error is for text that is no JSON number: a missing
// digit, a leading zero.
func Number(data []byte, i int) (end int, float bool, err *SyntaxError) {
	start := i
	if data[i] == '-' {
		i++
	}
	n := digits(data, i)
	if n == i {
		return 0, false, errorAt(i, "invalid number: expected a digit")
	}
	if n-i > 1 && data[i] == '0' {
		return 0, false, errorAt(start, "invalid number: leading zero")
	}
	i = n
	if i < len(data) && data[i] == '.' {
		float = true
		if i = digits(data, i+1); i == n+1 {
			return 0, false, errorAt(i, "invalid number: expected a digit after '.'")
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		float = true
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		e := i
		if i = digits(data, i); i == e {
			return 0, false, errorAt(i, "invalid number: expected a digit in the exponent")
		}
	}
	return i, float, nil
}

// digits returns the position of the first byte from data[i] on that is
// not a digit.
func digits(data []byte, i int) int {
	for i < len(data) && data[i]-'0' <= 9 {
		i++
	}
	return i
}

// ParseInt returns the value of an integer that Number read; ok is false
// when it does not fit in an int64.
func ParseInt(b []byte) (n int64, ok bool) {
	if n, ok := smallInt(b); ok {
		return n, true
	}
	// The text aliases the input: strconv copies what it keeps.
	n, err := strconv.ParseInt(unsafe.String(&b[0], len(b)), 10, 64)
	return n, err == nil
}

// ParseFloat returns the value of a number that Number read, correctly
// rounded; ok is false when it is out of the range of a float64.
func ParseFloat(b []byte) (f float64, ok bool) {
	if f, ok := shortDecimal(b); ok {
		return f, true
	}
	f, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	return f, err == nil
}

// smallInt parses an integer of at most 18 digits, which cannot overflow.
func smallInt(b []byte) (int64, bool) {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// shortDecimal parses a number without an exponent and with at most 15
// digits, such as 55.161: its digits make an integer below 2^53 and the
// point a power of ten up to 1e15, both exact doubles, so their quotient
// is the correctly rounded value (Clinger's fast path), as ParseFloat
// would return. b is a valid JSON number.
func shortDecimal(b []byte) (float64, bool) {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) > 16 {
		return 0, false
	}
	var m uint64
	point := -1
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
		case c == '.' && point < 0:
			point = i
		default:
			return 0, false
		}
	}
	if point < 0 {
		return 0, false
	}
	f := float64(m) / pow10[len(b)-1-point]
	if neg {
		f = -f
	}
	return f, true
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// Short reads the number at data[i] when it has at most 15 digits and no
// exponent, as most stored numbers do, in one pass: it returns the bits
// of its value (an int64 when float is false, else a float64's, with
// shortDecimal's exact quotient for a fraction) as Number and ParseInt or
// ParseFloat give it, and the position after it. next is 0 for any other
// text, which Number reads or reports.
func Short(data []byte, i int) (bits uint64, float bool, next int) {
	j := i
	if j < len(data) && data[j] == '-' {
		j++
	}
	start := j
	var m uint64
	for j < len(data) && data[j]-'0' <= 9 {
		m = m*10 + uint64(data[j]-'0')
		j++
	}
	whole := j - start
	if whole == 0 || whole > 15 || (whole > 1 && data[start] == '0') {
		return 0, false, 0
	}
	if j == len(data) || (data[j] != '.' && data[j] != 'e' && data[j] != 'E') {
		n := int64(m)
		if data[i] == '-' {
			n = -n
		}
		return uint64(n), false, j
	}
	if data[j] != '.' {
		return 0, false, 0
	}
	j++
	frac := j
	for j < len(data) && data[j]-'0' <= 9 {
		m = m*10 + uint64(data[j]-'0')
		j++
	}
	if j == frac || whole+j-frac > 15 || (j < len(data) && (data[j] == 'e' || data[j] == 'E')) {
		return 0, false, 0
	}
	f := float64(m) / pow10[j-frac]
	if data[i] == '-' {
		f = -f
	}
	return math.Float64bits(f), true, j
}
