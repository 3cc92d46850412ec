package value

import (
	"unsafe"

	"github.com/omgdb/omgdb/query/value/jsonscan"
)

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
		j := jsonscan.Plain(data, start)
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
		if i = jsonscan.SkipValue(data, j+2, MaxDepth-depth); i < 0 || i >= len(data) {
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
func (d *Decoder) slotsFor(n int) []Value {
	if cap(d.slots) < n {
		d.slots = make([]Value, n)
	}
	d.slots = d.slots[:n]
	return d.slots
}

// A SlotTree is the tree of the paths whose values Decoder.ReadSlots
// reads, each path's end numbered with its slot (pruneNode.slot, from 1).
// The zero SlotTree is empty.
type SlotTree struct {
	root *pruneNode
	n    int // the number of slots
}

// Add adds a path, given as its components, and returns its slot (from
// 0; a path added twice has one). ok is false when the path is the prefix
// of one added before, or one added before is its prefix: the walk would
// have to decode the shorter one's value and walk into it.
func (t *SlotTree) Add(parts []string) (slot int, ok bool) {
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
// other than an object on the way, stays missing, as expr.WalkPath leaves it.
// ok is false when the walk needs the decoder: an array on the way to a
// path's end (expr.WalkPath maps the rest of the path over its elements),
// anything nextWanted does not take (a space, an escaped key, an Extended
// JSON wrapper) or an error; the caller then decodes the document, which
// reports any error. Values alias data and the decoder's slabs, as
// document's do.
func (d *Decoder) pathValues(data []byte, root *pruneNode, slots []Value) (ok bool) {
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
func (d *Decoder) pathObject(n *pruneNode, slots []Value, depth int, tail bool) bool {
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
				if i = jsonscan.SkipContainer(p.data, i, 1, MaxDepth+1-depth); i < 0 {
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

// Empty reports whether the tree has no path: pathValues has nothing to
// read.
func (t *SlotTree) Empty() bool { return t.root == nil }

// ReadSlots reads the values at the ends of t's paths from the document
// data (see pathValues), one per slot. The values alias data and the
// decoder's memory, valid until its next document or Reset. ok is false
// when t is empty, or when the walk needs the whole decoder
// (DecodeFields).
func (d *Decoder) ReadSlots(data []byte, t *SlotTree) (slots []Value, ok bool) {
	if t.root == nil {
		return nil, false
	}
	slots = d.slotsFor(t.n)
	return slots, d.pathValues(data, t.root, slots)
}
