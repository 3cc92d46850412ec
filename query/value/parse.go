package value

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/omgdb/omgdb/query/errs"
)

// Parse parses one JSON value strictly: valid UTF-8, no duplicate keys,
// nesting at most MaxDepth, integers that fit in int64, nothing but white
// space after the value. MongoDB Extended JSON v2 type wrappers
// ({"$oid":…}, {"$date":…}, {"$numberLong":…}, {"$numberInt":…},
// {"$numberDouble":…}, {"$binary":…}) become the values they denote.
// Errors are *Error values of kind Invalid that give the byte offset.
func Parse(data []byte) (Value, error) {
	if len(data) > MaxDocumentSize {
		return Value{}, errs.Errorf(errs.Limit, "document is %d bytes, over the %d-byte limit", len(data), MaxDocumentSize).
			WithHint("split the document; omgdb stores documents of at most 16 MiB")
	}
	return ParseLarge(data)
}

// ParseLarge is Parse without the limit on the size of a document, for
// values that hold many documents: a journal record holds a before-image
// of every document its transaction changed.
func ParseLarge(data []byte) (Value, error) {
	p := parserPool.Get().(*parser)
	defer p.release()
	p.data, p.pos = data, 0
	p.skipSpace()
	v, err := p.value(1)
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return Value{}, p.errorf("unexpected %s after the JSON value", p.describe())
	}
	return v, nil
}

var parserPool = sync.Pool{New: func() any { return &parser{keys: map[string]string{}} }}

// maxPooledStack is the capacity above which a scratch stack is dropped
// rather than cleared when the parser goes back to the pool: clearing costs
// its whole capacity on every parse, so one large document (a journal
// record of 10,000 operations) would otherwise make every later small parse
// clear hundreds of kilobytes.
const maxPooledStack = 256

// release returns the parser to the pool, dropping what would pin memory.
func (p *parser) release() {
	p.data = nil
	p.fields = resetStack(p.fields)
	p.elems = resetStack(p.elems)
	if len(p.keys) > 4096 {
		clear(p.keys)
	}
	parserPool.Put(p)
}

// resetStack empties a scratch stack, clearing it so it pins no values, or
// dropping it when it grew large.
func resetStack[T any](s []T) []T {
	if cap(s) > maxPooledStack {
		return nil
	}
	clear(s[:cap(s)])
	return s[:0]
}

// ParseString is Parse for a string.
func ParseString(s string) (Value, error) { return Parse([]byte(s)) }

// MustParse parses s and panics on error. For tests and constants.
func MustParse(s string) Value {
	v, err := Parse([]byte(s))
	if err != nil {
		panic("value.MustParse(" + strconv.Quote(s) + "): " + err.Error())
	}
	return v
}

type parser struct {
	data []byte
	pos  int
	// Scratch stacks: the fields and elements of the objects and arrays
	// being parsed accumulate here and are copied out, at their exact size,
	// when each one ends, so a document costs one allocation per container.
	fields []Field
	elems  []Value
	keys   map[string]string // interned field names: documents repeat them
}

func (p *parser) errorf(format string, args ...any) *errs.Error {
	e := errs.Errorf(errs.Invalid, "invalid JSON at byte %d: "+format, append([]any{p.pos}, args...)...)
	return e
}

// describe names the byte at the current position for an error message.
func (p *parser) describe() string {
	if p.pos >= len(p.data) {
		return "end of input"
	}
	c := p.data[p.pos]
	if c >= 0x20 && c < 0x7f {
		return "character " + strconv.QuoteRune(rune(c))
	}
	return "byte 0x" + hex.EncodeToString([]byte{c})
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if p.pos >= len(p.data) {
		return Value{}, p.errorf("unexpected end of input, expected a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		return StringValue(s), err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return BoolValue(true), nil
	case p.literal("false"):
		return BoolValue(false), nil
	case p.literal("null"):
		return NullValue(), nil
	}
	return Value{}, p.errorf("unexpected %s, expected a value", p.describe())
}

func (p *parser) literal(word string) bool {
	if bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		p.pos += len(word)
		return true
	}
	return false
}

func (p *parser) depthError() *errs.Error {
	return p.errorf("nesting deeper than %d levels", MaxDepth).
		WithHint("flatten the document; omgdb accepts at most %d nested objects and arrays", MaxDepth)
}

func (p *parser) array(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.depthError()
	}
	p.pos++ // [
	base := len(p.elems)
	defer func() { p.elems = p.elems[:base] }()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return ArrayValue([]Value{}), nil
	}
	for {
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		p.elems = append(p.elems, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.errorf("unexpected end of input in an array, expected ',' or ']'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return ArrayValue(append([]Value(nil), p.elems[base:]...)), nil
		default:
			return Value{}, p.errorf("unexpected %s in an array, expected ',' or ']'", p.describe())
		}
	}
}

func (p *parser) object(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.depthError()
	}
	start := p.pos
	p.pos++ // {
	base := len(p.fields)
	defer func() { p.fields = p.fields[:base] }()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return ObjectValue([]Field{}), nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Value{}, p.errorf("unexpected %s in an object, expected a quoted key", p.describe())
		}
		keyPos := p.pos
		key, err := p.key()
		if err != nil {
			return Value{}, err
		}
		if hasKey(p.fields[base:], key) {
			p.pos = keyPos
			return Value{}, p.errorf("duplicate key %q", key).WithHint("each key may appear once in an object")
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return Value{}, p.errorf("unexpected %s after key %q, expected ':'", p.describe(), key)
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		p.fields = append(p.fields, Field{key, v})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.errorf("unexpected end of input in an object, expected ',' or '}'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			fields := append([]Field(nil), p.fields[base:]...)
			if len(fields[0].Key) > 1 && fields[0].Key[0] == '$' {
				return p.extended(start, fields)
			}
			return ObjectValue(fields), nil
		default:
			return Value{}, p.errorf("unexpected %s in an object, expected ',' or '}'", p.describe())
		}
	}
}

// key parses an object key, interning short keys without escapes.
func (p *parser) key() (string, error) {
	end := p.pos + 1
	for end < len(p.data) && end-p.pos <= 32 {
		c := p.data[end]
		if c == '"' {
			raw := p.data[p.pos+1 : end]
			if k, ok := p.keys[string(raw)]; ok {
				p.pos = end + 1
				return k, nil
			}
			k, err := p.string()
			if err == nil {
				p.keys[k] = k
			}
			return k, err
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		end++
	}
	return p.string()
}

func hasKey(fields []Field, key string) bool {
	for i := range fields {
		if fields[i].Key == key {
			return true
		}
	}
	return false
}

func (p *parser) string() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.data[start:p.pos]
			if !utf8.Valid(s) {
				return "", p.invalidUTF8(start)
			}
			p.pos++
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.errorf("control character 0x%02x in a string (escape it)", c)
		}
		p.pos++
	}
	buf := append([]byte(nil), p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			if !utf8.Valid(buf) {
				return "", p.invalidUTF8(start)
			}
			p.pos++
			return string(buf), nil
		case c == '\\':
			var err error
			if buf, err = p.escape(buf); err != nil {
				return "", err
			}
		case c < 0x20:
			return "", p.errorf("control character 0x%02x in a string (escape it)", c)
		default:
			buf = append(buf, c)
			p.pos++
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *parser) invalidUTF8(start int) *errs.Error {
	for i := start; i < p.pos; {
		r, n := utf8.DecodeRune(p.data[i:p.pos])
		if r == utf8.RuneError && n <= 1 {
			p.pos = i
			break
		}
		i += n
	}
	return p.errorf("invalid UTF-8 in a string").WithHint("omgdb stores text as UTF-8; re-encode the input")
}

func (p *parser) escape(buf []byte) ([]byte, error) {
	p.pos++ // backslash
	if p.pos >= len(p.data) {
		return nil, p.errorf("unterminated escape")
	}
	c := p.data[p.pos]
	p.pos++
	switch c {
	case '"', '\\', '/':
		return append(buf, c), nil
	case 'b':
		return append(buf, '\b'), nil
	case 'f':
		return append(buf, '\f'), nil
	case 'n':
		return append(buf, '\n'), nil
	case 'r':
		return append(buf, '\r'), nil
	case 't':
		return append(buf, '\t'), nil
	case 'u':
		r, err := p.hex4()
		if err != nil {
			return nil, err
		}
		if utf16.IsSurrogate(r) {
			if r >= 0xDC00 || !bytes.HasPrefix(p.data[p.pos:], []byte(`\u`)) {
				return nil, p.errorf("lone surrogate \\u%04X in a string", r)
			}
			p.pos += 2
			r2, err := p.hex4()
			if err != nil {
				return nil, err
			}
			if r2 < 0xDC00 || r2 > 0xDFFF {
				return nil, p.errorf("lone surrogate \\u%04X in a string", r)
			}
			r = utf16.DecodeRune(r, r2)
		}
		return utf8.AppendRune(buf, r), nil
	}
	p.pos -= 2
	return nil, p.errorf("invalid escape \\%c in a string", c)
}

func (p *parser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errorf("short \\u escape")
	}
	n, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 16)
	if err != nil {
		return 0, p.errorf("invalid \\u escape %q", p.data[p.pos:p.pos+4])
	}
	p.pos += 4
	return rune(n), nil
}

func (p *parser) number() (Value, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := p.digits()
	if digits == 0 {
		return Value{}, p.errorf("invalid number: expected a digit")
	}
	if digits > 1 && p.data[p.pos-digits] == '0' {
		p.pos = start
		return Value{}, p.errorf("invalid number: leading zero")
	}
	isFloat := false
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		isFloat = true
		if p.digits() == 0 {
			return Value{}, p.errorf("invalid number: expected a digit after '.'")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		isFloat = true
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return Value{}, p.errorf("invalid number: expected a digit in the exponent")
		}
	}
	// The text aliases the input: strconv copies what it keeps, and the
	// messages below copy it too.
	text := unsafe.String(&p.data[start], p.pos-start)
	if !isFloat {
		if i, ok := smallInt(p.data[start:p.pos]); ok {
			return LongValue(i), nil
		}
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			p.pos = start
			return Value{}, p.errorf("integer %s does not fit in a 64-bit long", text).
				WithHint("write it as a double (%s.0) or as a string", text)
		}
		return LongValue(i), nil
	}
	if f, ok := shortDecimal(p.data[start:p.pos]); ok {
		return DoubleValue(f), nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		p.pos = start
		return Value{}, p.errorf("number %s is out of the range of a double", text)
	}
	return DoubleValue(f), nil
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

func (p *parser) digits() int {
	n := 0
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}
