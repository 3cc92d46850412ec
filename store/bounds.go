package store

import (
	"bytes"
	"math"
	"strings"

	"github.com/omgdb/omgdb/query/value"
)

// Index bounds. A condition on a field becomes a list of spans of index
// key bytes: half-open ranges [lo, hi) over the keys whose component for
// that field lies in the condition's value range. Spans are built from
// endpoints that are byte prefixes of key encodings (a whole value's
// encoding, or a type byte alone for the start or end of a type bracket),
// which is what lets one rule serve points, ranges, type brackets, string
// prefixes and descending fields. Bounds are always a superset of what can
// match: the full filter is re-checked on every document fetched.

// endpoint is one end of a value range: a prefix of ascending key
// encodings, whether keys having that prefix are included, and how to
// show it in explain.
type endpoint struct {
	prefix []byte
	incl   bool
	show   string
}

// vrange is a range of values [lo, hi] in ascending order.
type vrange struct {
	lo, hi endpoint
	point  bool // lo and hi are the same whole value, both included
}

// span is a range of index key bytes [lo, hi) for one field, in the
// field's direction; hi nil is unbounded.
type span struct {
	lo, hi         []byte
	loShow, hiShow string
	loIncl, hiIncl bool
	point          bool
}

var (
	minEnd = endpoint{prefix: []byte{}, incl: true, show: "MinKey"}
	maxEnd = endpoint{prefix: []byte{0xFF}, incl: true, show: "MaxKey"}
	full   = vrange{lo: minEnd, hi: maxEnd}
)

// succ returns the least byte string above every string that starts with
// p, or nil when there is none (p is empty or all 0xFF).
func succ(p []byte) []byte {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xFF {
			s := append([]byte(nil), p[:i+1]...)
			s[i]++
			return s
		}
	}
	return nil
}

func invert(p []byte) []byte {
	out := make([]byte, len(p))
	for i, b := range p {
		out[i] = ^b
	}
	return out
}

// toSpan turns a value range into the byte span of a field with the
// given direction.
func (r vrange) toSpan(desc bool) span {
	lo, hi := r.lo, r.hi
	if desc {
		lo, hi = endpoint{invert(r.hi.prefix), r.hi.incl, r.hi.show}, endpoint{invert(r.lo.prefix), r.lo.incl, r.lo.show}
	}
	s := span{loShow: lo.show, hiShow: hi.show, loIncl: lo.incl, hiIncl: hi.incl, point: r.point}
	if lo.incl {
		s.lo = lo.prefix
	} else {
		s.lo = succ(lo.prefix)
	}
	if hi.incl {
		s.hi = succ(hi.prefix)
	} else {
		s.hi = hi.prefix
	}
	return s
}

func (s span) empty() bool {
	return s.lo == nil || (s.hi != nil && bytes.Compare(s.lo, s.hi) >= 0)
}

// contains reports whether key (a component's bytes) lies in the span.
func (s span) contains(key []byte) bool {
	return bytes.Compare(key, s.lo) >= 0 && (s.hi == nil || bytes.Compare(key, s.hi) < 0)
}

func (s span) isFull() bool { return len(s.lo) == 0 && s.hi == nil }

// cmpHi compares two upper bounds, nil being infinite.
func cmpHi(a, b []byte) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return bytes.Compare(a, b)
}

// intersect returns the spans both lists cover; lists are sorted and
// disjoint, and so is the result.
func intersect(a, b []span) []span {
	var out []span
	for _, x := range a {
		for _, y := range b {
			s := x
			if bytes.Compare(y.lo, s.lo) > 0 {
				s.lo, s.loShow, s.loIncl = y.lo, y.loShow, y.loIncl
			}
			if cmpHi(y.hi, s.hi) < 0 {
				s.hi, s.hiShow, s.hiIncl = y.hi, y.hiShow, y.hiIncl
			}
			s.point = (x.point && bytes.Equal(s.lo, x.lo) && cmpHi(s.hi, x.hi) == 0) ||
				(y.point && bytes.Equal(s.lo, y.lo) && cmpHi(s.hi, y.hi) == 0)
			if !s.empty() {
				out = append(out, s)
			}
		}
	}
	return union(out)
}

// union sorts spans and merges those that overlap or touch.
func union(spans []span) []span {
	var live []span
	for _, s := range spans {
		if !s.empty() {
			live = append(live, s)
		}
	}
	if len(live) < 2 {
		return live
	}
	sortSpans(live)
	out := []span{live[0]}
	for _, s := range live[1:] {
		last := &out[len(out)-1]
		if last.hi != nil && bytes.Compare(s.lo, last.hi) > 0 {
			out = append(out, s)
			continue
		}
		if cmpHi(s.hi, last.hi) > 0 {
			last.hi, last.hiShow, last.hiIncl = s.hi, s.hiShow, s.hiIncl
			last.point = false
		} else if !bytes.Equal(s.lo, last.lo) || cmpHi(s.hi, last.hi) != 0 {
			last.point = false
		}
	}
	return out
}

func sortSpans(s []span) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && bytes.Compare(s[j].lo, s[j-1].lo) < 0; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// pointRange is the range of exactly v.
func pointRange(v value.Value) vrange {
	if v.IsMissing() {
		v = value.NullValue()
	}
	k := value.AppendKey(nil, v)
	s := showValue(v)
	return vrange{lo: endpoint{k, true, s}, hi: endpoint{k, true, s}, point: true}
}

var nanKey = value.AppendKey(nil, value.DoubleValue(math.NaN()))

// bracket returns the range of every value of v's type bracket: numbers
// leave out NaN, which no range comparison matches.
func bracket(v value.Value) vrange {
	t := value.KeyTypeByte(v)
	lo := endpoint{[]byte{t}, true, bracketStart(v)}
	if v.IsNumber() {
		lo = endpoint{nanKey, false, "-inf.0"}
	}
	return vrange{lo: lo, hi: endpoint{[]byte{t}, true, bracketEnd(v)}}
}

func bracketStart(v value.Value) string {
	switch v.Kind() {
	case value.String:
		return `""`
	case value.Object:
		return "{}"
	case value.Array:
		return "[]"
	case value.Bool:
		return "false"
	}
	return v.TypeName() + " start"
}

func bracketEnd(v value.Value) string {
	switch v.Kind() {
	case value.Long, value.Double, value.Int, value.Decimal:
		return "inf.0"
	case value.String:
		return "{}"
	case value.Object:
		return "[]"
	case value.Bool:
		return "true"
	}
	return v.TypeName() + " end"
}

func showValue(v value.Value) string {
	if v.Kind() == value.Double {
		f := v.Double()
		switch {
		case math.IsInf(f, 1):
			return "inf.0"
		case math.IsInf(f, -1):
			return "-inf.0"
		case math.IsNaN(f):
			return "nan.0"
		}
	}
	return v.String()
}

// strPrefixRange is the range of the strings that start with p.
func strPrefixRange(p string) vrange {
	k := value.AppendKey(nil, value.StringValue(p))
	k = k[:len(k)-2] // drop the terminator: a prefix of every extension
	q := value.StringValue(p).String()
	return vrange{lo: endpoint{k, true, q}, hi: endpoint{k, true, q[:len(q)-1] + `\uffff"`}}
}

// regexPrefix returns the literal text every match of a regex must begin
// with, when the regex is anchored at the start and has no flags that
// would break that; ok is false otherwise.
func regexPrefix(pattern, flags string) (string, bool) {
	if strings.ContainsAny(flags, "imx") || !strings.HasPrefix(pattern, "^") || strings.ContainsAny(pattern, "|\x00") {
		return "", false
	}
	var lits []rune
	for _, c := range pattern[1:] {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, c) {
			if strings.ContainsRune(`*?{`, c) && len(lits) > 0 {
				lits = lits[:len(lits)-1] // the last literal is optional or repeated
			}
			break
		}
		lits = append(lits, c)
	}
	return string(lits), len(lits) > 0
}
