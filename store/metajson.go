package store

import (
	"encoding/json"
	"math"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/value/jsonscan"
)

// decodeMetaFast decodes a metadata record as collMeta.encode writes it,
// without encoding/json's reflection, whose first use (building its field
// caches) cost a cold `omgdb find` about 0.1 ms. It returns false for
// anything it does not expect (escapes in keys or plain strings, null,
// unknown or repeated keys, invalid UTF-8), which decodeMeta then hands to
// encoding/json; TestDecodeMetaFast_EqualsJSON compares the two.
func decodeMetaFast(js []byte) (m collMeta, ok bool) {
	if !json.Valid(js) {
		return m, false
	}
	d := metaScanner{b: js}
	ok = d.fields(func(key string) (ok bool) {
		switch key {
		case "name":
			m.Name, ok = d.plainString()
		case "created":
			m.Created, ok = d.plainString()
		case "rules":
			m.Rules, ok = d.raw()
		case "indexes":
			m.Indexes = []IndexDef{}
			ok = d.array(func() bool {
				var def IndexDef
				if !d.fields(func(key string) (ok bool) {
					switch key {
					case "name":
						def.Name, ok = d.plainString()
					case "kind":
						def.Kind, ok = d.plainString()
					case "spec":
						def.Spec, ok = d.raw()
					}
					return ok
				}) {
					return false
				}
				m.Indexes = append(m.Indexes, def)
				return true
			})
		}
		return ok
	})
	d.space()
	return m, ok && d.i == len(d.b)
}

// metaScanner walks JSON that json.Valid accepted.
type metaScanner struct {
	b []byte
	i int
}

func (d *metaScanner) space() { d.i = jsonscan.Space(d.b, d.i) }

func (d *metaScanner) consume(c byte) bool {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// object reads an object, calling field with each key once the scanner
// is at its value.
func (d *metaScanner) object(field func(key string) bool) bool {
	if !d.consume('{') {
		return false
	}
	if d.consume('}') {
		return true
	}
	for {
		d.space()
		key, ok := d.plainString()
		if !ok || !d.consume(':') {
			return false
		}
		d.space()
		if !field(key) {
			return false
		}
		if d.consume('}') {
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}

// plainString reads a string without escapes, in valid UTF-8.
func (d *metaScanner) plainString() (string, bool) {
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	end, f := jsonscan.String(d.b, start)
	if end < 0 || f&jsonscan.Escaped != 0 {
		return "", false
	}
	str := d.b[start : end-1]
	if f != 0 && !utf8.Valid(str) {
		return "", false
	}
	d.i = end
	return string(str), true
}

// raw returns a copy of the next value, an object or an array (as
// json.RawMessage holds it).
func (d *metaScanner) raw() ([]byte, bool) {
	d.space()
	if d.i >= len(d.b) || (d.b[d.i] != '{' && d.b[d.i] != '[') {
		return nil, false
	}
	end := jsonscan.SkipContainer(d.b, d.i, 0, math.MaxInt)
	if end < 0 {
		return nil, false
	}
	start := d.i
	d.i = end
	return append([]byte(nil), d.b[start:end]...), true
}

// decodeBTreeSpecFast decodes a B-tree index's spec as BTreeIndex writes
// it, as decodeMetaFast does a metadata record: false for anything else,
// which ParseBTreeSpec hands to encoding/json.
func decodeBTreeSpecFast(js []byte) (s BTreeSpec, ok bool) {
	if !json.Valid(js) {
		return s, false
	}
	d := metaScanner{b: js}
	ok = d.fields(func(key string) (ok bool) {
		switch key {
		case "unique":
			s.Unique, ok = d.bool()
		case "sparse":
			s.Sparse, ok = d.bool()
		case "fields":
			s.Fields = []IndexField{}
			ok = d.array(func() bool {
				var f IndexField
				if !d.fields(func(key string) (ok bool) {
					switch key {
					case "path":
						f.Path, ok = d.plainString()
					case "desc":
						f.Desc, ok = d.bool()
					case "type":
						f.Type, ok = d.plainString()
					}
					return ok
				}) {
					return false
				}
				s.Fields = append(s.Fields, f)
				return true
			})
		}
		return ok
	})
	d.space()
	return s, ok && d.i == len(d.b)
}

// fields reads an object in which no key repeats, calling field for each
// key with the scanner at its value; field returns false to refuse it.
func (d *metaScanner) fields(field func(key string) bool) bool {
	seen := map[string]bool{}
	return d.object(func(key string) bool {
		if seen[key] {
			return false
		}
		seen[key] = true
		return field(key)
	})
}

// array reads an array, calling elem with the scanner at each element.
func (d *metaScanner) array(elem func() bool) bool {
	if !d.consume('[') {
		return false
	}
	if d.consume(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.consume(']') {
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}

// bool reads true or false.
func (d *metaScanner) bool() (bool, bool) {
	d.space()
	for _, lit := range []string{"true", "false"} {
		if len(d.b)-d.i >= len(lit) && string(d.b[d.i:d.i+len(lit)]) == lit {
			d.i += len(lit)
			return lit == "true", true
		}
	}
	return false, false
}
