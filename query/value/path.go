package query

import "strings"

// fieldPath is a parsed dotted path such as "items.0.sku".
type fieldPath struct {
	dotted string
	parts  []string
	index  []int // the array index each part names, or -1 when it is not a canonical non-negative integer
}

func parsePath(dotted string) fieldPath {
	parts := strings.Split(dotted, ".")
	index := make([]int, len(parts))
	for i, p := range parts {
		index[i] = arrayIndex(p)
	}
	return fieldPath{dotted: dotted, parts: parts, index: index}
}

// arrayIndex returns the array position a path component names ("0", "12";
// not "01" or "-1"), or -1.
func arrayIndex(s string) int {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// pathWalk visits the values a path yields in a document, the way MongoDB's
// matcher does (its BSONElementIterator):
//
//   - objects are descended field by field; a component that is absent, or
//     that meets a scalar before the path ends, yields missing once;
//   - an array met before the path ends yields, for each element, what the
//     rest of the path yields in it when it is an object, and, when the next
//     component is that element's position, what the path after the position
//     yields in it (elements that are neither are skipped);
//   - an array at the end of the path yields each element and then the array
//     itself, unless leaf arrays are not traversed ($size, $elemMatch), in
//     which case it yields the array alone.
//
// Each value comes with the position, in the outermost array traversed
// implicitly, of the element it came from (-1 when none): MongoDB's
// "elemMatchKey", which the positional projection uses.
//
// The walk stops at the first value pred matches; when ctx is not nil, that
// value's position is recorded in it.
type pathWalk struct {
	path       *fieldPath
	leafArrays bool
	pred       valuePred
	ctx        *matchCtx
}

// run walks doc and reports whether some value matched.
func (w *pathWalk) run(doc Value) bool {
	return w.fromObject(doc, 0, -1)
}

func (w *pathWalk) visit(v Value, pos int) bool {
	if !w.pred.matchValue(v, w.ctx) {
		return false
	}
	if w.ctx != nil && pos >= 0 {
		w.ctx.key = pos
	}
	return true
}

// fromObject yields the values of path[i:] inside object obj.
func (w *pathWalk) fromObject(obj Value, i, pos int) bool {
	v, j := dottedOrArray(obj, w.path.parts[i:])
	if j += i; v.kind == Array && j < len(w.path.parts)-1 {
		return w.inArray(v, j+1, pos)
	}
	return w.atEnd(v, pos)
}

// atEnd yields what the path yields when it has reached v through objects
// (v is missing when the path ended early or met a scalar): v, or, for an
// array when leaf arrays are traversed, its elements and then itself.
func (w *pathWalk) atEnd(v Value, pos int) bool {
	if v.kind != Array || !w.leafArrays {
		return w.visit(v, pos)
	}
	return w.inArray(v, len(w.path.parts), pos)
}

// inArray yields the values of path[i:] for the elements of arr.
func (w *pathWalk) inArray(arr Value, i, pos int) bool {
	last := i == len(w.path.parts)
	for k, e := range arr.arr {
		epos := pos
		if epos < 0 {
			epos = k
		}
		if last {
			if w.visit(e, epos) {
				return true
			}
			continue
		}
		if e.kind == Object && w.fromObject(e, i, epos) {
			return true
		}
		if w.path.index[i] == k && w.atOffset(e, i+1, pos) {
			return true
		}
	}
	return last && w.visit(arr, pos)
}

// atOffset yields the values of path[i:] in e, the element an explicit
// numeric component selected. Its position is not an implicit traversal,
// so it keeps the enclosing one.
func (w *pathWalk) atOffset(e Value, i, pos int) bool {
	switch {
	case i == len(w.path.parts):
		return w.visit(e, pos)
	case e.kind == Object:
		return w.fromObject(e, i, pos)
	case e.kind == Array:
		return w.inArray(e, i, pos)
	}
	return false
}

// dottedOrArray descends obj along parts through objects. It stops at the
// first array it meets and returns it with the index of its component; it
// returns missing when a component is absent or a scalar is met early.
func dottedOrArray(obj Value, parts []string) (Value, int) {
	v := obj
	for j, p := range parts {
		if v.kind != Object {
			return Value{}, j
		}
		v = v.Get(p)
		if v.kind == Array || j == len(parts)-1 {
			return v, j
		}
		if v.kind == Missing {
			return v, j
		}
	}
	return v, len(parts) - 1
}

// Lookup returns the values found at the dotted path in doc, traversing
// arrays the way filters do: an array met before the end of the path
// contributes what the rest of the path finds in each of its object
// elements, and its element at a numeric component ("items.0.sku"). An
// array at the end of the path is returned as one value, not expanded.
// Absent fields contribute nothing, so a path that leads nowhere returns
// nil. The returned values share memory with doc.
func Lookup(doc Value, path string) []Value {
	fp := parsePath(path)
	c := &collectPred{}
	w := pathWalk{path: &fp, pred: c}
	w.run(doc)
	return c.out
}

// collectPred gathers the values a walk yields; it never matches.
type collectPred struct{ out []Value }

func (c *collectPred) matchValue(v Value, _ *matchCtx) bool {
	if v.kind != Missing {
		c.out = append(c.out, v)
	}
	return false
}
