package query

import (
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/value"
)

// CompileSortCollation is CompileSort with a collation: strings, also
// inside arrays and embedded documents, order by coll, and an array's
// smallest (ascending) or largest (descending) element is chosen by it.
// A nil coll is CompileSort.
func CompileSortCollation(spec value.Value, coll *collation.Collation) (*Sort, error) {
	s, err := CompileSort(spec)
	if err != nil {
		return nil, err
	}
	s.coll = coll
	return s, nil
}

// WithCollation returns a copy of s that orders strings by coll (nil
// for a nil s).
func (s *Sort) WithCollation(coll *collation.Collation) *Sort {
	if s == nil {
		return nil
	}
	c := *s
	c.coll = coll
	return &c
}

// Collation returns the collation the sort orders strings by; nil is
// binary order.
func (s *Sort) Collation() *collation.Collation {
	if s == nil {
		return nil
	}
	return s.coll
}

// keyOf is doc's sort key for the i-th key. With a collation, the value
// at the path's first field is mapped to collation keys first, so that
// an array's extreme element is chosen by the collation.
func (s *Sort) keyOf(doc value.Value, i int) value.SortVal {
	if s.coll != nil && doc.Kind() == value.Object {
		first := s.paths[i].Parts[0]
		doc = value.ObjectValue([]value.Field{{Key: first, Value: s.coll.Map(doc.Get(first))}})
	}
	return value.SortKeyOf(doc, &s.paths[i], s.keys[i].Desc)
}
