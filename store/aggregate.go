package store

import (
	"context"

	"github.com/omgdb/omgdb/query"
)

// Env returns the environment a pipeline runs in within tx: $lookup and
// $unionWith read the other collections of the store through it, as of
// the same transaction.
func (tx *Tx) Env() query.Env { return txEnv{tx} }

type txEnv struct{ tx *Tx }

func (e txEnv) Collection(ctx context.Context, name string) (query.Source, error) {
	c, err := e.tx.Collection(name)
	if err != nil {
		return nil, err
	}
	return c.Find(ctx, Query{}), nil
}

// Aggregate runs a compiled pipeline over the collection's documents. A
// leading $match (without $expr) goes to the planner, so an index can
// narrow what is read; a $sort that leads or follows it is left to the
// index when one gives that order, and to the pipeline otherwise.
func (c *Collection) Aggregate(ctx context.Context, p *query.Pipeline) query.Source {
	filter, sort, afterMatch, afterSort := p.Leading()
	if sort != nil {
		q := Query{Filter: filter, Sort: sort}
		ch, err := c.planQuery(q, false)
		if err != nil {
			return &sliceSource{err: err}
		}
		if ch.plan.sortGroup > 0 {
			return afterSort.Run(ctx, c.execute(ctx, q, ch.plan), c.tx.Env())
		}
	}
	if filter != nil {
		return afterMatch.Run(ctx, c.Find(ctx, Query{Filter: filter, fields: fieldsOf(afterMatch)}), c.tx.Env())
	}
	return p.Run(ctx, c.Find(ctx, Query{fields: fieldsOf(p)}), c.tx.Env())
}

// fieldsOf returns the fields a pipeline reads, when it can tell
// (Pipeline.Fields): a collection scan then decodes only those, as
// MongoDB projects a pipeline's dependencies.
func fieldsOf(p *query.Pipeline) *query.FieldSet {
	if paths, ok := p.Fields(); ok {
		return query.NewFieldSet(paths)
	}
	return nil
}
