package query

import (
	"bytes"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// MatchJSON reports whether the document whose JSON text is data satisfies
// the filter: the same answer as Match on the parsed document, for a
// fraction of the cost. It decodes only the fields the filter refers to
// (their whole values, along the filter's paths), skips the rest of the
// text, and builds what it decodes in reused scratch memory whose strings
// alias data, so a scan allocates nothing per document. A filter with
// $expr, which may read any field, parses the whole document; as with
// Match, a $expr that fails to evaluate does not match. data must be a
// valid document, as stored documents are: MatchJSON reports the errors it
// meets in the parts it reads, and does not look at the parts it skips
// beyond finding where they end.
func (f *Filter) MatchJSON(data []byte) (bool, error) {
	if f.whole {
		doc, err := Parse(data)
		if err != nil {
			return false, err
		}
		return f.Match(doc), nil
	}
	if len(f.root) == 0 {
		return true, nil
	}
	d := rawPool.Get()
	defer d.release()
	d.rootInPlace = true
	return f.matchRaw(d, data)
}

// matchRaw is MatchJSON with the decoder d: through the filter's paths'
// values alone when it can (Filter.direct), else on the pruned document.
func (f *Filter) matchRaw(d *rawDecoder, data []byte) (bool, error) {
	if f.direct.root != nil && d.pathValues(data, f.direct.root, d.slotsFor(f.direct.n)) {
		for _, p := range f.directs {
			if p.n.matchAt(d.slots[p.slot]) == p.not {
				return false, nil
			}
		}
		return true, nil
	}
	doc, err := d.document(data, f.prune)
	if err != nil {
		return false, err
	}
	return f.root.match(doc, nil), nil
}

// A JSONMatcher is MatchJSON with scratch memory of its own, for one
// goroutine that matches many documents (a scan's worker): it saves
// taking and returning the shared pool's for each document.
type JSONMatcher struct {
	f *Filter
	d rawDecoder
}

// JSONMatcher returns a matcher for the filter, for one goroutine.
func (f *Filter) JSONMatcher() *JSONMatcher {
	return &JSONMatcher{f: f, d: rawDecoder{p: parser{keys: map[string]string{}}, rootInPlace: true}}
}

// Match is f.MatchJSON(data).
func (m *JSONMatcher) Match(data []byte) (bool, error) {
	f := m.f
	if f.whole || len(f.root) == 0 {
		return f.MatchJSON(data)
	}
	d := &m.d
	defer d.reset()
	return f.matchRaw(d, data)
}

// pruneNode says which parts of a value a filter can look at: all of it
// (full), or, in an object, only the fields named by kids (and, in an
// array, the same in each element). It is built from Filter.Fields, which
// lists every path a filter reads outside $expr.
type pruneNode struct {
	full bool
	// slot, in a tree for pathValues, numbers (from 1) the path that
	// ends here; 0 elsewhere.
	slot int
	kids []pruneKid
	// lens has bit l set when a kid's name is l bytes long (bit 63 for
	// 63 and longer): keys of other lengths are passed over at once.
	lens uint64
}

type pruneKid struct {
	name string
	node *pruneNode
}

// buildPrune returns the tree of the given paths. A numeric component
// ("items.0.sku") may select an array element by position, so the value
// holding it is decoded whole.
func buildPrune(paths []string) *pruneNode {
	root := &pruneNode{}
	for _, p := range paths {
		n := root
		for _, part := range strings.Split(p, ".") {
			if n.full {
				break
			}
			if arrayIndex(part) >= 0 {
				n.full = true
				break
			}
			n = n.kid(part)
		}
		n.full = true
	}
	return root
}

func (n *pruneNode) kid(name string) *pruneNode {
	for _, k := range n.kids {
		if k.name == name {
			return k.node
		}
	}
	k := &pruneNode{}
	n.kids = append(n.kids, pruneKid{name, k})
	n.lens |= 1 << min(len(name), 63)
	return k
}

// findKey is find for a key without escapes: it compares lengths and
// first bytes before whole names.
func (n *pruneNode) findKey(key string) *pruneNode {
	if len(key) == 0 {
		return n.find(nil)
	}
	for i := range n.kids {
		k := &n.kids[i]
		if len(k.name) == len(key) && k.name[0] == key[0] && k.name == key {
			return k.node
		}
	}
	return nil
}

// plainKey reads the key at data[i] when it is as canonical JSON writes
// it: quoted, without escapes or control characters, and followed by ':'
// and the value (no space). It returns the key, aliasing data, and the
// position of the value. ok is false otherwise, and for a first key that
// starts an Extended JSON wrapper ($date, …), which object leaves to the
// parser.
func plainKey(data []byte, i int, first bool) (next int, key string, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return 0, "", false
	}
	start := i + 1
	j := start
	for j < len(data) && strPlain[data[j]] {
		j++
	}
	if j+2 >= len(data) || data[j] != '"' || data[j+1] != ':' || data[j+2] <= ' ' {
		return 0, "", false
	}
	if j == start {
		return j + 2, "", true
	}
	if first && data[start] == '$' && j-start > 1 {
		return 0, "", false
	}
	return j + 2, unsafe.String(&data[start], j-start), true
}

// find returns the kid named by the raw (unescaped) key, or nil.
func (n *pruneNode) find(key []byte) *pruneNode {
	for _, k := range n.kids {
		if k.name == string(key) {
			return k.node
		}
	}
	return nil
}

// rawDecoder decodes the parts of a document a filter reads. Values it
// returns live in its slabs and alias the input: they are valid until the
// next document and must not escape the match.
type rawDecoder struct {
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

var rawPool = &pool[rawDecoder]{new: func() *rawDecoder { return &rawDecoder{p: parser{keys: map[string]string{}}} }}

func (d *rawDecoder) release() {
	d.own, d.rootInPlace = false, false
	d.reset()
	rawPool.Put(d)
}

// reset forgets the values of the last document.
func (d *rawDecoder) reset() {
	clear(d.fslab)
	clear(d.eslab)
	clear(d.slots)
	d.fslab, d.eslab = d.fslab[:0], d.eslab[:0]
	d.p.data = nil
}

func (d *rawDecoder) document(data []byte, prune *pruneNode) (Value, error) {
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
func (d *rawDecoder) value(n *pruneNode, depth int) (Value, error) {
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
	j := start
	for j < len(data) && strPlain[data[j]] {
		j++
	}
	if j >= len(data) || data[j] != '"' {
		return "", 0, false
	}
	if j == start {
		return "", j + 1, true
	}
	return unsafe.String(&data[start], j-start), j + 1, true
}

// shortNumber reads the number at data[i] when it has at most 15 digits
// and no exponent, as most stored numbers do: it returns the kind (Long
// or Double) and bits of the Value that parser.number returns (with
// shortDecimal's exact quotient for a fraction), and the position after
// it. next is 0 for any other text, which parser.number reads or
// reports.
func shortNumber(data []byte, i int) (bits uint64, kind Kind, next int) {
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
		return 0, 0, 0
	}
	if j == len(data) || (data[j] != '.' && data[j] != 'e' && data[j] != 'E') {
		n := int64(m)
		if data[i] == '-' {
			n = -n
		}
		return uint64(n), Long, j
	}
	if data[j] != '.' {
		return 0, 0, 0
	}
	j++
	frac := j
	for j < len(data) && data[j]-'0' <= 9 {
		m = m*10 + uint64(data[j]-'0')
		j++
	}
	if j == frac || whole+j-frac > 15 || (j < len(data) && (data[j] == 'e' || data[j] == 'E')) {
		return 0, 0, 0
	}
	f := float64(m) / pow10[j-frac]
	if data[i] == '-' {
		f = -f
	}
	return math.Float64bits(f), Double, j
}

func (d *rawDecoder) array(n *pruneNode, depth int) (Value, error) {
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

func (d *rawDecoder) object(n *pruneNode, depth int) (Value, error) {
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
				if i := skipContainer(p.data, p.pos, 1, depth); i >= 0 {
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
func (d *rawDecoder) colon(key string) error {
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
func (d *rawDecoder) objectValue(base, depth int) Value {
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
func (d *rawDecoder) key() (string, []byte, error) {
	p := &d.p
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return "", nil, p.errorf("unexpected %s in an object, expected a quoted key", p.describe())
	}
	// Keys are short and plain ASCII as a rule: find the closing quote.
	data, i := p.data, p.pos+1
	for i < len(data) && strPlain[data[i]] {
		i++
	}
	if i < len(data) && data[i] == '"' {
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
func (d *rawDecoder) intern(s string) string {
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
func (d *rawDecoder) string() (string, error) {
	p := &d.p
	start := p.pos + 1
	data := p.data
	i := start
	high := false // a byte of a multi-byte UTF-8 sequence
	for ; i < len(data); i++ {
		c := data[i]
		if strPlain[c] {
			continue
		}
		if c < 0x80 {
			break
		}
		high = true
	}
	if i == len(data) || data[i] != '"' || (high && !utf8.Valid(data[start:i])) {
		// An escape, a control character, invalid UTF-8 or no end: the
		// parser decodes it or reports it.
		return p.string()
	}
	p.pos = i + 1
	switch {
	case i == start:
		return "", nil
	case d.own:
		return string(data[start:i]), nil
	}
	return unsafe.String(&data[start], i-start), nil
}

// strPlain marks the ASCII bytes a string holds as they are.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skip passes over a value without decoding it, checking only that its
// brackets and strings are well formed. A store's documents were validated
// when written (and their checksums verified when read).
func (d *rawDecoder) skip(depth int) error {
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
func (d *rawDecoder) skipNested(i, level, depth int) error {
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

func (d *rawDecoder) skipString() error {
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

// nextWanted passes over the fields of an object that n does not name,
// from the key at data[i], as long as they are written as canonical JSON
// writes them (plain keys, no spaces). It returns the position of the
// value of the first field n names, with its key and kid; or, with a nil
// kid, the position of the '}' that ends the object; or -1 when it meets
// anything else (an escaped key, a space, an Extended JSON wrapper's
// first key, an error), for the caller to go the careful way from data[i]
// again. Skipped values are passed over as skipCanonical does.
func nextWanted(data []byte, i int, n *pruneNode, first bool, depth int) (next int, key string, kid *pruneNode) {
	for {
		if i >= len(data) || data[i] != '"' {
			return -1, "", nil
		}
		start := i + 1
		j := start
		for j < len(data) && strPlain[data[j]] {
			j++
		}
		if j+2 >= len(data) || data[j] != '"' || data[j+1] != ':' || data[j+2] <= ' ' {
			return -1, "", nil
		}
		if j > start {
			k := data[start:j]
			if first && k[0] == '$' && len(k) > 1 {
				return -1, "", nil
			}
			if n.lens&(1<<min(len(k), 63)) == 0 {
				goto skip
			}
			for x := range n.kids {
				c := &n.kids[x]
				if len(c.name) == len(k) && c.name[0] == k[0] && c.name == string(k) {
					return j + 2, unsafe.String(&k[0], len(k)), c.node
				}
			}
		} else if c := n.find(nil); c != nil {
			return j + 2, "", c
		}
	skip:
		first = false
		// Pass over the value.
		i = j + 2
		switch c := data[i]; c {
		case '"':
			// Strings end at the first quote not escaped by a backslash.
			s := i + 1
			i = s
			for i < len(data) && data[i] != '"' {
				i++
			}
			if i >= len(data) {
				return -1, "", nil
			}
			if data[i-1] == '\\' {
				if i = skipQuoted(data, s); i < 0 {
					return -1, "", nil
				}
			} else {
				i++
			}
		case '{', '[':
			if i = skipContainer(data, i, 0, depth+1); i < 0 {
				return -1, "", nil
			}
		default:
			k := i
			for i < len(data) && !scalarEnd[data[i]] {
				i++
			}
			if i == k {
				return -1, "", nil
			}
		}
		if i >= len(data) {
			return -1, "", nil
		}
		switch data[i] {
		case ',':
			i++
		case '}':
			return i, "", nil
		default:
			return -1, "", nil
		}
	}
}

// slotsFor returns d.slots, n long, for pathValues.
func (d *rawDecoder) slotsFor(n int) []Value {
	if cap(d.slots) < n {
		d.slots = make([]Value, n)
	}
	d.slots = d.slots[:n]
	return d.slots
}

// A slotTree is the tree of the paths whose values pathValues reads, each
// path's end numbered with its slot (pruneNode.slot, from 1).
type slotTree struct {
	root *pruneNode
	n    int // the number of slots
}

// add adds a path, given as its components, and returns its slot (from
// 0; a path added twice has one). ok is false when the path is the prefix
// of one added before, or one added before is its prefix: the walk would
// have to decode the shorter one's value and walk into it.
func (t *slotTree) add(parts []string) (slot int, ok bool) {
	if t.root == nil {
		t.root = &pruneNode{}
	}
	node := t.root
	for _, part := range parts {
		if node.slot > 0 {
			return 0, false
		}
		node = node.kid(part)
	}
	if len(node.kids) > 0 {
		return 0, false
	}
	if node.slot == 0 {
		t.n++
		node.slot, node.full = t.n, true
	}
	return node.slot - 1, true
}

// pathValues reads into slots the values at the ends of the paths of a
// tree whose leaves have slots (GroupScan's), walking the document's
// canonical JSON through objects only, and stopping once it has them all.
// The slot of a path the document does not have, or that meets something
// other than an object on the way, stays missing, as walkPath leaves it.
// ok is false when the walk needs the decoder: an array on the way to a
// path's end (walkPath maps the rest of the path over its elements),
// anything nextWanted does not take (a space, an escaped key, an Extended
// JSON wrapper) or an error; the caller then decodes the document, which
// reports any error. Values alias data and the decoder's slabs, as
// document's do.
func (d *rawDecoder) pathValues(data []byte, root *pruneNode, slots []Value) (ok bool) {
	clear(slots)
	if len(data) > MaxDocumentSize || len(data) == 0 || data[0] != '{' {
		return false
	}
	d.p.data, d.p.pos = data, 0
	return d.pathObject(root, slots, 1, true)
}

// pathObject is pathValues for the object at the current position, at the
// given depth. When tail is set, nothing after the object's wanted fields
// is needed and the walk stops there; otherwise it ends after the object.
func (d *rawDecoder) pathObject(n *pruneNode, slots []Value, depth int, tail bool) bool {
	p := &d.p
	if depth > MaxDepth {
		return false
	}
	i := p.pos + 1
	if i < len(p.data) && p.data[i] == '}' {
		p.pos = i + 1
		return true
	}
	found := 0
	for first := true; ; first = false {
		if found == len(n.kids) {
			if !tail {
				if i = skipContainer(p.data, i, 1, depth); i < 0 {
					return false
				}
				p.pos = i
			}
			return true
		}
		j, _, kid := nextWanted(p.data, i, n, first, depth)
		if j < 0 {
			return false
		}
		if kid == nil {
			p.pos = j + 1 // after the '}'
			return true
		}
		found++
		switch {
		case kid.slot > 0:
			// A path ends here: its value, whatever it is.
			var v Value
			if s, k, ok := plainString(p.data, j); ok {
				v, i = StringValue(s), k
			} else if bits, kind, k := shortNumber(p.data, j); k > 0 {
				v, i = Value{kind: kind, num: bits}, k
			} else {
				p.pos, d.tail = j, false
				var err error
				if v, err = d.value(kid, depth+1); err != nil {
					return false
				}
				i = p.pos
			}
			slots[kid.slot-1] = v
		case p.data[j] == '{':
			last := tail && found == len(n.kids)
			p.pos = j
			if !d.pathObject(kid, slots, depth+1, last) {
				return false
			}
			if last {
				return true
			}
			i = p.pos
		case p.data[j] == '[':
			return false
		default:
			// A scalar has no fields: the paths through it are missing.
			if i = skipCanonical(p.data, j, depth+1); i < 0 {
				return false
			}
		}
		if i >= len(p.data) {
			return false
		}
		switch p.data[i] {
		case ',':
			i++
		case '}':
			p.pos = i + 1
			return true
		default:
			return false
		}
	}
}

// skipCanonical returns the end of the value at data[i], which is at the
// given depth, without decoding it, or -1 when it finds anything it does
// not expect of canonical JSON (a space, an end of input, a string that
// does not end, nesting deeper than MaxDepth): the caller then skips the
// value the careful way (rawDecoder.skip), which reports the error. It is
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

// FieldSet is a compiled set of dotted paths, for ParseFields.
type FieldSet struct{ root *pruneNode }

// NewFieldSet compiles the dotted paths a consumer of documents reads.
func NewFieldSet(paths []string) *FieldSet { return &FieldSet{buildPrune(paths)} }

// ParseFields parses a stored document's JSON keeping only what the paths
// of fs can reach: the whole value at the end of each path, the fields
// along it in objects and arrays (array elements keep their positions),
// and whole values below a numeric component. Anything that reads only
// those paths sees the same values as in the whole document; it costs a
// fraction of Parse. The result owns its memory. data must be a valid
// document, as stored documents are (see MatchJSON).
func ParseFields(data []byte, fs *FieldSet) (Value, error) {
	d := rawPool.Get()
	defer d.release()
	d.own = true
	return d.document(data, fs.root)
}
