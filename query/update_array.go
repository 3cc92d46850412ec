package query

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// pushLeaf is $push, with the $each, $position, $sort and $slice modifiers.
type pushLeaf struct {
	vals     []value.Value
	position int64 // where to insert; math.MaxInt64 appends
	slice    int64 // keep this many (negative: from the end); math.MaxInt64 keeps all
	sort     *pushSort
}

// pushSort is the $sort modifier: whole elements (fields nil) or
// document fields, each ascending (1) or descending (-1).
type pushSort struct {
	dir    int
	fields []pushSortKey
}

type pushSortKey struct {
	path []string
	dir  int
}

func makePush(arg value.Value, path string) (leafOp, error) {
	l := &pushLeaf{position: math.MaxInt64, slice: math.MaxInt64}
	if arg.Kind() != value.Object || arg.Get("$each").IsMissing() {
		if err := checkPushValue(arg, path); err != nil {
			return nil, err
		}
		l.vals = []value.Value{arg}
		return l, nil
	}
	for _, f := range arg.Fields() {
		if err := l.clause(f, path); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// checkPushValue refuses values that omgdb cannot store, and explains a
// modifier used without $each.
func checkPushValue(arg value.Value, path string) error {
	if fs := arg.Fields(); len(fs) > 0 {
		switch fs[0].Key {
		case "$slice", "$sort", "$position":
			return errs.Errorf(errs.Invalid, "The dollar ($) prefixed field '%s' in '%s.%s' is not valid for storage.", fs[0].Key, path, fs[0].Key).
				WithHint(`%s works together with $each: {"$each":[…],"%s":…}`, fs[0].Key, fs[0].Key)
		}
	}
	return checkUpdateValue(arg, path)
}

func (l *pushLeaf) clause(f value.Field, path string) error {
	var ok bool
	switch f.Key {
	case "$each":
		if f.Value.Kind() != value.Array {
			return errs.Errorf(errs.Invalid, "The argument to $each in $push must be an array but it was of type: %s", f.Value.TypeName())
		}
		l.vals = f.Value.Array()
		return checkUpdateValue(f.Value, path)
	case "$slice":
		if l.slice, ok = integerOperand(f.Value); !ok {
			return errs.Errorf(errs.Invalid, "The value for $slice must be an integer value but was given type: %s", f.Value.TypeName())
		}
	case "$position":
		if l.position, ok = integerOperand(f.Value); !ok {
			return errs.Errorf(errs.Invalid, "The value for $position must be an integer value, not of type: %s", f.Value.TypeName())
		}
	case "$sort":
		s, err := parsePushSort(f.Value)
		l.sort = s
		return err
	default:
		return errs.Errorf(errs.Invalid, "Unrecognized clause in $push: %s", f.Key).
			WithHint("$push takes $each, $position, $slice and $sort")
	}
	return nil
}

// integerOperand reads a long, or a double with an integral value.
func integerOperand(v value.Value) (int64, bool) {
	switch v.Kind() {
	case value.Long, value.Int:
		return v.Long(), true
	case value.Double:
		f := v.Double()
		if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return int64(f), true
		}
	}
	return 0, false
}

func parsePushSort(v value.Value) (*pushSort, error) {
	switch {
	case v.IsNumber():
		dir, ok := pushSortDirection(v)
		if !ok {
			return nil, errs.Errorf(errs.Invalid, "The $sort element value must be either 1 or -1")
		}
		return &pushSort{dir: dir}, nil
	case v.Kind() != value.Object:
		return nil, errs.Errorf(errs.Invalid, "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields")
	case v.Len() == 0:
		return nil, errs.Errorf(errs.Invalid, "The $sort pattern is empty when it should be a set of fields.")
	}
	s := &pushSort{}
	for _, f := range v.Fields() {
		dir, ok := pushSortDirection(f.Value)
		switch {
		case !ok:
			return nil, errs.Errorf(errs.Invalid, "The $sort element value must be either 1 or -1")
		case f.Key == "":
			return nil, errs.Errorf(errs.Invalid, "The $sort field cannot be empty")
		case strings.HasPrefix(f.Key, ".") || strings.HasSuffix(f.Key, ".") || strings.Contains(f.Key, ".."):
			return nil, errs.Errorf(errs.Invalid, "The $sort field is a dotted field but has an empty part: %s", f.Key)
		}
		s.fields = append(s.fields, pushSortKey{strings.Split(f.Key, "."), dir})
	}
	return s, nil
}

func pushSortDirection(v value.Value) (int, bool) {
	switch f := v.Float(); {
	case !v.IsNumber():
		return 0, false
	case f == 1:
		return 1, true
	case f == -1:
		return -1, true
	}
	return 0, false
}

func (*pushLeaf) mode() pathMode { return modeCreate }

func (l *pushLeaf) apply(cur value.Value, s *step) (value.Value, bool, error) {
	if !cur.IsMissing() && !cur.IsArray() {
		return cur, false, errs.Errorf(errs.Invalid, "The field '%s' must be an array but is of type %s in document {%s}",
			s.fieldPath(), cur.TypeName(), s.ap.idOrNone()).
			WithHint("$push appends to arrays; $set '%s' to an array first", s.fieldPath())
	}
	elems := cur.Array()
	at := l.insertAt(len(elems))
	out := make([]value.Value, 0, len(elems)+len(l.vals))
	out = append(append(append(out, elems[:at]...), l.vals...), elems[at:]...)
	if l.sort != nil {
		l.sort.sort(out)
	}
	out = l.trim(out)
	res := value.ArrayValue(out)
	if value.SameCanonical(cur, res) {
		return cur, false, nil
	}
	return res, true, nil
}

// insertAt returns where $position puts the new elements in an array of n.
func (l *pushLeaf) insertAt(n int) int {
	switch p := l.position; {
	case p >= int64(n):
		return n
	case p >= 0:
		return int(p)
	case p > -int64(n):
		return n + int(p)
	}
	return 0
}

// trim applies $slice.
func (l *pushLeaf) trim(elems []value.Value) []value.Value {
	switch n, size := l.slice, int64(len(elems)); {
	case n >= size || n <= -size:
		return elems
	case n >= 0:
		return elems[:n]
	default:
		return elems[size+n:]
	}
}

// sort orders elems in place, stably.
func (p *pushSort) sort(elems []value.Value) {
	slices.SortStableFunc(elems, func(a, b value.Value) int {
		if p.fields == nil {
			return p.dir * value.Compare(a, b)
		}
		for _, k := range p.fields {
			if c := k.dir * value.Compare(pushSortField(a, k.path), pushSortField(b, k.path)); c != 0 {
				return c
			}
		}
		return 0
	})
}

// pushSortField is the value an element sorts by for one $sort field: the
// field of a document element (null when absent), null for others.
func pushSortField(e value.Value, path []string) value.Value {
	if !e.IsObject() {
		return value.Value{}
	}
	return valueAtPath(e, path)
}

// addToSetLeaf is $addToSet: each value not already in the array is
// appended (values equal by Compare count as present).
type addToSetLeaf struct{ vals []value.Value }

func makeAddToSet(arg value.Value, path string) (leafOp, error) {
	vals := []value.Value{arg}
	if fs := arg.Fields(); len(fs) > 0 && fs[0].Key == "$each" {
		if fs[0].Value.Kind() != value.Array {
			return nil, errs.Errorf(errs.Invalid, "The argument to $each in $addToSet must be an array but it was of type %s", fs[0].Value.TypeName())
		}
		if len(fs) > 1 {
			return nil, errs.Errorf(errs.Invalid, "Found unexpected fields after $each in $addToSet: %s", mongoValue(arg))
		}
		vals = dedupeValues(fs[0].Value.Array())
	}
	for _, v := range vals {
		if err := checkUpdateValue(v, path); err != nil {
			return nil, err
		}
	}
	return addToSetLeaf{vals}, nil
}

// dedupeValues returns vals without later values equal to earlier ones.
func dedupeValues(vals []value.Value) []value.Value {
	var out []value.Value
	for _, v := range vals {
		if !containsValue(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func containsValue(vals []value.Value, v value.Value) bool {
	return slices.ContainsFunc(vals, func(e value.Value) bool { return value.Equal(e, v) })
}

func (addToSetLeaf) mode() pathMode { return modeCreate }

func (l addToSetLeaf) apply(cur value.Value, s *step) (value.Value, bool, error) {
	if !cur.IsMissing() && !cur.IsArray() {
		return cur, false, errs.Errorf(errs.Invalid, "Cannot apply $addToSet to non-array field. Field named '%s' has non-array type %s",
			s.fieldName(), cur.TypeName()).
			WithHint("$addToSet adds to arrays; $set '%s' to an array first", s.fieldPath())
	}
	elems := cur.Array()
	out := append([]value.Value(nil), elems...)
	for _, v := range l.vals {
		if !containsValue(elems, v) {
			out = append(out, v)
		}
	}
	if !cur.IsMissing() && len(out) == len(elems) {
		return cur, false, nil
	}
	return value.ArrayValue(out), true, nil
}

// popLeaf is $pop: removes the first (-1) or last (1) element.
type popLeaf struct{ front bool }

func makePop(arg value.Value, path string) (leafOp, error) {
	if !arg.IsNumber() {
		return nil, errs.Errorf(errs.Invalid, "Expected a number in: %s", mongoElem(path, arg))
	}
	n, ok := integerOperand(arg)
	if !ok {
		return nil, errs.Errorf(errs.Invalid, "Expected an integer: %s", mongoElem(path, arg))
	}
	if n != 1 && n != -1 {
		return nil, errs.Errorf(errs.Invalid, "$pop expects 1 or -1, found: %d", n).
			WithHint("use -1 to remove the first element, 1 to remove the last")
	}
	return popLeaf{front: n == -1}, nil
}

func (popLeaf) mode() pathMode { return modeViable }

func (l popLeaf) apply(cur value.Value, s *step) (value.Value, bool, error) {
	if !cur.IsArray() {
		return cur, false, errs.Errorf(errs.Invalid, "Path '%s' contains an element of non-array type '%s'", s.fieldPath(), cur.TypeName())
	}
	elems := cur.Array()
	switch {
	case len(elems) == 0:
		return cur, false, nil
	case l.front:
		return value.ArrayValue(elems[1:]), true, nil
	}
	return value.ArrayValue(elems[:len(elems)-1]), true, nil
}

// pullLeaf is $pull and $pullAll: removes the elements that match. A
// condition's filter stops when the update's context is done.
type pullLeaf struct {
	name  string
	match func(ctx context.Context, e value.Value) (bool, error)
}

// pullWrap is the field name that $pull conditions on values ({$gte: 6})
// test an element under.
const pullWrap = "v"

func makePull(arg value.Value, _ string) (leafOp, error) {
	if arg.Kind() != value.Object {
		return pullLeaf{"$pull", func(_ context.Context, e value.Value) (bool, error) { return value.Equal(e, arg), nil }}, nil
	}
	if fs := arg.Fields(); len(fs) > 0 && pullValueOperators[fs[0].Key] {
		f, err := CompileFilter(value.ObjectValue([]value.Field{{Key: pullWrap, Value: arg}}))
		if err != nil {
			return nil, err
		}
		return pullLeaf{"$pull", func(ctx context.Context, e value.Value) (bool, error) {
			return f.MatchContext(ctx, value.ObjectValue([]value.Field{{Key: pullWrap, Value: e}}))
		}}, nil
	}
	f, err := CompileFilter(arg)
	if err != nil {
		return nil, err
	}
	return pullLeaf{"$pull", func(ctx context.Context, e value.Value) (bool, error) {
		if !e.IsObject() {
			return false, nil
		}
		return f.MatchContext(ctx, e)
	}}, nil
}

// pullValueOperators are the query operators that apply to a field's value;
// a $pull condition starting with one tests each element as a value
// rather than as a document.
var pullValueOperators = map[string]bool{
	"$eq": true, "$ne": true, "$gt": true, "$gte": true, "$lt": true, "$lte": true,
	"$in": true, "$nin": true, "$exists": true, "$type": true, "$size": true, "$all": true,
	"$elemMatch": true, "$mod": true, "$regex": true, "$options": true, "$not": true,
	"$bitsAllSet": true, "$bitsAllClear": true, "$bitsAnySet": true, "$bitsAnyClear": true,
	"$geoWithin": true, "$geoIntersects": true, "$near": true, "$nearSphere": true, "$within": true,
}

func makePullAll(arg value.Value, _ string) (leafOp, error) {
	if arg.Kind() != value.Array {
		return nil, errs.Errorf(errs.Invalid, "$pullAll requires an array argument but was given a %s", arg.TypeName())
	}
	vals := arg.Array()
	return pullLeaf{"$pullAll", func(_ context.Context, e value.Value) (bool, error) { return containsValue(vals, e), nil }}, nil
}

func (pullLeaf) mode() pathMode { return modeViable }

func (l pullLeaf) apply(cur value.Value, s *step) (value.Value, bool, error) {
	if !cur.IsArray() {
		return cur, false, errs.Errorf(errs.Invalid, "Cannot apply %s to a non-array value", l.name).
			WithHint("'%s' holds %s", s.fieldPath(), aTypeName(cur))
	}
	elems := cur.Array()
	out := make([]value.Value, 0, len(elems))
	for _, e := range elems {
		pull, err := l.match(s.ap.ctx.Context, e)
		if err != nil {
			return cur, false, err
		}
		if !pull {
			out = append(out, e)
		}
	}
	if len(out) == len(elems) {
		return cur, false, nil
	}
	return value.ArrayValue(out), true, nil
}
