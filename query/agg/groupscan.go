package agg

import (
	"context"
	"time"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// GroupScan is the start of a pipeline, an optional leading $match in the
// filter language and a $group, run over documents given as stored JSON
// on several goroutines with the same result as Run.
//
// The work is split in two. GroupBatch.Extract, which any goroutine may
// run on a batch of its own, decodes only the fields the pipeline reads
// (as ParseFields does, into the batch's scratch memory), applies the
// $match, and evaluates each document's group key and accumulator
// arguments. GroupRun.Add then feeds the batches to the groups one at a
// time, in document order, on one goroutine. Every accumulator therefore
// sees the same arguments in the same order as under Run (a $sum of
// doubles, $first and $push depend on it), the groups come out in the same
// order, and an error is the first one Run would meet.
type GroupScan struct {
	p      *Pipeline
	filter *query.Filter // the leading $match; nil without one
	group  *groupStage
	id     scanArg
	args   []scanArg // per accumulator, its argument (nil for $count)
	keep   []bool    // per accumulator: its state may hold on to its argument
	rest   []stage   // the stages after the $group
	prune  *value.FieldSet
	// inPlace: the key and arguments are fields and constants, never the
	// whole document, so a document's own fields may stay in the
	// decoder's scratch memory (value.NewDecoder).
	inPlace bool
	// direct, without a $match when the key and arguments are fields and
	// constants and no field read is inside another, is the tree of their
	// paths: Extract reads their values from the stored JSON
	// (value.Decoder.ReadSlots), decoding no object on the way.
	direct value.SlotTree
}

// scanAccumulators are the accumulators a GroupScan runs, with whether
// their state may keep the argument it is given (which must then be
// copied out of the batch's memory). The others read the whole document
// ($top, $bottom) or take an "n".
var scanAccumulators = map[string]bool{
	"$sum": false, "$avg": false, "$count": false, "$stdDevPop": false, "$stdDevSamp": false,
	"$min": true, "$max": true, "$first": true, "$last": true, "$push": true, "$addToSet": true, "$mergeObjects": true,
}

// GroupScan returns the pipeline's GroupScan, when it starts with an
// optional $match (without $expr) and a $group that reads only fields of
// the documents (Fields), with the accumulators $sum, $avg, $count, $min,
// $max, $first, $last, $push, $addToSet, $mergeObjects, $stdDevPop or
// $stdDevSamp. ok is false otherwise.
func (p *Pipeline) GroupScan() (g *GroupScan, ok bool) {
	if !p.fieldsOK {
		return nil, false
	}
	g = &GroupScan{p: p}
	i := 0
	if i < len(p.stages) {
		if m, ok := p.stages[i].(*matchStage); ok {
			fm, ok := m.m.(filterMatcher)
			if !ok || fm.f.HasExpr() {
				return nil, false
			}
			g.filter = fm.f
			i++
		}
	}
	if i >= len(p.stages) {
		return nil, false
	}
	s, ok := p.stages[i].(*groupStage)
	if !ok || s.stage != "$group" || s.order != nil || s.id == nil {
		return nil, false
	}
	g.id = newScanArg(s.id)
	for _, a := range s.accs {
		keep, ok := scanAccumulators[a.Op]
		if !ok || a.N != nil || a.Sort != nil {
			return nil, false
		}
		g.keep = append(g.keep, keep)
		g.args = append(g.args, newScanArg(a.Input))
	}
	g.group, g.rest, g.prune = s, p.stages[i+1:], value.NewFieldSet(p.fields)
	g.inPlace = g.id.path != nil || g.id.lit
	for _, a := range g.args {
		g.inPlace = g.inPlace && (a.expr == nil || a.path != nil || a.lit)
	}
	if g.inPlace && g.filter == nil {
		g.direct = g.directTree()
	}
	return g, true
}

// directTree returns the tree of the paths of the key and arguments,
// setting each one's slot, or an empty tree when one path is the prefix of
// another.
func (g *GroupScan) directTree() value.SlotTree {
	var t value.SlotTree
	args := []*scanArg{&g.id}
	for i := range g.args {
		args = append(args, &g.args[i])
	}
	for _, a := range args {
		if a.path == nil {
			continue
		}
		slot, ok := t.Add(a.path)
		if !ok {
			return value.SlotTree{}
		}
		a.slot = slot
	}
	return t
}

// Filter returns the leading $match's filter, or nil: a store runs the
// GroupScan only when no index serves it better.
func (g *GroupScan) Filter() *query.Filter { return g.filter }

// GroupRun is one run of a GroupScan. Its methods other than NewBatch are
// for one goroutine.
type GroupRun struct {
	g     *GroupScan
	r     *runState
	now   value.Value
	b     *budget
	index map[string]*group
	order []*group
}

// Start begins a run; env is as for Run.
func (g *GroupScan) Start(ctx context.Context, env Env) *GroupRun {
	now := g.p.opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	run := &GroupRun{g: g, now: value.DateValue(now.UnixMilli()), index: map[string]*group{}}
	run.r = run.newRunState(ctx, env)
	run.b = run.r.budget(g.group.stage)
	return run
}

func (run *GroupRun) newRunState(ctx context.Context, env Env) *runState {
	r := &runState{ctx: ctx, env: env, opts: &run.g.p.opts}
	r.ec = &expr.EvalCtx{Vars: make([]value.Value, run.g.p.slots), Now: run.now, Ctx: ctx}
	return r
}

// GroupBatch holds what Extract read from a batch of documents, in
// memory reused from batch to batch. A batch is for one goroutine at a
// time; the documents given to Extract must stay unchanged until Add
// has taken the batch.
type GroupBatch struct {
	run  *GroupRun
	r    *runState // the batch's own, for evaluating
	dec  *value.Decoder
	keys []byte        // the group keys (AppendKey), one after the other
	ends []int         // per document kept, the end of its key in keys
	ids  []value.Value // per document kept, its group _id
	args []value.Value // per document kept, one argument per accumulator
	err  error         // the error that ended the batch, after its documents
}

// NewBatch returns an empty batch for the run; it may be called from any
// goroutine.
func (run *GroupRun) NewBatch() *GroupBatch {
	return &GroupBatch{run: run, r: run.newRunState(run.r.ctx, run.r.env), dec: value.NewDecoder(run.g.inPlace)}
}

// Reset empties the batch for new documents.
func (b *GroupBatch) Reset() {
	b.dec.Reset()
	clear(b.ids)
	clear(b.args)
	b.keys, b.ends, b.ids, b.args, b.err = b.keys[:0], b.ends[:0], b.ids[:0], b.args[:0], nil
}

// Extract reads the next document of the batch, given as its canonical
// JSON. A document that does not parse returns the parser's error (the
// caller ends the batch with Fail). An error of the pipeline itself (a
// group key that does not evaluate) is kept for Add to report after the
// documents before it, and more is false: the batch takes no more.
func (b *GroupBatch) Extract(doc []byte) (more bool, err error) {
	if b.err != nil {
		return false, nil
	}
	if ctx := b.r.ctx; ctx != nil {
		if b.err = ctx.Err(); b.err != nil {
			return false, nil
		}
	}
	g := b.run.g
	var v value.Value
	slots, direct := b.readSlots(doc)
	if !direct {
		if v, err = b.dec.DecodeFields(doc, g.prune); err != nil {
			return false, err
		}
		if g.filter != nil {
			ok, err := g.filter.MatchContext(b.r.ctx, v)
			if err != nil {
				b.err = err
				return false, nil
			}
			if !ok {
				return true, nil
			}
		}
	}
	id, err := b.eval(&g.id, v, slots)
	if err != nil {
		b.err = err
		return false, nil
	}
	if id.IsMissing() {
		id = value.NullValue()
	}
	start := len(b.args)
	for i := range g.args {
		var arg value.Value
		if a := &g.args[i]; a.expr != nil {
			if arg, err = b.eval(a, v, slots); err != nil {
				b.args = b.args[:start]
				b.err = err
				return false, nil
			}
		}
		b.args = append(b.args, arg)
	}
	b.keys = value.AppendKey(b.keys, g.group.coll.Map(id))
	b.ends = append(b.ends, len(b.keys))
	b.ids = append(b.ids, id)
	return true, nil
}

// readSlots reads the values of the key's and the arguments' paths
// straight from doc when the scan can (GroupScan.direct); slots is nil
// when it cannot.
func (b *GroupBatch) readSlots(doc []byte) (slots []value.Value, ok bool) {
	if slots, ok = b.dec.ReadSlots(doc, &b.run.g.direct); !ok {
		return nil, false
	}
	return slots, true
}

// eval evaluates a key or an argument for the document, decoded as doc,
// or read by the decoder into slots when they are not nil (direct).
func (b *GroupBatch) eval(a *scanArg, doc value.Value, slots []value.Value) (value.Value, error) {
	if slots != nil && a.path != nil {
		return slots[a.slot], nil
	}
	return a.eval(b.r, doc)
}

// scanArg evaluates a group key or an accumulator's argument as Run's
// $group does, a field path or a constant without the evaluator.
type scanArg struct {
	expr expr.Node // nil for $count's argument
	path []string  // a path of the document ("$a.b")
	slot int       // with GroupScan.direct, the path's value's slot
	lit  bool      // a constant, in val
	val  value.Value
}

func newScanArg(e expr.Node) scanArg {
	a := scanArg{expr: e}
	switch n := e.(type) {
	case *expr.Var:
		// $$CURRENT (slot 0) and $$ROOT (-1) are the document in a
		// top-level $group.
		if (n.Slot == 0 || n.Slot < 0) && len(n.Path) > 0 {
			a.path = n.Path
		}
	case expr.Literal:
		a.lit, a.val = true, n.Value
	}
	return a
}

func (a scanArg) eval(r *runState, doc value.Value) (value.Value, error) {
	switch {
	case a.path != nil:
		return expr.WalkPath(doc, a.path), nil
	case a.lit:
		return a.val, nil
	}
	return r.eval(a.expr, doc)
}

// Fail ends the batch with err, after the documents extracted so far.
func (b *GroupBatch) Fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Add feeds a batch's documents to the groups, as the $group of Run would
// have, and then returns the batch's error, if it has one. Batches must
// come in document order.
func (run *GroupRun) Add(b *GroupBatch) error {
	s, nacc := run.g.group, len(run.g.group.accs)
	start := 0
	for i, end := range b.ends {
		key := b.keys[start:end]
		start = end
		g := run.index[string(key)]
		if g == nil {
			id := value.Clone(b.ids[i])
			var err error
			if g, err = s.newGroup(run.r, id); err != nil {
				return err
			}
			run.index[string(key)] = g
			run.order = append(run.order, g)
			if err := run.b.grow(64 + int64(len(key)) + value.Size(id) + 48*int64(nacc)); err != nil {
				return err
			}
		}
		for j, arg := range b.args[i*nacc : (i+1)*nacc] {
			if run.g.keep[j] {
				arg = value.Clone(arg)
			}
			n, err := g.states[j].Add(arg, value.Value{})
			if err != nil {
				return err
			}
			if err := run.b.grow(n); err != nil {
				return err
			}
		}
	}
	return b.err
}

// Source returns the output of the pipeline: the groups, through the
// stages after the $group.
func (run *GroupRun) Source() Source {
	out := make([]value.Value, len(run.order))
	for i, g := range run.order {
		out[i] = run.g.group.result(g)
	}
	return run.r.runStages(run.g.rest, SliceSource(out))
}
