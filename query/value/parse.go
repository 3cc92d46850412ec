package value

import (
	"bytes"
	"encoding/hex"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value/jsonscan"
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
func ParseLarge(data []byte) (Value, error) { return parseLarge(data, false) }

// ParseInput is Parse for a document a user brings (insert, import, the
// MCP insert tools), read as mongoimport and the MongoDB drivers'
// Extended JSON readers read it: a plain JSON integer that fits in 32 bits
// is an int, a larger one a long, a number with a fraction or an exponent
// a double. Explicit wrappers keep their type ({"$numberLong":"1"} is a
// long). Parse, for omgdb's stored form, reads every plain integer as a
// long, the form AppendJSON writes a long in.
func ParseInput(data []byte) (Value, error) {
	if len(data) > MaxDocumentSize {
		return Parse(data)
	}
	return parseLarge(data, true)
}

func parseLarge(data []byte, ints bool) (Value, error) {
	p := parserPool.Get().(*parser)
	defer p.release()
	p.data, p.pos, p.ints = data, 0, ints
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
	p.data, p.ints = nil, false
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
	// ints reads plain integers that fit in 32 bits as ints (ParseInput).
	ints bool
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

func (p *parser) skipSpace() { p.pos = jsonscan.Space(p.data, p.pos) }

// fail reports a scanner's error at its offset.
func (p *parser) fail(e *jsonscan.SyntaxError) *errs.Error {
	p.pos = e.Offset
	err := errs.Errorf(errs.Invalid, "%s", e.Error())
	if e.Hint != "" {
		err = err.WithHint("%s", e.Hint)
	}
	return err
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
	start := p.pos + 1
	// Fast path: no escapes.
	if end, f := jsonscan.String(p.data, start); end > 0 && f&(jsonscan.Escaped|jsonscan.Control) == 0 {
		if s := p.data[start : end-1]; f == 0 || utf8.Valid(s) {
			p.pos = end
			return string(s), nil
		}
	}
	buf, end, err := jsonscan.Unquote(nil, p.data, start)
	if err != nil {
		return "", p.fail(err)
	}
	p.pos = end
	return string(buf), nil
}

func (p *parser) number() (Value, error) {
	start := p.pos
	// Short numbers, the usual ones, in one pass.
	if bits, float, end := jsonscan.Short(p.data, start); end > 0 {
		p.pos = end
		if float {
			return Value{kind: Double, num: bits}, nil
		}
		return p.integer(int64(bits)), nil
	}
	end, float, serr := jsonscan.Number(p.data, start)
	if serr != nil {
		return Value{}, p.fail(serr)
	}
	p.pos = end
	text := p.data[start:end]
	if !float {
		if i, ok := jsonscan.ParseInt(text); ok {
			return p.integer(i), nil
		}
		p.pos = start
		return Value{}, p.errorf("integer %s does not fit in a 64-bit long", text).
			WithHint("write it as a double (%s.0) or as a string", text)
	}
	if f, ok := jsonscan.ParseFloat(text); ok {
		return DoubleValue(f), nil
	}
	p.pos = start
	return Value{}, p.errorf("number %s is out of the range of a double", text)
}

// integer is a plain JSON integer's value: a long, or with p.ints an int
// when it fits in 32 bits.
func (p *parser) integer(i int64) Value {
	if p.ints && i >= math.MinInt32 && i <= math.MaxInt32 {
		return IntValue(int32(i))
	}
	return LongValue(i)
}
