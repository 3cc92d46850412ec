package query

import "strings"

// SortKey is one key of a sort specification.
type SortKey struct {
	Path string // dotted field path
	Desc bool   // true for -1 (descending)
}

// Sort is a compiled sort specification such as {"age":-1,"name":1}. It
// orders documents as MongoDB does: values of different types by type
// (null < numbers < string < object < array < binData < objectId < bool <
// date), a missing field as null, an array by its smallest element when
// ascending and its largest when descending, and an empty array below
// null. Ties are broken by _id ascending, so the order is deterministic.
// A Sort is immutable and safe for concurrent use.
type Sort struct {
	keys  []SortKey
	paths []fieldPath
}

// CompileSort validates and compiles a sort specification: an object whose
// values are 1 (ascending) or -1 (descending). A missing, null or empty
// spec is the natural order, under which Compare always returns 0.
func CompileSort(spec Value) (*Sort, error) {
	s := &Sort{}
	if spec.kind == Missing || spec.kind == Null {
		return s, nil
	}
	if spec.kind != Object {
		return nil, Errorf(Invalid, "invalid sort: the sort must be an object such as {\"age\":-1}, got %s", spec.TypeName())
	}
	for _, f := range spec.fields {
		desc, err := sortDirection(f.Key, f.Value)
		if err != nil {
			return nil, err
		}
		if err := checkSortPath(f.Key); err != nil {
			return nil, err
		}
		s.keys = append(s.keys, SortKey{Path: f.Key, Desc: desc})
		s.paths = append(s.paths, parsePath(f.Key))
	}
	return s, nil
}

func sortDirection(key string, v Value) (desc bool, err error) {
	switch {
	case isInteger(v, 1):
		return false, nil
	case isInteger(v, -1):
		return true, nil
	case v.kind == Object && len(v.fields) > 0 && v.fields[0].Key == "$meta":
		return false, Errorf(Invalid, "invalid sort: {\"$meta\":…} sort keys are not supported (field `%s`)", key).
			WithHint("`omgdb search` returns results ranked by score")
	}
	return false, Errorf(Invalid, "invalid sort: $sort key ordering must be 1 (for ascending) or -1 (for descending), got %s for `%s`", v, key).
		WithHint(`write {"%s":1} or {"%s":-1}`, key, key)
}

func checkSortPath(path string) error {
	if path == "" {
		return Errorf(Invalid, "invalid sort: the field path is empty")
	}
	for _, p := range strings.Split(path, ".") {
		if p == "" {
			return Errorf(Invalid, "invalid sort: field path `%s` has an empty component", path)
		}
		if strings.HasPrefix(p, "$") {
			return Errorf(Invalid, "invalid sort: field path `%s`: field names may not start with '$'", path)
		}
	}
	return nil
}

// Keys returns the sort keys in order (empty for the natural order).
func (s *Sort) Keys() []SortKey {
	return append([]SortKey(nil), s.keys...)
}

// Compare returns -1, 0 or +1 as document a sorts before, with or after b.
// Documents equal on every key are ordered by _id ascending. Under the
// natural order (no keys) it returns 0, so a stable sort keeps the input
// order.
func (s *Sort) Compare(a, b Value) int {
	if len(s.keys) == 0 {
		return 0
	}
	for i, k := range s.keys {
		ka := sortKeyOf(a, &s.paths[i], k.Desc)
		kb := sortKeyOf(b, &s.paths[i], k.Desc)
		c := compareSortVals(ka, kb)
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return Compare(a.Get("_id"), b.Get("_id"))
}

// sortVal is a document's sort key for one field: a value, or "undefined"
// (an empty array), which sorts below null.
type sortVal struct {
	v     Value
	undef bool
}

func compareSortVals(a, b sortVal) int {
	switch {
	case a.undef && b.undef:
		return 0
	case a.undef:
		return -1
	case b.undef:
		return 1
	}
	return Compare(a.v, b.v)
}

// sortAcc keeps the smallest (ascending) or largest (descending) of the
// values a document has at a path.
type sortAcc struct {
	best sortVal
	seen bool
	desc bool
}

func (a *sortAcc) add(v sortVal) {
	if a.seen {
		c := compareSortVals(v, a.best)
		if (a.desc && c <= 0) || (!a.desc && c >= 0) {
			return
		}
	}
	a.best, a.seen = v, true
}

// sortKeyOf returns doc's sort key at path. The values are those an index
// on the path would hold (multikey): arrays expand, one level, into their
// elements; a missing field, or a scalar met before the path ends, is
// null; an empty array at the end of the path is undefined.
func sortKeyOf(doc Value, fp *fieldPath, desc bool) sortVal {
	acc := sortAcc{desc: desc}
	acc.walk(doc, fp.parts, fp.index)
	return acc.best
}

func (a *sortAcc) walk(v Value, parts []string, index []int) {
	if len(parts) == 0 {
		a.leaf(v)
		return
	}
	switch v.kind {
	case Object:
		a.walk(v.Get(parts[0]), parts[1:], index[1:])
	case Array:
		if index[0] >= 0 {
			a.walk(v.Index(index[0]), parts[1:], index[1:])
			return
		}
		if len(v.arr) == 0 {
			a.add(sortVal{v: NullValue()})
		}
		for _, e := range v.arr {
			if e.kind == Object {
				a.walk(e, parts, index)
			} else {
				a.add(sortVal{v: NullValue()})
			}
		}
	default:
		a.add(sortVal{v: NullValue()})
	}
}

func (a *sortAcc) leaf(v Value) {
	if v.kind != Array {
		a.add(sortVal{v: v})
		return
	}
	if len(v.arr) == 0 {
		a.add(sortVal{undef: true})
	}
	for _, e := range v.arr {
		a.add(sortVal{v: e})
	}
}
