package engine

import (
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Compiled is a find checked and compiled by omgdb's query language.
// Each part is nil when the specification leaves it out.
type Compiled struct {
	Filter     *query.Filter
	Projection *query.Projection
	Sort       *query.Sort
}

// Check compiles every part of q, so that a bad filter, projection or
// sort gets omgdb's error whichever engine runs it, and checks the
// paging.
func Check(q *Find) (*Compiled, error) {
	if q.Skip < 0 || q.Limit < 0 {
		return nil, errs.Errorf(errs.Usage, "skip and limit must not be negative (got skip %d, limit %d)", q.Skip, q.Limit)
	}
	c := &Compiled{}
	var err error
	if c.Filter, err = CheckFilter(q.Filter); err != nil {
		return nil, err
	}
	if !empty(q.Projection) {
		if c.Projection, err = query.CompileProjection(q.Projection); err != nil {
			return nil, err
		}
	}
	if !empty(q.Sort) {
		if c.Sort, err = query.CompileSort(q.Sort); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// CheckFilter compiles a filter; Missing and {} give nil (every document).
func CheckFilter(spec value.Value) (*query.Filter, error) {
	if empty(spec) {
		return nil, nil
	}
	return query.CompileFilter(spec)
}

// CheckPipeline compiles a pipeline with omgdb's aggregation language. It
// refuses $out and $merge: a Reader never writes.
func CheckPipeline(spec value.Value, opts *agg.PipelineOptions) (*agg.Pipeline, error) {
	return agg.CompilePipeline(spec, opts)
}

// empty reports whether a specification is left out: Missing or {}.
func empty(spec value.Value) bool {
	return spec.IsMissing() || spec.Kind() == value.Object && spec.Len() == 0
}

// CheckField checks a distinct's field path with the store file's rules
// and messages (store.CheckDistinctField).
func CheckField(field string) error { return store.CheckDistinctField(field) }
