package changes

import (
	"bytes"
	"context"
	"runtime"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// PlanUpdate plans an update of the documents of coll that match filter:
// update operators ({"$set":…}) or a replacement document, with
// opts.ArrayFilters for $[<identifier>] paths. Nothing is written but the
// plan: every matched document with its after-image (the update runs now,
// at planning, so $currentDate takes the planning time) and a digest of
// its bytes, which names its before-image (see ShowPlan). Modified counts the documents that change.
// With opts.Upsert and no match, the plan inserts the document MongoDB
// would (the filter's equalities, then the update with $setOnInsert), with
// an ObjectId _id when neither sets one; the collection is created on
// apply if needed. Apply the plan with Apply.
func PlanUpdate(ctx context.Context, db *store.DB, coll string, filter, update value.Value, opts *PlanOptions) (*PlanResult, error) {
	if opts == nil {
		opts = &PlanOptions{}
	}
	f, u, err := compileUpdate(filter, update, opts.ArrayFilters)
	if err != nil {
		return nil, err
	}
	if err := checkCollation(opts); err != nil {
		return nil, err
	}
	b := newBuilder(KindUpdate, opts)
	b.p.Collection, b.p.Filter, b.p.Update = coll, &Doc{filter}, &Doc{update}
	for _, af := range opts.ArrayFilters {
		b.p.ArrayFilters = append(b.p.ArrayFilters, Doc{af})
	}
	var missing bool
	err = db.Update(store.Change{Kind: "plan"}, func(tx *store.Tx) error {
		missing, err = planUpdate(ctx, tx, b, f, u, filter, opts)
		return err
	})
	if err != nil {
		return nil, err
	}
	res := b.result()
	if missing {
		res.Message = "collection `" + coll + "` does not exist: applying this plan creates it with the upserted document"
	}
	return res, nil
}

// compileUpdate compiles an update's filter and update.
func compileUpdate(filter, update value.Value, arrayFilters []value.Value) (*query.Filter, *query.Update, error) {
	f, err := compileFilter(filter)
	if err != nil {
		return nil, nil, err
	}
	u, err := CompileUpdate(update, &query.UpdateOptions{ArrayFilters: arrayFilters})
	return f, u, err
}

// planUpdate plans an update in tx, and reports whether the collection
// is missing (only an upsert may plan on a missing collection).
func planUpdate(ctx context.Context, tx *store.Tx, b *builder, f *query.Filter, u *query.Update, filter value.Value, opts *PlanOptions) (bool, error) {
	if _, err := tx.Collection(b.p.Collection); err != nil && !(isNotFound(err) && opts.Upsert) {
		return false, err
	}
	if err := b.begin(tx); err != nil {
		return false, err
	}
	defer b.w.finish()
	f, err := collatedFilter(tx, b.p.Collection, filter, f, opts)
	if err != nil {
		return false, err
	}
	missing, err := collectUpdates(ctx, tx, b, f, u, filter, opts)
	if err != nil {
		return missing, err
	}
	return missing, b.save(tx)
}

// collectUpdates adds to b the update of every document of its collection
// that f matches (the first only, with opts.First), or the upserted
// document, and reports whether the collection is missing (an error
// unless opts.Upsert).
func collectUpdates(ctx context.Context, tx *store.Tx, b *builder, f *query.Filter, u *query.Update, filter value.Value, opts *PlanOptions) (bool, error) {
	c, err := tx.Collection(b.p.Collection)
	missing := isNotFound(err)
	if err != nil && !(missing && opts.Upsert) {
		return missing, err
	}
	if !missing {
		if err := planMatches(ctx, b, c, f, u, filter, opts.First); err != nil {
			return missing, err
		}
	}
	if opts.Upsert && b.p.Matched == 0 {
		doc, err := query.UpsertDocument(u, filter, b.p.Created)
		if err != nil {
			return missing, err
		}
		b.p.upsertNew = true
		if err := b.add(item{coll: b.p.Collection, id: doc.Get("_id"), op: opInsert, after: doc}); err != nil {
			return missing, err
		}
	}
	return missing, nil
}

// planMatches runs the update on every matching document. Unless only the
// first match is wanted, a second goroutine decodes and updates the
// matches while this one scans, matches and writes the plan (see
// matchPipeline); the items are added in _id order either way.
func planMatches(ctx context.Context, b *builder, c *store.Collection, f *query.Filter, u *query.Update, filter value.Value, first bool) error {
	actx := query.ApplyContext{Now: b.p.Created, Query: filter, Context: ctx}
	plan := func(js []byte, doc value.Value) (item, error) {
		id := doc.Get("_id")
		it := item{coll: c.Name(), id: id, op: opNone, digest: digest(js)}
		after, changed, err := u.Apply(doc, actx)
		if err == nil && changed {
			after, err = value.PrepareDocument(after)
			it.op, it.before, it.after = opUpdate, doc, after
			it.afterJSON = value.AppendJSON(nil, after)
		}
		if err != nil && ctx.Err() != nil {
			return item{}, ctx.Err() // the deadline, not a fault of the document
		}
		if err != nil {
			return item{}, query.DocumentError(c.Name(), id, err)
		}
		return it, nil
	}
	add := func(it item) error {
		b.p.Matched++
		return b.add(it)
	}
	var raw func(js []byte) (item, bool)
	if ru := compileRawUpdate(b.p.Update.Value); ru != nil && len(b.p.ArrayFilters) == 0 {
		raw = func(js []byte) (item, bool) {
			after, changed, ok := ru.apply(js)
			if !ok {
				return item{}, false
			}
			doc, err := value.ParseFields(js, idOnly)
			if err != nil {
				return item{}, false
			}
			it := item{coll: c.Name(), id: doc.Get("_id"), op: opNone, digest: digest(js)}
			if changed {
				it.op, it.afterJSON, it.beforeJSON = opUpdate, after, js
			}
			return it, true
		}
	}
	if first || runtime.GOMAXPROCS(0) < 2 {
		return scanMatches(ctx, c, f, first, func(js []byte, doc value.Value) error {
			it, err := plan(js, doc)
			if err != nil {
				return err
			}
			return add(it)
		})
	}
	return matchPipeline(ctx, c, f, raw, plan, add)
}

var idOnly = value.NewFieldSet([]string{"_id"})

// matchBatch is a run of matching documents planned by the pipeline's
// second goroutine.
type matchBatch struct {
	js    [][]byte // copies of the documents' stored JSON
	items []item
	err   error // the first failure, after the items before it
	done  chan struct{}
}

const matchBatchDocs = 256

// matchPipeline scans c for the documents f matches and hands them, in
// runs, to a goroutine that plans them (see planBatch); it adds the planned
// items in _id order as they come back. The first failure in _id order
// is returned, with the items before it added, as scanMatches would.
func matchPipeline(ctx context.Context, c *store.Collection, f *query.Filter, raw func([]byte) (item, bool), plan func([]byte, value.Value) (item, error), add func(item) error) error {
	work := make(chan *matchBatch, 4)
	var pending []*matchBatch
	go func() {
		for mb := range work {
			planBatch(mb, raw, plan)
			close(mb.done)
		}
	}()
	defer close(work)
	// drain adds the planned batches at the front, waiting for them when
	// wait is set.
	drain := func(wait bool) error {
		for len(pending) > 0 {
			mb := pending[0]
			if !wait {
				select {
				case <-mb.done:
				default:
					return nil
				}
			}
			<-mb.done
			pending = pending[1:]
			for _, it := range mb.items {
				if err := add(it); err != nil {
					return err
				}
			}
			if mb.err != nil {
				return mb.err
			}
		}
		return nil
	}
	mb := &matchBatch{done: make(chan struct{})}
	send := func() error {
		pending = append(pending, mb)
		work <- mb
		mb = &matchBatch{done: make(chan struct{})}
		return drain(len(pending) > 4)
	}
	err := scanMatchingJSON(ctx, c, f, func(_ *store.Cursor, js []byte) (bool, error) {
		if mb.js = append(mb.js, bytes.Clone(js)); len(mb.js) == matchBatchDocs {
			return true, send()
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	if len(mb.js) > 0 {
		if err := send(); err != nil {
			return err
		}
	}
	return drain(true)
}

// planBatch plans the documents of a batch, up to the first failure: on
// their stored bytes when raw (the update's raw form, when it has one)
// takes them, else decoded.
func planBatch(mb *matchBatch, raw func([]byte) (item, bool), plan func([]byte, value.Value) (item, error)) {
	mb.items = make([]item, 0, len(mb.js))
	for _, js := range mb.js {
		if raw != nil {
			if it, ok := raw(js); ok {
				mb.items = append(mb.items, it)
				continue
			}
		}
		doc, err := value.Parse(js)
		if err != nil {
			mb.err = errs.Errorf(errs.IO, "corrupt document value: %v", err).
				WithHint("run `omgdb verify` on the store; restore from a backup or salvage it")
			return
		}
		it, err := plan(js, doc)
		if err != nil {
			mb.err = err
			return
		}
		mb.items = append(mb.items, it)
	}
}
