package value

import (
	"strings"
	"unsafe"

	"github.com/omgdb/omgdb/query/value/jsonscan"
)

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
	j := jsonscan.Plain(data, start)
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

// FieldSet is a compiled set of dotted paths, for ParseFields and
// Decoder.DecodeFields.
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
	defer d.Release()
	d.own = true
	return d.document(data, fs.root)
}
