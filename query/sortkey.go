package query

import (
	"slices"
	"strconv"
	"strings"
)

// sortSpec is a compiled sort specification ({"a":1,"b.c":-1}) for $sort,
// $sortArray, $top/$bottom and $setWindowFields-like uses. It follows
// MongoDB's sort semantics: an array sorts by its smallest element
// ascending and its largest descending, a missing field sorts as null,
// and an empty array sorts below null.
//
// (Private until the filter branch's CompileSort lands; then the two
// should be unified.)
type sortSpec struct {
	fields []sortField
}

type sortField struct {
	path []string
	desc bool
}

// sortKey is one field's key of one document; undef marks an empty
// array, which sorts below every value.
type sortKey struct {
	v     Value
	undef bool
}

// compileSortSpec compiles a sort document; where names the stage or
// operator for messages.
func compileSortSpec(where string, spec Value) (*sortSpec, error) {
	if spec.Kind() != Object {
		return nil, Errorf(Invalid, "%s: the sort specification must be an object, found %s", where, spec.TypeName())
	}
	if spec.Len() == 0 {
		return nil, Errorf(Invalid, "%s: the sort specification must have at least one sort key", where)
	}
	s := &sortSpec{}
	for _, f := range spec.Fields() {
		desc, err := sortDirection(where, f)
		if err != nil {
			return nil, err
		}
		if f.Key == "" || strings.HasPrefix(f.Key, "$") || slices.Contains(strings.Split(f.Key, "."), "") {
			return nil, Errorf(Invalid, "%s: invalid sort field name %q", where, f.Key)
		}
		s.fields = append(s.fields, sortField{strings.Split(f.Key, "."), desc})
	}
	return s, nil
}

func sortDirection(where string, f Field) (bool, error) {
	if f.Value.Kind() == Object && f.Value.Get("$meta").Kind() != Missing {
		return false, Errorf(Invalid, "%s: $meta sort keys are not supported: omgdb has no text score", where).
			WithHint("use the `search` command for relevance-ranked full-text results")
	}
	i, ok := exactInt(f.Value)
	if !ok || (i != 1 && i != -1) {
		return false, Errorf(Invalid, "%s: sort key ordering for `%s` must be 1 (for ascending) or -1 (for descending), found %s", where, f.Key, f.Value)
	}
	return i == -1, nil
}

// keys computes the sort keys of doc.
func (s *sortSpec) keys(doc Value) []sortKey {
	keys := make([]sortKey, len(s.fields))
	for i, f := range s.fields {
		keys[i] = sortKeyOf(doc, f.path, f.desc)
	}
	return keys
}

// compareKeys orders two documents by their keys, direction applied.
func (s *sortSpec) compareKeys(a, b []sortKey) int {
	for i, f := range s.fields {
		c := compareSortKeys(a[i], b[i])
		if f.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// compare orders two documents.
func (s *sortSpec) compare(a, b Value) int { return s.compareKeys(s.keys(a), s.keys(b)) }

func compareSortKeys(a, b sortKey) int {
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

// sortKeyOf finds the key of one sort field: the least (ascending) or
// greatest (descending) of the values at path.
func sortKeyOf(doc Value, path []string, desc bool) sortKey {
	var best Value
	found, sawEmpty := false, false
	consider := func(v Value) {
		if v.IsMissing() {
			v = NullValue()
		}
		if !found {
			best, found = v, true
			return
		}
		if c := Compare(v, best); (c < 0 && !desc) || (c > 0 && desc) {
			best = v
		}
	}
	collectSortValues(doc, path, func(v Value) {
		if v.Kind() != Array {
			consider(v)
			return
		}
		if v.Len() == 0 {
			sawEmpty = true
		}
		for _, e := range v.Array() {
			consider(e)
		}
	})
	switch {
	case found:
		return sortKey{v: best}
	case sawEmpty:
		return sortKey{undef: true}
	}
	return sortKey{v: NullValue()}
}

// collectSortValues calls emit with each value reachable by path,
// traversing arrays of objects; a numeric component also indexes arrays.
func collectSortValues(v Value, path []string, emit func(Value)) {
	if len(path) == 0 {
		emit(v)
		return
	}
	switch v.Kind() {
	case Object:
		collectSortValues(v.Get(path[0]), path[1:], emit)
	case Array:
		if i, err := strconv.Atoi(path[0]); err == nil && i >= 0 {
			if i < v.Len() {
				collectSortValues(v.Index(i), path[1:], emit)
			}
			return
		}
		for _, e := range v.Array() {
			if e.Kind() == Object {
				collectSortValues(e, path, emit)
			}
		}
	default:
		emit(MissingValue)
	}
}
