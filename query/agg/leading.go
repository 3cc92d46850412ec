package agg

import (
	"github.com/omgdb/omgdb/query"
)

// Leading splits off the start of a pipeline that a store can run with
// an index: the filter of a leading $match whose conditions are all of
// the filter language (no $expr), and the sort of a $sort that leads or
// follows it. afterMatch is the pipeline after the $match (with the $sort
// still in it); afterSort the pipeline after both. A store that runs the
// filter may run afterMatch on the result; one that also returns the
// documents in the sort's order (ties by _id, as $sort orders them) may
// run afterSort instead. Either is nil when there is nothing to split.
func (p *Pipeline) Leading() (filter *query.Filter, sort *query.Sort, afterMatch, afterSort *Pipeline) {
	i := 0
	if i < len(p.stages) {
		if m, ok := p.stages[i].(*matchStage); ok {
			if fm, ok := m.m.(filterMatcher); ok {
				filter = fm.f
				i++
				afterMatch = p.rest(i)
			}
		}
	}
	if i < len(p.stages) {
		if s, ok := p.stages[i].(*sortStage); ok {
			sort = query.SortOf(s.spec).WithCollation(s.coll)
			afterSort = p.rest(i + 1)
		}
	}
	return filter, sort, afterMatch, afterSort
}

// rest returns the pipeline from stage i on. It keeps the whole
// pipeline's Fields: a superset of what its tail reads.
func (p *Pipeline) rest(i int) *Pipeline {
	return &Pipeline{stages: p.stages[i:], slots: p.slots, opts: p.opts, fields: p.fields, fieldsOK: p.fieldsOK}
}
