package store

import (
	"context"
	"runtime"

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
	if src, ok := c.groupScan(ctx, p); ok {
		return src
	}
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

// groupScan runs a pipeline that starts with a $group (after an optional
// $match that no index serves) over the stored JSON (query.GroupScan: the
// result is the same), on several goroutines when the collection is
// large, the transaction is a read and the machine has two cores or more.
// ok is false when the pipeline has no such start.
func (c *Collection) groupScan(ctx context.Context, p *query.Pipeline) (src query.Source, ok bool) {
	g, ok := p.GroupScan()
	if !ok {
		return nil, false
	}
	if f := g.Filter(); f != nil {
		ch, err := c.planQuery(Query{Filter: f}, false)
		if err != nil || ch.plan.Stage != "COLLSCAN" {
			return nil, false
		}
	}
	run := g.Start(ctx, c.tx.Env())
	newBatch := func() *scanBatch { return &scanBatch{group: run.NewBatch()} }
	work := func(b *scanBatch) {
		for _, raw := range b.vals {
			js, err := docJSON(raw)
			if err != nil {
				b.group.Fail(err)
				return
			}
			more, err := b.group.Extract(js)
			if err != nil {
				b.group.Fail(corruptValue(err.Error()))
				return
			}
			if !more {
				return
			}
		}
	}
	use := func(b *scanBatch) error {
		if err := run.Add(b.group); err != nil {
			return err
		}
		return b.err
	}
	scan := c.scanSerial
	if !c.tx.writable && c.count >= parallelScanMin && runtime.GOMAXPROCS(0) >= 2 {
		scan = c.scanParallel
	}
	if err := scan(ctx, newBatch, work, use); err != nil {
		return &sliceSource{err: err}, true
	}
	return run.Source(), true
}
