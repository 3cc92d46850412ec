package value

import "bytes"

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
		i := p.pos
		for i < len(p.data) && !scalarEnd[p.data[i]] {
			i++
		}
		if i == p.pos {
			return p.errorf("unexpected %s, expected a value", p.describe())
		}
		p.pos = i
		return nil
	}
	return d.skipNested(p.pos, 0, depth)
}

// skipNested passes over the rest of a value: from data[i] on, inside
// level open objects and arrays, to the end of the outermost.
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

// scalarEnd marks the bytes that may follow a number or a literal.
var scalarEnd = func() (t [256]bool) {
	for _, c := range ",}] \t\r\n" {
		t[c] = true
	}
	return t
}()

// stringPlain marks the bytes that neither end a string nor escape.
var stringPlain = func() (t [256]bool) {
	for i := range t {
		t[i] = true
	}
	t['"'], t['\\'] = false, false
	return t
}()

func (d *Decoder) skipString() error {
	p := &d.p
	data := p.data
	for i := p.pos + 1; i < len(data); i++ {
		for stringPlain[data[i]] {
			if i++; i == len(data) {
				return p.errorf("unterminated string")
			}
		}
		if data[i] == '"' {
			p.pos = i + 1
			return nil
		}
		i++ // the escaped byte
	}
	return p.errorf("unterminated string")
}

// skipCanonical returns the end of the value at data[i], which is at the
// given depth, without decoding it, or -1 when it finds anything it does
// not expect of canonical JSON (a space, an end of input, a string that
// does not end, nesting deeper than MaxDepth): the caller then skips the
// value the careful way (Decoder.skip), which reports the error. It is
// lenient as skip is: it checks that brackets and strings end, not what
// is between.
func skipCanonical(data []byte, i, depth int) int {
	if uint(i) >= uint(len(data)) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipQuoted(data, i+1)
	case '{', '[':
		return skipContainer(data, i, 0, depth)
	}
	// A number or a literal runs to the next delimiter.
	j := i
	for j < len(data) && !scalarEnd[data[j]] {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// skipQuoted returns the position after the '"' that ends the string
// whose text starts at data[i] (after its opening quote), or -1. A quote
// ends the string unless an odd number of backslashes precede it.
func skipQuoted(data []byte, i int) int {
	start := i
	for {
		// Short strings, the usual ones, are read in the loop; longer ones
		// with bytes.IndexByte.
		end := min(i+16, len(data))
		for i < end && data[i] != '"' {
			i++
		}
		if i == end {
			if i == len(data) {
				return -1
			}
			k := bytes.IndexByte(data[i:], '"')
			if k < 0 {
				return -1
			}
			i += k
		}
		// data[i] is a quote: count the backslashes before it.
		b := i - 1
		for b >= start && data[b] == '\\' {
			b--
		}
		if (i-1-b)%2 == 0 {
			return i + 1
		}
		i++
	}
}

// skipContainer returns the end of the object or array at data[i], at
// the given depth, or -1; level > 0 says data[i] is inside that many open
// objects and arrays (their depth is depth+level-1), and it returns the
// end of the outermost.
func skipContainer(data []byte, i, level, depth int) int {
	for i < len(data) {
		switch skipClass[data[i]] {
		case 0:
			i++
		case '{':
			if level++; depth+level > MaxDepth+1 {
				return -1
			}
			i++
		case '}':
			i++
			if level--; level == 0 {
				return i
			}
		default: // '"'
			if i = skipQuoted(data, i+1); i < 0 {
				return -1
			}
		}
	}
	return -1
}

// skipClass sorts bytes for skipContainer: '{' opens a value, '}' closes
// one, '"' starts a string, 0 is any other byte.
var skipClass = func() (t [256]byte) {
	t['{'], t['['] = '{', '{'
	t['}'], t[']'] = '}', '}'
	t['"'] = '"'
	return t
}()
