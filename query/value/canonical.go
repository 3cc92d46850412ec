package value

import (
	"bytes"
	"math"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/value/jsonscan"
)

// AppendCanonicalDocument validates the JSON text of a document to be
// stored and appends its canonical form to dst, with _id first (a new
// ObjectId when it has none). It returns the extended buffer and the _id.
//
// It is the fast path of Parse + PrepareDocument + AppendJSON: one pass
// over the text that writes canonical output without building a value
// tree. Whatever it is not sure of (escaped keys, nesting near the limit,
// invalid input) it hands to the slow path, so its results and its errors
// are exactly those of the slow path.
func AppendCanonicalDocument(dst, src []byte) ([]byte, Value, error) {
	return appendCanonicalDocument(dst, src, false)
}

// AppendCanonicalInput is AppendCanonicalDocument for a document a user
// brings, read as ParseInput reads it: a plain integer that fits in 32
// bits becomes an int ({"$numberInt":"…"} in the canonical form).
func AppendCanonicalInput(dst, src []byte) ([]byte, Value, error) {
	return appendCanonicalDocument(dst, src, true)
}

func appendCanonicalDocument(dst, src []byte, ints bool) ([]byte, Value, error) {
	start := len(dst)
	t := transcoderPool.Get()
	defer t.release()
	t.p.data, t.p.pos, t.p.ints, t.out = src, 0, ints, dst
	if out, id, ok := t.document(); ok {
		return out, id, nil
	}
	return slowCanonicalDocument(dst[:start], src, ints)
}

func slowCanonicalDocument(dst, src []byte, ints bool) ([]byte, Value, error) {
	parse := Parse
	if ints {
		parse = ParseInput
	}
	v, err := parse(src)
	if err != nil {
		return dst, Value{}, err
	}
	if v, err = PrepareDocument(v); err != nil {
		return dst, Value{}, err
	}
	id := v.Get("_id")
	if id.IsMissing() {
		id = ObjectIDValue(NewOID())
		v = ObjectValue(append([]Field{{Key: "_id", Value: id}}, v.Fields()...))
	}
	return AppendJSON(dst, v), id, nil
}

type transcoder struct {
	p   parser
	out []byte
	// keys are the raw keys of the objects being transcoded, for duplicate
	// checks, as offsets into p.data: no pointers, so appending one costs
	// no write barrier while the collector runs.
	keys []keySpan
}

// keySpan is a key's bytes in the input: p.data[start:end].
type keySpan struct{ start, end int32 }

var transcoderPool = newTranscoderPool()

func newTranscoderPool() *pool[transcoder] {
	return &pool[transcoder]{new: func() *transcoder { return &transcoder{p: parser{keys: map[string]string{}}} }}
}

func (t *transcoder) release() {
	t.p.data, t.p.ints, t.out = nil, false, nil
	t.keys = t.keys[:0]
	transcoderPool.Put(t)
}

// document transcodes a top-level object, moving _id first.
func (t *transcoder) document() ([]byte, Value, bool) {
	p := &t.p
	p.skipSpace()
	// The size check also keeps offsets into the input (keySpan) in int32.
	if p.pos >= len(p.data) || p.data[p.pos] != '{' || len(p.data) > MaxDocumentSize {
		return nil, Value{}, false
	}
	base := len(t.out)
	var idStart, idEnd int = -1, -1
	if !t.object(1, func(key []byte, valStart int) {
		if string(key) == "_id" {
			idStart, idEnd = valStart, -2
		}
	}, &idEnd) {
		return nil, Value{}, false
	}
	if top := t.out[base:]; top[0] != '{' || bytes.HasPrefix(top, []byte(`{"$`)) {
		// A type wrapper ({"$date":…}, {"$minKey":1}) is a value, not a
		// document: the slow path refuses it.
		return nil, Value{}, false
	}
	p.skipSpace()
	if p.pos != len(p.data) || len(t.out)-base > MaxDocumentSize {
		return nil, Value{}, false
	}
	if idStart < 0 {
		return t.prependID(base)
	}
	return t.moveIDFirst(base, idStart, idEnd)
}

// prependID inserts a generated _id at the front of the object at base.
func (t *transcoder) prependID(base int) ([]byte, Value, bool) {
	id := ObjectIDValue(NewOID())
	field := AppendJSON([]byte(`"_id":`), id)
	if len(t.out)-base > 2 {
		field = append(field, ',')
	}
	t.out = append(t.out, field...)
	copy(t.out[base+1+len(field):], t.out[base+1:len(t.out)-len(field)])
	copy(t.out[base+1:], field)
	return t.out, id, true
}

// moveIDFirst moves the _id field, whose value spans out[idStart:idEnd],
// to the front of the object at base.
func (t *transcoder) moveIDFirst(base, idStart, idEnd int) ([]byte, Value, bool) {
	id, err := Parse(t.out[idStart:idEnd])
	if err != nil || id.Kind() == Array {
		return nil, Value{}, false
	}
	fieldStart := idStart - len(`"_id":`)
	if fieldStart == base+1 {
		return t.out, id, true // already first
	}
	field := append([]byte(nil), t.out[fieldStart:idEnd]...)
	// Remove ",<field>" and insert "<field>," after the opening brace.
	rest := t.out[base+1 : fieldStart-1]
	moved := make([]byte, 0, len(field)+1+len(rest))
	moved = append(append(append(moved, field...), ','), rest...)
	copy(t.out[base+1:], moved)
	t.out = append(t.out[:base+1+len(moved)], t.out[idEnd:]...)
	return t.out, id, true
}

// value transcodes one value. It reports false to hand the document to
// the slow path.
func (t *transcoder) value(depth int) bool {
	p := &t.p
	if p.pos >= len(p.data) {
		return false
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return t.object(depth, nil, nil)
	case c == '[':
		return t.array(depth)
	case c == '"':
		return t.string()
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.pos
		v, err := p.number()
		if err != nil {
			return false
		}
		if text := p.data[start:p.pos]; canonicalNumber(text, v) {
			t.out = append(t.out, text...)
		} else {
			t.out = AppendJSON(t.out, v)
		}
		return true
	case p.literal("true"):
		t.out = append(t.out, "true"...)
	case p.literal("false"):
		t.out = append(t.out, "false"...)
	case p.literal("null"):
		t.out = append(t.out, "null"...)
	default:
		return false
	}
	return true
}

func (t *transcoder) array(depth int) bool {
	p := &t.p
	if depth >= MaxDepth {
		return false
	}
	p.pos++
	t.out = append(t.out, '[')
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		t.out = append(t.out, ']')
		return true
	}
	for {
		p.skipSpace()
		if !t.value(depth + 1) {
			return false
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return false
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			t.out = append(t.out, ',')
		case ']':
			p.pos++
			t.out = append(t.out, ']')
			return true
		default:
			return false
		}
	}
}

// object transcodes an object. onKey, when set, is told of each top-level
// key and where its value starts in the output; *valEnd receives the end
// of the value of the key that onKey marked by setting *valEnd to -2.
func (t *transcoder) object(depth int, onKey func(key []byte, valStart int), valEnd *int) bool {
	p := &t.p
	if depth >= MaxDepth {
		return false
	}
	objStart := p.pos
	p.pos++
	t.out = append(t.out, '{')
	base := len(t.keys)
	defer func() { t.keys = t.keys[:base] }()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		t.out = append(t.out, '}')
		return true
	}
	for first := true; ; first = false {
		p.skipSpace()
		key, dot, ok := t.rawKey()
		if !ok {
			return false
		}
		if first && len(key) > 1 && key[0] == '$' {
			if string(key) == "$date" && t.dateMillis() {
				return true
			}
			return t.extended(objStart)
		}
		if len(key) > MaxKeyLength || bytes.HasPrefix(key, []byte("$")) || dot || t.dupKey(base, key) {
			return false
		}
		end := p.pos - 1 // the key's closing quote
		t.keys = append(t.keys, keySpan{int32(end - len(key)), int32(end)})
		t.out = append(append(append(t.out, '"'), key...), '"', ':')
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return false
		}
		p.pos++
		p.skipSpace()
		if onKey != nil {
			onKey(key, len(t.out))
		}
		if !t.value(depth + 1) {
			return false
		}
		if valEnd != nil && *valEnd == -2 {
			*valEnd = len(t.out)
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return false
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			t.out = append(t.out, ',')
		case '}':
			p.pos++
			t.out = append(t.out, '}')
			return true
		default:
			return false
		}
	}
}

// extended transcodes an object whose first key starts with '$': an
// Extended JSON type wrapper becomes its canonical form; anything else
// (an operator object) cannot be stored and goes to the slow path.
func (t *transcoder) extended(objStart int) bool {
	t.out = t.out[:len(t.out)-1] // the '{' already written
	t.p.pos = objStart
	v, err := t.p.value(MaxDepth - 1)
	if err != nil || v.Kind() == Object {
		return false
	}
	t.out = AppendJSON(t.out, v)
	return true
}

// dateMillis transcodes the rest of {"$date":<integer>}, the form AppendJSON
// writes a date in, by copying it (the wrapper's parse into a value was a
// tenth of the benchmark import's canonicalising). It reports false,
// having consumed nothing, for any other form, which extended handles.
func (t *transcoder) dateMillis() bool {
	p := &t.p
	save := p.pos
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ':' {
		p.pos++
		p.skipSpace()
		start := p.pos
		if p.pos < len(p.data) && (p.data[p.pos] == '-' || p.data[p.pos] >= '0' && p.data[p.pos] <= '9') {
			v, err := p.number()
			text := p.data[start:p.pos]
			if err == nil && v.kind == Long && canonicalNumber(text, v) {
				p.skipSpace()
				if p.pos < len(p.data) && p.data[p.pos] == '}' {
					p.pos++
					t.out = append(append(append(t.out, `"$date":`...), text...), '}')
					return true
				}
			}
		}
	}
	p.pos = save
	return false
}

// rawKey reads a key without escapes and returns its bytes.
func (t *transcoder) rawKey() (key []byte, dot, ok bool) {
	p := &t.p
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return nil, false, false
	}
	start := p.pos + 1
	end, f := jsonscan.String(p.data, start)
	if end < 0 || f&(jsonscan.Escaped|jsonscan.Control) != 0 {
		return nil, false, false
	}
	key = p.data[start : end-1]
	if f != 0 && !utf8.Valid(key) {
		return nil, false, false
	}
	p.pos = end
	return key, bytes.IndexByte(key, '.') >= 0, true
}

func (t *transcoder) dupKey(base int, key []byte) bool {
	for _, k := range t.keys[base:] {
		if int(k.end-k.start) == len(key) && bytes.Equal(t.p.data[k.start:k.end], key) {
			return true
		}
	}
	return false
}

// string transcodes a string: copied as is when it has no escapes, else
// decoded and re-encoded canonically.
func (t *transcoder) string() bool {
	p := &t.p
	start := p.pos + 1
	end, f := jsonscan.String(p.data, start)
	switch {
	case end < 0 || f&jsonscan.Control != 0:
		return false // the slow path reports it
	case f&jsonscan.Escaped != 0:
		s, err := p.string()
		if err != nil {
			return false
		}
		t.out = AppendString(t.out, s)
		return true
	case f != 0 && !utf8.Valid(p.data[start:end-1]):
		return false
	}
	t.out = append(t.out, p.data[p.pos:end]...)
	p.pos = end
	return true
}

// canonicalNumber reports whether text, a number that parsed to v, is
// already what AppendJSON writes for v, so that it can be copied instead
// of formatted again (formatting was a sixth of an import's canonicalising
// time). That is an integer other than -0, or a decimal without an
// exponent, of at most 15 digits, whose fraction does not end in a zero
// (but may be just "0", as in 5.0), and whose magnitude is zero or at
// least 1e-6. With at most 15 significant digits no other decimal of as
// few digits rounds to the same double, so the text is the shortest that
// round-trips, which strconv writes in positional notation from 1e-6 to
// 1e21, the range AppendDouble writes that way.
func canonicalNumber(text []byte, v Value) bool {
	switch v.kind {
	case Long:
		return string(text) != "-0"
	case Int:
		return false // written {"$numberInt":"…"}
	}
	dot, digits := -1, 0
	for i, c := range text {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dot = i
		case c != '-': // an exponent
			return false
		}
	}
	if dot < 0 || digits > 15 {
		return false
	}
	if frac := text[dot+1:]; len(frac) > 1 && frac[len(frac)-1] == '0' {
		return false
	}
	abs := math.Abs(v.Double())
	return abs == 0 || abs >= 1e-6
}
