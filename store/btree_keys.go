package store

import (
	"bytes"
	"strings"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// keyGen computes the keys of documents for one B-tree index. It keeps
// scratch buffers, so it is not safe for concurrent use.
type keyGen struct {
	fields []genField
	sparse bool
	geo    bool // a 2dsphere index: arrays in several fields are allowed (every combination is an entry), as in MongoDB
	walk   walker
	vals   []keySet // per field: the encoded values the path yields
}

type genField struct {
	path  string
	parts []string
	index []int // the array position each part names, or -1
	desc  bool
	coll  *collation.Collation // keys strings by their collation keys; nil: as they are
	geo   bool                 // a 2dsphere field: its keys are cells (geoindex.go)
}

func newKeyGen(s *BTreeSpec) *keyGen {
	g := &keyGen{sparse: s.Sparse, geo: s.hasGeo(), vals: make([]keySet, len(s.Fields))}
	for _, f := range s.Fields {
		parts := strings.Split(f.Path, ".")
		index := make([]int, len(parts))
		for i, p := range parts {
			index[i] = arrayIndex(p)
		}
		g.fields = append(g.fields, genField{path: f.Path, parts: parts, index: index, desc: f.Desc, coll: s.coll, geo: f.Type == Geo2DSphere})
	}
	return g
}

// arrayIndex returns the array position a path component names ("0",
// "12"; not "01" or "-1"), or -1.
func arrayIndex(s string) int {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// keys adds doc's keys (without the _id suffix) to out and returns the
// fields that met an array, as a bit mask. A sparse index gives no keys
// for a document in which every field is missing.
func (g *keyGen) keys(doc value.Value, out *keySet) (uint64, error) {
	var mask uint64
	present := false
	arrayAt, arrayField := "", -1
	for i := range g.fields {
		f := &g.fields[i]
		g.vals[i].reset()
		if f.geo {
			ok, err := g.geoKeys(f, doc, &g.vals[i])
			if err != nil {
				return mask, err
			}
			mask |= 1 << i
			present = present || ok
			continue
		}
		g.walk = walker{f: f, out: &g.vals[i], arrayDepth: -1, buf: g.walk.buf}
		g.walk.fromObject(doc, 0)
		if !g.walk.started {
			g.walk.emit(value.Value{})
		}
		present = present || g.walk.present
		if d := g.walk.arrayDepth; d >= 0 {
			mask |= 1 << i
			prefix := strings.Join(f.parts[:d+1], ".")
			if arrayField >= 0 && prefix != arrayAt && !g.geo {
				return mask, errs.Errorf(errs.Invalid, "cannot index parallel arrays [%s] [%s]", arrayAt, prefix).
					WithHint("a compound index may draw on one array per document; index the two fields separately")
			}
			arrayAt, arrayField = prefix, i
		}
	}
	if g.sparse && !present {
		return mask, nil
	}
	n := 1
	for i := range g.vals {
		if n *= len(g.vals[i].keys); n > MaxIndexKeysPerDocument {
			return mask, errs.Errorf(errs.Limit, "it would need more than %d index entries", MaxIndexKeysPerDocument).
				WithHint("index fewer array fields together")
		}
	}
	g.product(out, nil, 0)
	return mask, nil
}

// product adds every concatenation of one value per field from field i on.
func (g *keyGen) product(out *keySet, prefix []byte, i int) {
	if i == len(g.vals) {
		out.add(prefix)
		return
	}
	for _, v := range g.vals[i].keys {
		g.product(out, append(prefix[:len(prefix):len(prefix)], v...), i+1)
	}
}

// describe returns the field values of doc whose key is k, as an object
// such as {"email":"a@x.com"}, for error messages.
func (g *keyGen) describe(doc value.Value, k []byte) string {
	values := make([][]value.Value, len(g.fields))
	for i := range g.fields {
		var vs valueList
		w := walker{f: &g.fields[i], values: &vs, arrayDepth: -1}
		w.fromObject(doc, 0)
		if len(vs) == 0 {
			vs = append(vs, value.NullValue())
		}
		values[i] = vs
	}
	var found []value.Field
	var try func(i int, prefix []byte, acc []value.Field) bool
	try = func(i int, prefix []byte, acc []value.Field) bool {
		if i == len(values) {
			if bytes.Equal(prefix, k) {
				found = acc
				return true
			}
			return false
		}
		for _, v := range values[i] {
			enc := g.fields[i].encode(prefix[:len(prefix):len(prefix)], v)
			if try(i+1, enc, append(acc[:len(acc):len(acc)], value.Field{Key: g.fields[i].path, Value: v})) {
				return true
			}
		}
		return false
	}
	if !try(0, nil, nil) {
		return "(a key)"
	}
	return value.ObjectValue(found).String()
}

func (f *genField) encode(dst []byte, v value.Value) []byte {
	if v.IsMissing() {
		v = value.NullValue()
	}
	v = f.coll.Map(v)
	if f.desc {
		return value.AppendKeyDesc(dst, v)
	}
	return value.AppendKey(dst, v)
}

type valueList []value.Value

// walker collects the values one field's path yields in a document, the
// way the filter matcher traverses it (see query's pathWalk): objects are
// descended; an array before the end of the path contributes what the
// rest of the path yields in each object element, and in the element a
// numeric component names; an array at the end of the path contributes
// each element (an empty array, itself). A component that is absent, or a
// scalar met before the end, yields missing, keyed as null.
type walker struct {
	f          *genField
	out        *keySet    // encoded values; or
	values     *valueList // the values themselves
	buf        []byte
	present    bool // some value was not missing
	started    bool // some value, perhaps missing, was yielded
	arrayDepth int  // the path component at which the first array was met, or -1
}

func (w *walker) emit(v value.Value) {
	w.started = true
	if !v.IsMissing() {
		w.present = true
	}
	if w.values != nil {
		if v.IsMissing() {
			v = value.NullValue()
		}
		*w.values = append(*w.values, v)
		return
	}
	w.buf = w.f.encode(w.buf[:0], v)
	w.out.add(w.buf)
}

func (w *walker) sawArray(depth int) {
	if w.arrayDepth < 0 {
		w.arrayDepth = depth
	}
}

// fromObject yields the values of path[i:] inside object obj.
func (w *walker) fromObject(obj value.Value, i int) {
	parts := w.f.parts
	v, j := descend(obj, parts[i:])
	j += i
	if v.Kind() != value.Array {
		w.emit(v)
		return
	}
	w.sawArray(j)
	if j == len(parts)-1 && w.f.geo {
		w.emit(v) // a legacy pair, or an array of locations: whole
		return
	}
	if j == len(parts)-1 {
		if v.Len() == 0 {
			w.emit(v)
		}
		for _, e := range v.Array() {
			w.emit(e)
		}
		return
	}
	w.inArray(v, j+1)
}

// inArray yields the values of path[i:] (not empty) for the elements of arr.
func (w *walker) inArray(arr value.Value, i int) {
	for k, e := range arr.Array() {
		if e.Kind() == value.Object {
			w.fromObject(e, i)
		}
		if w.f.index[i] == k {
			w.atOffset(e, i+1)
		}
	}
}

// atOffset yields the values of path[i:] in e, an element selected by a
// numeric component.
func (w *walker) atOffset(e value.Value, i int) {
	switch {
	case i == len(w.f.parts):
		if e.Kind() == value.Array {
			w.sawArray(i - 1)
		}
		w.emit(e)
	case e.Kind() == value.Object:
		w.fromObject(e, i)
	case e.Kind() == value.Array:
		w.sawArray(i - 1)
		w.inArray(e, i)
	}
}

// descend follows parts through objects. It stops at the first array and
// returns it with the index of its component; it returns missing when a
// component is absent or a scalar is met early.
func descend(obj value.Value, parts []string) (value.Value, int) {
	v := obj
	for j, p := range parts {
		if v.Kind() != value.Object {
			return value.Value{}, j
		}
		v = v.Get(p)
		if v.Kind() == value.Array || v.IsMissing() || j == len(parts)-1 {
			return v, j
		}
	}
	return v, len(parts) - 1
}

// keySet is a set of byte strings kept in insertion order, for the few
// keys of one document.
type keySet struct {
	keys  [][]byte
	arena []byte
	index map[string]struct{} // built once the set grows past a few keys
}

func (s *keySet) reset() {
	s.keys, s.arena = s.keys[:0], s.arena[:0]
	s.index = nil
}

func (s *keySet) has(k []byte) bool {
	if s.index != nil {
		_, ok := s.index[string(k)]
		return ok
	}
	for _, x := range s.keys {
		if bytes.Equal(x, k) {
			return true
		}
	}
	return false
}

func (s *keySet) add(k []byte) {
	if s.has(k) {
		return
	}
	start := len(s.arena)
	if cap(s.arena)-len(s.arena) < len(k) {
		// Grow into a new arena: the keys already added keep the old one.
		s.arena = make([]byte, 0, max(2*cap(s.arena), len(k), 256))
		start = 0
	}
	s.arena = append(s.arena, k...)
	s.keys = append(s.keys, s.arena[start:len(s.arena):len(s.arena)])
	if s.index != nil {
		s.index[string(k)] = struct{}{}
	} else if len(s.keys) > 16 {
		s.index = make(map[string]struct{}, 2*len(s.keys))
		for _, x := range s.keys {
			s.index[string(x)] = struct{}{}
		}
	}
}
