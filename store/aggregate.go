package store

import (
	"context"
	"errors"
	"runtime"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// Env returns the environment a pipeline runs in within tx: $lookup and
// $unionWith read the other collections of the store through it, as of
// the same transaction.
func (tx *Tx) Env() agg.Env { return txEnv{tx} }

type txEnv struct{ tx *Tx }

func (e txEnv) Collection(ctx context.Context, name string) (agg.Source, error) {
	c, err := e.tx.Collection(name)
	if err != nil {
		return nil, err
	}
	return c.Find(ctx, Query{}), nil
}

// AggregateOptions change how Aggregate reads. The zero value (or nil)
// reads the collection as it is, and resolves $lookup and $unionWith in
// the same transaction.
type AggregateOptions struct {
	// Env resolves the collections $lookup and $unionWith name; nil means
	// the transaction's (Tx.Env).
	Env agg.Env
	// Redact, when set, rewrites every document as it is read, before any
	// stage sees it (see Query.Redact). The pipeline then reads a plain
	// collection scan of decoded documents: no index bounds, order or
	// stored-JSON shortcut could reveal a removed value.
	Redact func(value.Value) value.Value
}

// Aggregate runs a compiled pipeline over the collection's documents. A
// leading $match (without $expr) goes to the planner, so an index can
// narrow what is read; a $sort that leads or follows it is left to the
// index when one gives that order, and to the pipeline otherwise; a
// leading $match and $group over a collection scan run on the stored
// JSON (agg.GroupScan).
func (c *Collection) Aggregate(ctx context.Context, p *agg.Pipeline, opts *AggregateOptions) agg.Source {
	if opts == nil {
		opts = &AggregateOptions{}
	}
	env := opts.Env
	if env == nil {
		env = c.tx.Env()
	}
	if g, rest := p.GeoNear(); g != nil {
		return rest.Run(ctx, c.geoNear(ctx, g, opts.Redact), env)
	}
	if filter, _, afterMatch, _ := p.Leading(); filter.Text() != nil {
		// $text: the store binds it to the text index and adds each
		// document's score, which the pipeline reads and the output loses.
		q := Query{Filter: filter, Redact: opts.Redact, keepScore: true}
		return stripScore{afterMatch.Run(ctx, c.Find(ctx, q), env)}
	}
	if opts.Redact != nil {
		return p.Run(ctx, c.Find(ctx, Query{Redact: opts.Redact}), env)
	}
	if src, ok := c.groupScan(ctx, p, env); ok {
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
			return afterSort.Run(ctx, c.execute(ctx, q, ch.plan), env)
		}
	}
	if filter != nil {
		return afterMatch.Run(ctx, c.Find(ctx, Query{Filter: filter, fields: fieldsOf(afterMatch)}), env)
	}
	return p.Run(ctx, c.Find(ctx, Query{fields: fieldsOf(p)}), env)
}

// fieldsOf returns the fields a pipeline reads, when it can tell
// (Pipeline.Fields): a collection scan then decodes only those, as
// MongoDB projects a pipeline's dependencies.
func fieldsOf(p *agg.Pipeline) *value.FieldSet {
	if paths, ok := p.Fields(); ok {
		return value.NewFieldSet(paths)
	}
	return nil
}

// groupScan runs a pipeline that starts with a $group (after an optional
// $match that no index serves) over the stored JSON (agg.GroupScan: the
// result is the same), on several goroutines when the collection is
// large, the transaction is a read and the machine has two cores or more.
// ok is false when the pipeline has no such start.
func (c *Collection) groupScan(ctx context.Context, p *agg.Pipeline, env agg.Env) (src agg.Source, ok bool) {
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
	run := g.Start(ctx, env)
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
				b.group.Fail(matchFailed(err))
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
		if errors.Is(err, agg.ErrMemoryLimit) && p.Spills() {
			// Too many groups for memory: run the pipeline again, in
			// the same transaction, on the path whose $group spills.
			return nil, false
		}
		return &sliceSource{err: err}, true
	}
	return run.Source(), true
}
