package value

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/omgdb/omgdb/query/value/jsonscan"
)

// Decoder decodes the parts of a document that a filter or a pipeline
// reads. Values it returns live in its slabs and alias the input: they are
// valid until its next document, and must not escape the caller's use of
// the document (Clone copies one out). A Decoder is for one goroutine.
type Decoder struct {
	p   parser // for numbers, literals and escaped strings
	own bool   // return values in memory of their own (ParseFields)
	// rootInPlace lets the document's fields stay where they were decoded
	// (fields), which holds until the next document: for a match, which
	// decodes nothing more before it is done with the document.
	rootInPlace bool
	// tail is set while the value about to be decoded is the last thing
	// the document's pruned walk needs: once a tail object has its last
	// wanted field, nothing after it is read, not even its closing brace,
	// and stopped tells the objects around it to return at once.
	tail, stopped bool
	slots         []Value // what pathValues reads, for the caller
	fields        []Field
	elems         []Value
	fslab         []Field
	eslab         []Value
}

var rawPool = &pool[Decoder]{new: func() *Decoder { return &Decoder{p: parser{keys: map[string]string{}}} }}

// Release returns a decoder from PooledDecoder to the pool; neither it nor
// the values it decoded may be used after.
func (d *Decoder) Release() {
	d.own, d.rootInPlace = false, false
	d.Reset()
	rawPool.Put(d)
}

// Reset forgets the values of the last document.
func (d *Decoder) Reset() {
	clear(d.fslab)
	clear(d.eslab)
	clear(d.slots)
	d.fslab, d.eslab = d.fslab[:0], d.eslab[:0]
	d.p.data = nil
}

func (d *Decoder) document(data []byte, prune *pruneNode) (Value, error) {
	if len(data) > MaxDocumentSize {
		return Parse(data) // the error
	}
	d.p.data, d.p.pos = data, 0
	d.p.skipSpace()
	// The walk may stop early, once it has every field the filter reads:
	// what follows is not looked at.
	d.tail, d.stopped = true, false
	return d.value(prune, 1)
}

// value decodes the value at the current position, pruned by n (whole when
// n is full).
func (d *Decoder) value(n *pruneNode, depth int) (Value, error) {
	p := &d.p
	if p.pos >= len(p.data) {
		return Value{}, p.errorf("unexpected end of input, expected a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return d.object(n, depth)
	case c == '[':
		return d.array(n, depth)
	case c == '"':
		s, err := d.string()
		return StringValue(s), err
	case c == '-' || c-'0' <= 9:
		if bits, kind, i := shortNumber(p.data, p.pos); i > 0 {
			p.pos = i
			return Value{kind: kind, num: bits}, nil
		}
	}
	return p.value(depth) // numbers and literals allocate nothing
}

// plainString reads the string at data[i] when it is plain ASCII without
// escapes or control characters, returning it (aliasing data) and the
// position after it. ok is false otherwise.
func plainString(data []byte, i int) (s string, next int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return "", 0, false
	}
	start := i + 1
	j := jsonscan.Plain(data, start)
	if j >= len(data) || data[j] != '"' {
		return "", 0, false
	}
	// data[start] is there (it may be the closing quote).
	return unsafe.String(&data[start], j-start), j + 1, true
}

// shortNumber reads the number at data[i] when it has at most 15 digits
// and no exponent (jsonscan.Short): it returns the kind (Long or Double)
// and bits of the Value that parser.number returns, and the position
// after it. next is 0 for any other text, which parser.number reads or
// reports.
func shortNumber(data []byte, i int) (bits uint64, kind Kind, next int) {
	bits, float, next := jsonscan.Short(data, i)
	if float {
		return bits, Double, next
	}
	return bits, Long, next
}

func (d *Decoder) array(n *pruneNode, depth int) (Value, error) {
	p := &d.p
	if depth > MaxDepth {
		return Value{}, p.depthError()
	}
	p.pos++
	d.tail = false // every element is read
	base := len(d.elems)
	defer func() { d.elems = d.elems[:base] }()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return ArrayValue([]Value{}), nil
	}
	for {
		p.skipSpace()
		v, err := d.value(n, depth+1)
		if err != nil {
			return Value{}, err
		}
		d.elems = append(d.elems, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.errorf("unexpected end of input in an array, expected ',' or ']'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			if d.own {
				return ArrayValue(append([]Value(nil), d.elems[base:]...)), nil
			}
			start := len(d.eslab)
			d.eslab = append(d.eslab, d.elems[base:]...)
			return ArrayValue(d.eslab[start:len(d.eslab):len(d.eslab)]), nil
		default:
			return Value{}, p.errorf("unexpected %s in an array, expected ',' or ']'", p.describe())
		}
	}
}

func (d *Decoder) object(n *pruneNode, depth int) (Value, error) {
	p := &d.p
	if depth > MaxDepth {
		return Value{}, p.depthError()
	}
	start := p.pos
	p.pos++
	tail := d.tail
	d.tail = false
	base := len(d.fields)
	defer func() { d.fields = d.fields[:base] }()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return ObjectValue([]Field{}), nil
	}
	found := 0 // the fields of a pruned object decoded so far
	for first := true; ; first = false {
		if !n.full && found == len(n.kids) && (depth == 1 || found > 0) {
			// The object has no other field the filter reads.
			if depth > 1 && tail {
				d.stopped = true
			} else if depth > 1 {
				if i := jsonscan.SkipContainer(p.data, p.pos, 1, MaxDepth+1-depth); i >= 0 {
					p.pos = i
				} else if err := d.skipNested(p.pos, 1, depth); err != nil {
					return Value{}, err
				}
			}
			return d.objectValue(base, depth), nil
		}
		if !n.full {
			// The usual case: canonical JSON, passed over up to the next
			// field the filter reads or the end of the object.
			if i, k, kid := nextWanted(p.data, p.pos, n, first, depth); i >= 0 {
				p.pos = i
				if kid == nil {
					p.pos++ // the '}'
					return d.objectValue(base, depth), nil
				}
				if d.own {
					k = d.intern(k)
				}
				// Plain strings and short numbers, the usual values of
				// the fields a filter reads, are read here; d.value reads
				// the others.
				if s, j, ok := plainString(p.data, i); ok && !d.own {
					p.pos = j
					d.fields = append(d.fields, Field{k, StringValue(s)})
				} else if bits, kind, j := shortNumber(p.data, i); j > 0 {
					p.pos = j
					d.fields = append(d.fields, Field{k, Value{kind: kind, num: bits}})
				} else {
					d.tail = tail && found+1 == len(n.kids)
					v, err := d.value(kid, depth+1)
					if err != nil {
						return Value{}, err
					}
					d.fields = append(d.fields, Field{k, v})
					if d.stopped {
						return d.objectValue(base, depth), nil
					}
				}
				found++
				if p.pos < len(p.data) && p.data[p.pos] == ',' {
					p.pos++
					continue
				}
				goto end
			}
		}
		{
			var key string
			kid := n
			if i, k, ok := plainKey(p.data, p.pos, first); ok {
				// The usual case, a plain key right before ':' and its value.
				key = k
				p.pos = i
				if !n.full {
					kid = n.findKey(k)
				}
			} else {
				p.skipSpace()
				var raw []byte
				var err error
				if key, raw, err = d.key(); err != nil {
					return Value{}, err
				}
				if first && len(key) > 1 && key[0] == '$' {
					// An Extended JSON wrapper ($date, $oid, …): the parser knows them.
					p.pos = start
					return p.value(depth)
				}
				if err := d.colon(key); err != nil {
					return Value{}, err
				}
				if !n.full {
					kid = n.find(raw)
				}
			}
			if kid == nil {
				// A stored value is canonical JSON: skipCanonical passes over
				// it; anything it does not expect goes to skip, which reports
				// what is wrong.
				if i := skipCanonical(p.data, p.pos, depth+1); i >= 0 {
					p.pos = i
				} else if err := d.skip(depth + 1); err != nil {
					return Value{}, err
				}
			} else {
				if !n.full {
					found++
					d.tail = tail && found == len(n.kids)
				}
				v, err := d.value(kid, depth+1)
				if err != nil {
					return Value{}, err
				}
				if d.own {
					key = d.intern(key)
				}
				d.fields = append(d.fields, Field{key, v})
				if d.stopped {
					return d.objectValue(base, depth), nil
				}
			}
			// Canonical JSON has no spaces: look for the delimiter first.
			if p.pos < len(p.data) && p.data[p.pos] == ',' {
				p.pos++
				continue
			}
		}
	end:
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.errorf("unexpected end of input in an object, expected ',' or '}'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return d.objectValue(base, depth), nil
		default:
			return Value{}, p.errorf("unexpected %s in an object, expected ',' or '}'", p.describe())
		}
	}
}

// colon passes over the ':' after key and the spaces around it.
func (d *Decoder) colon(key string) error {
	p := &d.p
	if p.pos+1 < len(p.data) && p.data[p.pos] == ':' && p.data[p.pos+1] > ' ' {
		p.pos++
		return nil
	}
	p.skipSpace()
	if p.pos >= len(p.data) || p.data[p.pos] != ':' {
		return p.errorf("unexpected %s after key %q, expected ':'", p.describe(), key)
	}
	p.pos++
	p.skipSpace()
	return nil
}

// objectValue returns the object of the fields decoded since base, at
// the given depth.
func (d *Decoder) objectValue(base, depth int) Value {
	if d.own {
		return ObjectValue(append([]Field(nil), d.fields[base:]...))
	}
	if depth == 1 && d.rootInPlace {
		// Nothing is decoded after the document's own fields.
		return ObjectValue(d.fields[base:len(d.fields):len(d.fields)])
	}
	s := len(d.fslab)
	d.fslab = append(d.fslab, d.fields[base:]...)
	return ObjectValue(d.fslab[s:len(d.fslab):len(d.fslab)])
}

// key reads an object key. raw is its text when it has no escapes (what
// pruneNode.find compares), else its decoded bytes. The key aliases the
// input; intern copies a key that is kept.
func (d *Decoder) key() (string, []byte, error) {
	p := &d.p
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return "", nil, p.errorf("unexpected %s in an object, expected a quoted key", p.describe())
	}
	// Keys are short and plain ASCII as a rule: find the closing quote.
	data := p.data
	if i := jsonscan.Plain(data, p.pos+1); i < len(data) && data[i] == '"' {
		raw := data[p.pos+1 : i]
		p.pos = i + 1
		if len(raw) == 0 {
			return "", raw, nil
		}
		return unsafe.String(&raw[0], len(raw)), raw, nil
	}
	own := d.own
	d.own = false
	s, err := d.string()
	d.own = own
	return s, unsafe.Slice(unsafe.StringData(s), len(s)), err
}

// intern returns a key of the document that outlives it: keys repeat from
// document to document, so they are shared.
func (d *Decoder) intern(s string) string {
	if k, ok := d.p.keys[s]; ok {
		return k
	}
	k := strings.Clone(s)
	if len(d.p.keys) < 4096 {
		d.p.keys[k] = k
	}
	return k
}

// string reads a string. Without escapes it aliases the input; with them
// it is decoded into new memory.
func (d *Decoder) string() (string, error) {
	p := &d.p
	start := p.pos + 1
	data := p.data
	i, f := jsonscan.String(data, start)
	if i < 0 || f&(jsonscan.Escaped|jsonscan.Control) != 0 || (f != 0 && !utf8.Valid(data[start:i-1])) {
		// An escape, a control character, invalid UTF-8 or no end: the
		// parser decodes it or reports it.
		return p.string()
	}
	p.pos = i
	i-- // the closing quote
	switch {
	case i == start:
		return "", nil
	case d.own:
		return string(data[start:i]), nil
	}
	return unsafe.String(&data[start], i-start), nil
}

// NewDecoder returns a decoder for one goroutine that decodes many
// documents, the values of each valid until the next. With inPlace, a
// document's own fields stay in the decoder's scratch memory, for a
// caller that decodes nothing more before it is done with the document.
func NewDecoder(inPlace bool) *Decoder {
	return &Decoder{p: parser{keys: map[string]string{}}, rootInPlace: inPlace}
}

// PooledDecoder returns a decoder from a shared pool, for one document
// whose fields stay in the decoder's memory (as NewDecoder(true)); Release
// returns it.
func PooledDecoder() *Decoder {
	d := rawPool.Get()
	d.rootInPlace = true
	return d
}

// DecodeFields decodes the parts of the document data that fs reaches,
// as ParseFields does, in the decoder's scratch memory: the values alias
// data and are valid until the decoder's next document or Reset.
func (d *Decoder) DecodeFields(data []byte, fs *FieldSet) (Value, error) {
	return d.document(data, fs.root)
}
