package pretty

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// appendKey appends an object key: bare when it is a JavaScript
// identifier, single-quoted otherwise ('first name', '$set' stays bare).
func appendKey(dst []byte, key string) []byte {
	if isIdentifier(key) {
		return append(dst, key...)
	}
	return appendQuoted(dst, key)
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || unicode.IsLetter(r):
		case i > 0 && unicode.IsDigit(r):
		default:
			return false
		}
	}
	return true
}

// appendQuoted appends s as a single-quoted JavaScript string literal,
// escaping quotes, backslashes, control characters (C0 and C1, so that a
// stored string cannot send escape sequences to the terminal) and invalid
// UTF-8.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '\'')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\'' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == utf8.RuneError && size == 1, r < 0x20, r >= 0x7f && r <= 0x9f, r == 0x2028, r == 0x2029:
			dst = appendEscape(dst, s[i:i+size], r, size)
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '\'')
}

func appendEscape(dst []byte, raw string, r rune, size int) []byte {
	if r == utf8.RuneError && size == 1 {
		dst = append(dst, `\x`...)
		return appendHex(dst, int64(raw[0]), 2)
	}
	dst = append(dst, `\u`...)
	return appendHex(dst, int64(r), 4)
}

func appendHex(dst []byte, n int64, width int) []byte {
	h := strconv.FormatInt(n, 16)
	for i := len(h); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, h...)
}
