package store

import (
	"context"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// DefaultMaxDistinct bounds the distinct values Distinct collects when
// its max is 0.
const DefaultMaxDistinct = 100000

// Distinct returns the distinct values of field among the documents
// matching q.Filter, as MongoDB's distinct command does: the path is
// followed through arrays as filters follow it (numeric components name
// an element), an array found at its end contributes each of its
// elements (one level: an array inside it is one value), a document
// without the field contributes nothing, and null is a value. Values
// equal by MongoDB's comparison (1, 1.0 and NumberLong(1)) count once,
// as the first one met; the result is in MongoDB's sort order. q.Redact
// is honoured (q's sort, paging and projection are not used). More than
// max distinct values (DefaultMaxDistinct when 0) is an errs.Limit error.
func (c *Collection) Distinct(ctx context.Context, field string, q Query, max int) ([]value.Value, error) {
	if err := checkDistinctField(field); err != nil {
		return nil, err
	}
	src := c.Find(ctx, Query{Filter: q.Filter, Hint: q.Hint, Redact: q.Redact})
	defer src.Close()
	return DistinctValuesCollation(src, field, max, q.Filter.Collation())
}

// DistinctValues reads src to its end and returns the distinct values of
// field in its documents, as Collection.Distinct does: src is the
// documents a filter matched, such as changes.FindAt's for a distinct at
// a past revision. More than max distinct values (DefaultMaxDistinct when
// 0) is an errs.Limit error.
func DistinctValues(src agg.Source, field string, max int) ([]value.Value, error) {
	return DistinctValuesCollation(src, field, max, nil)
}

// DistinctValuesCollation is DistinctValues with strings compared by
// coll: of strings equal under it, the first met is kept, and the result
// is in its order. A nil coll is DistinctValues.
func DistinctValuesCollation(src agg.Source, field string, max int, coll *collation.Collation) ([]value.Value, error) {
	if err := checkDistinctField(field); err != nil {
		return nil, err
	}
	if max <= 0 {
		max = DefaultMaxDistinct
	}
	set := distinctSet{coll: coll}
	for src.Next() {
		for _, v := range query.Lookup(src.Doc(), field) {
			if v.Kind() != value.Array {
				set.add(v)
				continue
			}
			for _, e := range v.Array() {
				set.add(e)
			}
		}
		if set.over(max) {
			return nil, errs.Errorf(errs.Limit, "distinct `%s` has more than %d values", field, max).
				WithHint("narrow it with a filter")
		}
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	return set.sorted(), nil
}

func checkDistinctField(field string) error {
	switch {
	case field == "":
		return errs.Errorf(errs.Invalid, "distinct: the field is empty").WithHint(`name a field, e.g. "city" or "address.city"`)
	case strings.HasPrefix(field, "$"):
		return errs.Errorf(errs.Invalid, "distinct: field `%s` starts with $", field).WithHint(`name the field without $, e.g. "city"`)
	case strings.HasPrefix(field, ".") || strings.HasSuffix(field, ".") || strings.Contains(field, ".."):
		return errs.Errorf(errs.Invalid, "distinct: field `%s` has an empty path component", field).WithHint(`write a dotted path such as "address.city"`)
	}
	return nil
}

// distinctSet collects values, keeping the first of values that compare
// equal. It appends, and sorts and compacts when it has doubled since it
// last did, so that memory follows the distinct values, not the matches.
type distinctSet struct {
	vals []value.Value
	done int                  // vals[:done] are sorted and distinct
	coll *collation.Collation // compares strings; nil: binary
}

func (s *distinctSet) add(v value.Value) {
	s.vals = append(s.vals, v)
	if len(s.vals) >= 2*s.done+64 {
		s.compact()
	}
}

// over reports whether the set holds more than max distinct values.
func (s *distinctSet) over(max int) bool {
	if len(s.vals) <= max {
		return false
	}
	s.compact()
	return s.done > max
}

func (s *distinctSet) compact() {
	// A stable sort keeps the first met of equal values first.
	slices.SortStableFunc(s.vals, s.coll.Compare)
	s.vals = slices.CompactFunc(s.vals, func(a, b value.Value) bool { return s.coll.Compare(a, b) == 0 })
	s.done = len(s.vals)
}

func (s *distinctSet) sorted() []value.Value {
	s.compact()
	return s.vals
}
