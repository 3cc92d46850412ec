package query

import (
	"cmp"
	"math"
	"strconv"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// pathMode is how an operator treats a path that does not exist.
type pathMode uint8

const (
	// modeCreate creates missing fields; a path that crosses a value that
	// is not a document is an error ($set, $inc, $push, …).
	modeCreate pathMode = iota
	// modeViable ignores missing fields, but a path that could not be
	// created is an error ($pop, $pull, $pullAll).
	modeViable
	// modeLenient ignores missing and impossible paths alike ($unset).
	modeLenient
)

// leafOp is an operator's effect on the value at its path.
type leafOp interface {
	mode() pathMode
	// apply returns the new value for the field given its current value
	// (missing when absent, which only modeCreate operators see), and
	// whether it changed. Returning missing removes the field.
	apply(cur value.Value, s *step) (value.Value, bool, error)
}

// maxPadding is how many nulls setting an array index beyond the end may
// add (MongoDB's limit).
const maxPadding = 1500000

// step is one operator applied at one concrete path (no positional
// components left).
type step struct {
	ap   *applier
	op   *fieldOp
	leaf leafOp
	path []string // the concrete target path
	from []string // $rename: the source path
}

// run applies the step to doc.
func (s *step) run(doc value.Value) (value.Value, bool, error) {
	if s.op != nil && s.op.name == "$rename" {
		return s.rename(doc)
	}
	return s.walk(doc, 0)
}

// walk applies the step at s.path[i:] below v, the value at s.path[:i].
func (s *step) walk(v value.Value, i int) (value.Value, bool, error) {
	if i == len(s.path) {
		return s.leaf.apply(v, s)
	}
	switch v.Kind() {
	case value.Object:
		return s.walkObject(v, i)
	case value.Array:
		if idx, ok := pathIndex(s.path[i]); ok {
			return s.walkArray(v, i, idx)
		}
	}
	return s.blocked(v, i)
}

func (s *step) walkObject(v value.Value, i int) (value.Value, bool, error) {
	key := s.path[i]
	child := v.Get(key)
	if child.IsMissing() {
		nv, ok, err := s.create(i)
		if !ok || err != nil {
			return v, false, err
		}
		return v.With(key, nv), true, nil
	}
	nv, changed, err := s.walk(child, i+1)
	if err != nil || !changed {
		return v, false, err
	}
	if nv.IsMissing() {
		return s.remove(v, i)
	}
	return v.With(key, nv), true, nil
}

// remove removes field s.path[i] from object v. It refuses to leave a
// field whose name starts with '$' first: such an object would read back
// as Extended JSON ({"$oid":…}) rather than as a document.
func (s *step) remove(v value.Value, i int) (value.Value, bool, error) {
	out := v.Without(s.path[i])
	if fs := out.Fields(); len(fs) > 0 && strings.HasPrefix(fs[0].Key, "$") && v.Fields()[0].Key == s.path[i] {
		return v, false, errs.Errorf(errs.Invalid, "Cannot remove '%s': the field '%s' would come first in its document, which would then read as Extended JSON",
			dottedPath(s.path), fs[0].Key).
			WithHint("rename or remove '%s' first", dottedPath(append(s.path[:i:i], fs[0].Key)))
	}
	return out, true, nil
}

func (s *step) walkArray(v value.Value, i, idx int) (value.Value, bool, error) {
	elems := v.Array()
	if idx >= len(elems) {
		return s.pad(v, i, idx)
	}
	nv, changed, err := s.walk(elems[idx], i+1)
	if err != nil || !changed {
		return v, false, err
	}
	if nv.IsMissing() { // $unset of an array element leaves null
		if elems[idx].IsNull() {
			return v, false, nil
		}
		nv = value.NullValue()
	}
	out := append([]value.Value(nil), elems...)
	out[idx] = nv
	return value.ArrayValue(out), true, nil
}

// pad creates element idx beyond the end of array v, padding with nulls.
func (s *step) pad(v value.Value, i, idx int) (value.Value, bool, error) {
	elems := v.Array()
	nv, ok, err := s.create(i)
	if !ok || err != nil {
		return v, false, err
	}
	if idx-len(elems) > maxPadding {
		return v, false, errs.Errorf(errs.Invalid, "can't backfill more than %d elements", maxPadding).
			WithHint("'%s' is far beyond the end of the array; use $push to append", dottedPath(s.path))
	}
	out := make([]value.Value, idx+1)
	copy(out, elems)
	for j := len(elems); j < idx; j++ {
		out[j] = value.NullValue()
	}
	out[idx] = nv
	return value.ArrayValue(out), true, nil
}

// create returns the value to insert as s.path[i] when that field is
// absent: documents down to the leaf value. ok is false for operators
// that do not create fields.
func (s *step) create(i int) (value.Value, bool, error) {
	if s.leaf.mode() != modeCreate {
		return value.Value{}, false, nil
	}
	v, _, err := s.leaf.apply(value.Value{}, s)
	if err != nil {
		return value.Value{}, false, err
	}
	for k := len(s.path) - 1; k > i; k-- {
		v = value.ObjectValue([]value.Field{{Key: s.path[k], Value: v}})
	}
	return v, true, nil
}

// blocked handles a path whose component i cannot be looked up in v (a
// scalar, or an array and a name that is not an index). i is at least 1:
// the document itself is an object.
func (s *step) blocked(v value.Value, i int) (value.Value, bool, error) {
	switch s.leaf.mode() {
	case modeLenient:
		return v, false, nil
	case modeViable:
		return v, false, errs.Errorf(errs.Invalid, "Cannot use the part (%s) of (%s) to traverse the element ({%s})",
			s.path[i], dottedPath(s.path), mongoElem(s.path[i-1], v))
	}
	return v, false, errs.Errorf(errs.Invalid, "Cannot create field '%s' in element {%s}", s.path[i], mongoElem(s.path[i-1], v)).
		WithHint("'%s' holds %s, not a document; $set '%s' itself to replace it", dottedPath(s.path[:i]), aTypeName(v), dottedPath(s.path[:i]))
}

// Path names the step's target for messages.
func (s *step) fieldPath() string { return dottedPath(s.path) }

// fieldName is the last component of the target path.
func (s *step) fieldName() string { return s.path[len(s.path)-1] }

// pathIndex parses a path component as an array index: decimal digits
// only. Indexes too large for an int saturate.
func pathIndex(comp string) (int, bool) {
	if comp == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(comp); i++ {
		c := comp[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (math.MaxInt-9)/10 {
			n = math.MaxInt
		} else {
			n = n*10 + int(c-'0')
		}
	}
	return n, true
}

// isArrayUpdate reports whether comp is $[] or $[<identifier>].
func isArrayUpdate(comp string) bool {
	return len(comp) >= 3 && comp[0] == '$' && comp[1] == '[' && comp[len(comp)-1] == ']'
}

// isPositionalPath reports whether path holds a positional component.
func isPositionalPath(path []string) bool {
	for _, comp := range path {
		if comp == "$" || isArrayUpdate(comp) {
			return true
		}
	}
	return false
}

// pathHasPrefix reports whether path p is a prefix of (or equal to) q.
func pathHasPrefix(p, q []string) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// valueAtPath looks path up in v without array traversal: names in objects,
// indexes in arrays. It returns missing when the path does not exist.
func valueAtPath(v value.Value, path []string) value.Value {
	for _, comp := range path {
		switch v.Kind() {
		case value.Object:
			v = v.Get(comp)
		case value.Array:
			idx, ok := pathIndex(comp)
			if !ok {
				return value.Value{}
			}
			v = v.Index(idx)
		default:
			return value.Value{}
		}
	}
	return v
}

// compareUpdatePaths orders paths the way MongoDB applies updates: component
// by component, names in byte order, indexes in numeric order.
func compareUpdatePaths(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareUpdateFields(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func compareUpdateFields(a, b string) int {
	_, aIdx := pathIndex(a)
	_, bIdx := pathIndex(b)
	if aIdx && bIdx {
		a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if len(a) != len(b) {
			return cmp.Compare(len(a), len(b))
		}
	}
	return strings.Compare(a, b)
}

// withPathIndex returns path with component i replaced by index idx.
func withPathIndex(path []string, i, idx int) []string {
	out := append([]string(nil), path...)
	out[i] = strconv.Itoa(idx)
	return out
}
