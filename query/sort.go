package query

import (
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

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
	paths []value.Path
	coll  *collation.Collation // nil: binary string order
}

// CompileSort validates and compiles a sort specification: an object whose
// values are 1 (ascending) or -1 (descending). A missing, null or empty
// spec is the natural order, under which Compare always returns 0.
func CompileSort(spec value.Value) (*Sort, error) {
	s := &Sort{}
	if spec.Kind() == value.Missing || spec.Kind() == value.Null {
		return s, nil
	}
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "invalid sort: the sort must be an object such as {\"age\":-1}, got %s", spec.TypeName())
	}
	for _, f := range spec.Fields() {
		desc, err := value.SortDirection(f.Key, f.Value)
		if err != nil {
			return nil, err
		}
		path := f.Key
		if value.IsTextScoreMeta(f.Value) {
			path = TextScoreField
		} else if err := value.CheckSortPath(f.Key); err != nil {
			return nil, err
		}
		s.keys = append(s.keys, SortKey{Path: path, Desc: desc})
		s.paths = append(s.paths, value.ParsePath(path))
	}
	return s, nil
}

// NeedsTextScore reports whether the sort has a {"$meta":"textScore"} key.
func (s *Sort) NeedsTextScore() bool {
	for _, k := range s.keys {
		if k.Path == TextScoreField {
			return true
		}
	}
	return false
}

// Keys returns the sort keys in order (empty for the natural order).
func (s *Sort) Keys() []SortKey {
	return append([]SortKey(nil), s.keys...)
}

// Compare returns -1, 0 or +1 as document a sorts before, with or after b.
// Documents equal on every key are ordered by _id ascending. Under the
// natural order (no keys) it returns 0, so a stable sort keeps the input
// order.
func (s *Sort) Compare(a, b value.Value) int {
	if len(s.keys) == 0 {
		return 0
	}
	for i, k := range s.keys {
		c := value.CompareSortVals(s.keyOf(a, i), s.keyOf(b, i))
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return value.Compare(a.Get("_id"), b.Get("_id"))
}

// AppendKey appends an encoding of doc's place in the sort: for any
// documents a and b, bytes.Compare of their keys has the sign of
// Compare(a, b). External sorts (package internal/spill) order documents
// by it without decoding them again.
func (s *Sort) AppendKey(dst []byte, doc value.Value) []byte {
	if len(s.keys) == 0 {
		return dst
	}
	for i, k := range s.keys {
		dst = value.AppendSortKey(dst, s.keyOf(doc, i), k.Desc)
	}
	return value.AppendKey(dst, doc.Get("_id"))
}

// SortOf returns the Sort of a sort specification compiled for the
// aggregation language ($sort), whose keys are already checked.
func SortOf(spec *value.SortSpec) *Sort {
	s := &Sort{}
	for i := range spec.Len() {
		path, desc := spec.Key(i)
		s.keys = append(s.keys, SortKey{Path: path, Desc: desc})
		s.paths = append(s.paths, value.ParsePath(path))
	}
	return s
}
