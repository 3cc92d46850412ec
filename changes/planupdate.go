package changes

import (
	"context"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/store"
)

// PlanUpdate plans an update of the documents of coll that match filter:
// update operators ({"$set":…}) or a replacement document, with
// opts.ArrayFilters for $[<identifier>] paths. Nothing is written but the
// plan: every matched document with its before- and after-image (the
// update runs now, at planning, so $currentDate takes the planning time)
// and a digest of its bytes. Modified counts the documents that change.
// With opts.Upsert and no match, the plan inserts the document MongoDB
// would (the filter's equalities, then the update with $setOnInsert), with
// an ObjectId _id when neither sets one; the collection is created on
// apply if needed. Apply the plan with Apply.
func PlanUpdate(ctx context.Context, db *store.DB, coll string, filter, update query.Value, opts *PlanOptions) (*PlanResult, error) {
	if opts == nil {
		opts = &PlanOptions{}
	}
	f, err := compileFilter(filter)
	if err != nil {
		return nil, err
	}
	u, err := query.CompileUpdate(update, &query.UpdateOptions{ArrayFilters: opts.ArrayFilters})
	if err != nil {
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

// planUpdate plans an update in tx, and reports whether the collection
// is missing (only an upsert may plan on a missing collection).
func planUpdate(ctx context.Context, tx *store.Tx, b *builder, f *query.Filter, u *query.Update, filter query.Value, opts *PlanOptions) (bool, error) {
	c, err := tx.Collection(b.p.Collection)
	missing := isNotFound(err)
	if err != nil && !(missing && opts.Upsert) {
		return missing, err
	}
	if err := b.begin(tx); err != nil {
		return missing, err
	}
	if !missing {
		if err := planMatches(ctx, b, c, f, u, filter, opts.First); err != nil {
			return missing, err
		}
	}
	if opts.Upsert && b.p.Matched == 0 {
		doc, err := upsertDoc(u, filter, b)
		if err != nil {
			return missing, err
		}
		b.p.upsertNew = true
		if err := b.add(item{coll: b.p.Collection, id: doc.Get("_id"), op: opInsert, after: doc}); err != nil {
			return missing, err
		}
	}
	return missing, b.save(tx)
}

// planMatches runs the update on every matching document.
func planMatches(ctx context.Context, b *builder, c *store.Collection, f *query.Filter, u *query.Update, filter query.Value, first bool) error {
	actx := query.ApplyContext{Now: b.p.Created, Query: filter}
	return scanMatches(ctx, c, f, first, func(js []byte, doc query.Value) error {
		b.p.Matched++
		id := doc.Get("_id")
		it := item{coll: c.Name(), id: id, op: opNone, digest: digest(js)}
		after, changed, err := u.Apply(doc, actx)
		if err == nil && changed {
			after, err = query.PrepareDocument(after)
			it.op, it.before, it.after = opUpdate, doc, after
		}
		if err != nil {
			return updateError(c.Name(), id, err)
		}
		return b.add(it)
	})
}

// upsertDoc returns the document an upsert inserts.
func upsertDoc(u *query.Update, filter query.Value, b *builder) (query.Value, error) {
	seed, err := query.UpsertSeed(filter)
	if err != nil {
		return query.Value{}, err
	}
	doc, _, err := u.Apply(seed, query.ApplyContext{Now: b.p.Created, Insert: true, Query: filter})
	if err != nil {
		return query.Value{}, err
	}
	if doc.Get("_id").IsMissing() {
		doc = query.ObjectValue(append([]query.Field{{Key: "_id", Value: query.ObjectIDValue(query.NewOID())}}, doc.Fields()...))
	}
	return query.PrepareDocument(doc)
}

// updateError names the document an update failed on.
func updateError(coll string, id query.Value, err error) error {
	e := query.Errorf(query.KindOf(err), "update of _id %s in `%s`: %v", id, coll, err)
	e.Err, e.Hint = err, query.HintOf(err)
	if e.Hint == "" {
		e.Hint = "nothing was planned; fix the update (or narrow the filter) and plan again"
	}
	return e
}
