package query

import (
	"github.com/omgdb/omgdb/query/value"
)

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
	path       *value.Path
	leafArrays bool
	pred       valuePred
	ctx        *matchCtx
}

// run walks doc and reports whether some value matched.
func (w *pathWalk) run(doc value.Value) bool {
	return w.fromObject(doc, 0, -1)
}

func (w *pathWalk) visit(v value.Value, pos int) bool {
	if !w.pred.matchValue(v, w.ctx) {
		return false
	}
	if w.ctx != nil && pos >= 0 {
		w.ctx.key = pos
	}
	return true
}

// fromObject yields the values of path[i:] inside object obj.
func (w *pathWalk) fromObject(obj value.Value, i, pos int) bool {
	v, j := dottedOrArray(obj, w.path.Parts[i:])
	if j += i; v.Kind() == value.Array && j < len(w.path.Parts)-1 {
		return w.inArray(v, j+1, pos)
	}
	return w.atEnd(v, pos)
}

// atEnd yields what the path yields when it has reached v through objects
// (v is missing when the path ended early or met a scalar): v, or, for an
// array when leaf arrays are traversed, its elements and then itself.
func (w *pathWalk) atEnd(v value.Value, pos int) bool {
	if v.Kind() != value.Array || !w.leafArrays {
		return w.visit(v, pos)
	}
	return w.inArray(v, len(w.path.Parts), pos)
}

// inArray yields the values of path[i:] for the elements of arr.
func (w *pathWalk) inArray(arr value.Value, i, pos int) bool {
	last := i == len(w.path.Parts)
	for k, e := range arr.Array() {
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
		if e.Kind() == value.Object && w.fromObject(e, i, epos) {
			return true
		}
		if w.path.Index[i] == k && w.atOffset(e, i+1, pos) {
			return true
		}
	}
	return last && w.visit(arr, pos)
}

// atOffset yields the values of path[i:] in e, the element an explicit
// numeric component selected. Its position is not an implicit traversal,
// so it keeps the enclosing one.
func (w *pathWalk) atOffset(e value.Value, i, pos int) bool {
	switch {
	case i == len(w.path.Parts):
		return w.visit(e, pos)
	case e.Kind() == value.Object:
		return w.fromObject(e, i, pos)
	case e.Kind() == value.Array:
		return w.inArray(e, i, pos)
	}
	return false
}

// dottedOrArray descends obj along parts through objects. It stops at the
// first array it meets and returns it with the index of its component; it
// returns missing when a component is absent or a scalar is met early
// (Get finds no field in anything but an object).
func dottedOrArray(obj value.Value, parts []string) (value.Value, int) {
	v := obj
	for j, p := range parts {
		v = v.Get(p)
		if k := v.Kind(); k == value.Array || k == value.Missing || j == len(parts)-1 {
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
func Lookup(doc value.Value, path string) []value.Value {
	fp := value.ParsePath(path)
	var out []value.Value
	w := pathWalk{path: &fp, pred: funcPred(func(v value.Value) {
		if v.Kind() != value.Missing {
			out = append(out, v)
		}
	})}
	w.run(doc)
	return out
}

// EachValue calls fn with each value a filter's condition on the path p
// tests in doc, in the order it tests them: as Lookup finds them, except
// that an array at the end of the path gives each of its elements and
// then itself, and that a path that leads nowhere gives missing.
func EachValue(doc value.Value, p *value.Path, fn func(value.Value)) {
	w := pathWalk{path: p, leafArrays: true, pred: funcPred(fn)}
	w.run(doc)
}

// funcPred hands each value a walk yields to a function; it never
// matches.
type funcPred func(value.Value)

func (f funcPred) matchValue(v value.Value, _ *matchCtx) bool {
	f(v)
	return false
}
