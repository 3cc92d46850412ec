package jsonscan

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Flags say what the text of a string holds, beyond plain ASCII.
type Flags uint8

const (
	Escaped  Flags = 1 << iota // a backslash
	Control                    // a byte below 0x20, which JSON refuses unescaped
	NonASCII                   // a byte of 0x80 or above, to check as UTF-8
)

// class sorts bytes for String: 0 for plain ASCII, Flags for the others,
// and quote for '"'.
const quote = 1 << 7

var class = func() (t [256]Flags) {
	for c := range 0x20 {
		t[c] = Control
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = NonASCII
	}
	t['\\'], t['"'] = Escaped, quote
	return t
}()

// plain marks the ASCII bytes a string holds as they are.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Plain returns the position of the first byte from data[i] on that is
// not plain ASCII (a quote, a backslash, a control character or a byte
// of 0x80 or above), or len(data).
func Plain(data []byte, i int) int {
	for i < len(data) && plain[data[i]] {
		i++
	}
	return i
}

// String returns the position after the quote that ends the string
// whose text starts at data[i] (after its opening quote), or -1 when it
// does not end, and what its text holds. A backslash escapes the byte
// after it; String does not check escapes (Unquote does).
func String(data []byte, i int) (end int, f Flags) {
	for i < len(data) {
		c := class[data[i]]
		if c == 0 {
			i++
			continue
		}
		if c == quote {
			return i + 1, f
		}
		f |= c
		if c == Escaped {
			i++
		}
		i++
	}
	return -1, f
}

// StringEnd returns the position after the quote that ends the string
// whose text starts at data[i] (after its opening quote), or -1: a quote
// ends the string unless an odd number of backslashes precede it. It is
// String for a reader that needs only the end, as fast over long strings
// as bytes.IndexByte.
func StringEnd(data []byte, i int) int {
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

// Unquote decodes the string whose text starts at data[i] (after its
// opening quote) and appends it to dst. It returns the extended buffer
// and the position after the closing quote, or an error: a control
// character, an invalid escape, a lone surrogate, invalid UTF-8 (in the
// text as decoded) or no end.
func Unquote(dst, data []byte, i int) ([]byte, int, *SyntaxError) {
	start, base := i, len(dst)
	for i < len(data) {
		run := i
		for i < len(data) && class[data[i]]&^NonASCII == 0 {
			i++
		}
		dst = append(dst, data[run:i]...)
		if i == len(data) {
			break
		}
		switch c := data[i]; {
		case c == '"':
			if !utf8.Valid(dst[base:]) {
				return dst, 0, invalidUTF8(data, start, i)
			}
			return dst, i + 1, nil
		case c == '\\':
			var err *SyntaxError
			if dst, i, err = escape(dst, data, i); err != nil {
				return dst, 0, err
			}
		default:
			return dst, 0, errorAt(i, "control character 0x%02x in a string (escape it)", c)
		}
	}
	return dst, 0, errorAt(len(data), "unterminated string")
}

// invalidUTF8 reports the first byte of data[start:end] that is not
// valid UTF-8 (or end, when the decoded text only is invalid).
func invalidUTF8(data []byte, start, end int) *SyntaxError {
	at := end
	for i := start; i < end; {
		r, n := utf8.DecodeRune(data[i:end])
		if r == utf8.RuneError && n <= 1 {
			at = i
			break
		}
		i += n
	}
	e := errorAt(at, "invalid UTF-8 in a string")
	e.Hint = "omgdb stores text as UTF-8; re-encode the input"
	return e
}

// escape decodes the escape at data[i] (a backslash), returning the
// position after it.
func escape(dst, data []byte, i int) ([]byte, int, *SyntaxError) {
	i++ // backslash
	if i >= len(data) {
		return dst, 0, errorAt(i, "unterminated escape")
	}
	c := data[i]
	i++
	switch c {
	case '"', '\\', '/':
		return append(dst, c), i, nil
	case 'b':
		return append(dst, '\b'), i, nil
	case 'f':
		return append(dst, '\f'), i, nil
	case 'n':
		return append(dst, '\n'), i, nil
	case 'r':
		return append(dst, '\r'), i, nil
	case 't':
		return append(dst, '\t'), i, nil
	case 'u':
		r, err := hex4(data, i)
		if err != nil {
			return dst, 0, err
		}
		i += 4
		if utf16.IsSurrogate(r) {
			if r >= 0xDC00 || !bytes.HasPrefix(data[i:], []byte(`\u`)) {
				return dst, 0, errorAt(i, "lone surrogate \\u%04X in a string", r)
			}
			i += 2
			r2, err := hex4(data, i)
			if err != nil {
				return dst, 0, err
			}
			i += 4
			if r2 < 0xDC00 || r2 > 0xDFFF {
				return dst, 0, errorAt(i, "lone surrogate \\u%04X in a string", r)
			}
			r = utf16.DecodeRune(r, r2)
		}
		return utf8.AppendRune(dst, r), i, nil
	}
	return dst, 0, errorAt(i-2, "invalid escape \\%c in a string", c)
}

// hex4 reads the four hex digits of a \u escape at data[i].
func hex4(data []byte, i int) (rune, *SyntaxError) {
	if i+4 > len(data) {
		return 0, errorAt(i, "short \\u escape")
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, errorAt(i, "invalid \\u escape %q", data[i:i+4])
		}
		r = r<<4 | rune(c)
	}
	return r, nil
}
