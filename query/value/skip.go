package value

import "github.com/omgdb/omgdb/query/value/jsonscan"

// skip passes over a value without decoding it, checking only that its
// brackets and strings are well formed. A store's documents were validated
// when written (and their checksums verified when read).
func (d *Decoder) skip(depth int) error {
	p := &d.p
	if p.pos >= len(p.data) {
		return p.errorf("unexpected end of input, expected a value")
	}
	c := p.data[p.pos]
	if c != '{' && c != '[' {
		if c == '"' {
			return d.skipString()
		}
		// A number or a literal runs to the next delimiter.
		i := jsonscan.ScalarEnd(p.data, p.pos)
		if i == p.pos {
			return p.errorf("unexpected %s, expected a value", p.describe())
		}
		p.pos = i
		return nil
	}
	return d.skipNested(p.pos, 0, depth)
}

// skipNested passes over the rest of a value: from data[i] on, inside
// level open objects and arrays, to the end of the outermost. It is the
// careful twin of jsonscan.SkipContainer: it runs for the values that
// SkipContainer refuses, and says what is wrong with them.
func (d *Decoder) skipNested(i, level, depth int) error {
	p := &d.p
	data := p.data
	for ; i < len(data); i++ {
		for skipPlain[data[i]] {
			if i++; i == len(data) {
				return p.errorf("unexpected end of input in a value")
			}
		}
		switch data[i] {
		case '{', '[':
			if level++; depth+level > MaxDepth+1 {
				p.pos = i
				return p.depthError()
			}
		case '}', ']':
			if level--; level == 0 {
				p.pos = i + 1
				return nil
			}
		default: // a string
			p.pos = i
			if err := d.skipString(); err != nil {
				return err
			}
			i = p.pos - 1
		}
	}
	return p.errorf("unexpected end of input in a value")
}

// skipPlain marks the bytes that neither open nor close a value.
var skipPlain = func() (t [256]bool) {
	for i := range t {
		t[i] = true
	}
	for _, c := range `{}[]"` {
		t[c] = false
	}
	return t
}()

func (d *Decoder) skipString() error {
	p := &d.p
	i := jsonscan.StringEnd(p.data, p.pos+1)
	if i < 0 {
		return p.errorf("unterminated string")
	}
	p.pos = i
	return nil
}

// skipCanonical returns the end of the value at data[i], which is at the
// given depth, without decoding it, or -1 when it finds anything it does
// not expect of canonical JSON (a space, an end of input, a string that
// does not end, nesting deeper than MaxDepth): the caller then skips the
// value the careful way (Decoder.skip), which reports the error. It is
// lenient as skip is: it checks that brackets and strings end, not what
// is between.
func skipCanonical(data []byte, i, depth int) int {
	return jsonscan.SkipValue(data, i, MaxDepth+1-depth)
}
