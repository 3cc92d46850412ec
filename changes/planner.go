package changes

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// PlanOptions configures planning. The zero value plans every matching
// document, shows DefaultSample before/after pairs, and expires after
// DefaultExpiry.
type PlanOptions struct {
	Upsert bool // plan-update: insert a document when nothing matches
	// ArrayFilters are plan-update's filters for $[<identifier>] paths
	// (query.UpdateOptions). Default none.
	ArrayFilters []value.Value
	First        bool          // only the first match in _id order (--multi=false)
	Sample       int           // before/after pairs in the result; 0: DefaultSample; negative: none
	Expiry       time.Duration // how long the plan stays pending; 0: DefaultExpiry
	Actor        string        // who planned it
	Note         string        // free text kept with the plan
	// Collation is the collation document plan-update and plan-delete
	// match strings with ({"locale":"simple"} for binary); missing: the
	// collection's default (define), else binary.
	Collation value.Value
}

// PlanResult is what planning returns. The first four keys are OMGDB's.
type PlanResult struct {
	Token             string        `json:"token"`
	Matched           int64         `json:"matched"`
	Modified          int64         `json:"modified"` // documents that actually change
	SampleBeforeAfter []BeforeAfter `json:"sampleBeforeAfter"`
	Kind              string        `json:"kind"`
	Collection        string        `json:"collection,omitempty"`
	Collections       []string      `json:"collections,omitempty"`
	UpsertedID        *Doc          `json:"upsertedId,omitempty"`         // the _id an upsert inserts
	CreatesCollection bool          `json:"creates_collection,omitempty"` // a $out into a missing collection creates it
	Expires           time.Time     `json:"expires"`
	Message           string        `json:"message,omitempty"`
	NextValidActions  []string      `json:"next_valid_actions"`
}

// BeforeAfter is one document of a plan: its state now and after the
// change (null when the document does not exist on that side).
type BeforeAfter struct {
	Before Doc `json:"before"`
	After  Doc `json:"after"`
}

// builder takes a change's items as they are found, keeping a sample: a
// planner's go to its planWriter, which stores them in the plan; a
// one-step write's to a writeSink, which keeps them to write in the same
// transaction (see onestep.go).
type builder struct {
	p        *Plan
	w        *planWriter // the plan being stored; nil for a one-step write
	sink     itemSink    // w, or a one-step write's writeSink
	sample   []BeforeAfter
	n        int
	upserted *Doc
}

func newBuilder(kind string, opts *PlanOptions) *builder {
	now := time.Now().UTC()
	expiry := opts.Expiry
	if expiry <= 0 {
		expiry = DefaultExpiry
	}
	n := opts.Sample
	if n == 0 {
		n = DefaultSample
	}
	p := &Plan{Token: value.NewOID().Hex(), Kind: kind, Upsert: opts.Upsert, First: opts.First,
		Created: now, Expires: now.Add(expiry), Actor: opts.Actor, Note: opts.Note, Status: StatusPending}
	return &builder{p: p, n: n}
}

// begin starts writing the plan, retiring expired plans on the way.
func (b *builder) begin(tx *store.Tx) error {
	if err := expireOld(tx, b.p.Created); err != nil {
		return err
	}
	w, err := newPlanWriter(tx, b.p.Token)
	b.w, b.sink = w, w
	return err
}

// itemSink takes the items of a change as the builder finds them.
type itemSink interface {
	add(it *item) error
}

func (b *builder) add(it item) error {
	b.p.items++
	if it.op != opNone {
		b.p.Modified++
		if len(b.sample) < b.n {
			b.sample = append(b.sample, sampleOf(&it))
		}
		if it.op == opInsert && b.p.Kind == KindUpdate {
			b.upserted = &Doc{it.id}
		}
	}
	return b.sink.add(&it)
}

// sampleOf returns an item's before and after, decoding the images of an
// update planned on the stored bytes.
func sampleOf(it *item) BeforeAfter {
	before, after := it.before, it.after
	if before.IsMissing() && it.beforeJSON != nil {
		before, _ = value.Parse(it.beforeJSON)
	}
	if after.IsMissing() && it.afterJSON != nil && it.op == opUpdate {
		after, _ = value.Parse(it.afterJSON)
	}
	return BeforeAfter{Before: Doc{before}, After: Doc{after}}
}

// save writes the last items and the header.
func (b *builder) save(tx *store.Tx) error {
	b.p.BaseLSN = tx.LastLSN()
	if err := b.w.close(); err != nil {
		return err
	}
	return saveHeader(tx, b.p)
}

func (b *builder) result() *PlanResult {
	p := b.p
	r := &PlanResult{Token: p.Token, Matched: p.Matched, Modified: p.Modified, SampleBeforeAfter: b.sample,
		Kind: p.Kind, Collection: p.Collection, Collections: p.Collections, Expires: p.Expires,
		UpsertedID: b.upserted, CreatesCollection: p.CreateTarget, NextValidActions: []string{ActionApply, ActionShow, ActionDiscard}}
	if r.SampleBeforeAfter == nil {
		r.SampleBeforeAfter = []BeforeAfter{}
	}
	switch {
	case p.CreateTarget && p.Modified == 0:
		r.Message = fmt.Sprintf("the pipeline returns no document: applying this plan creates `%s`, empty", p.Collection)
	case p.Kind == KindRevert && p.Modified == 0:
		r.Message = fmt.Sprintf("the store is already as it was at revision %s: applying this plan changes nothing", p.Revision.Spec)
	case p.Matched == 0 && p.Modified == 0:
		r.Message = fmt.Sprintf("the filter matches no document in `%s`: applying this plan changes nothing", p.Collection)
	case p.Modified == 0:
		r.Message = "no matched document would change: applying this plan changes nothing"
	}
	return r
}

// compileFilter compiles a filter document; {} compiles to nil (all).
func compileFilter(spec value.Value) (*query.Filter, error) {
	if spec.Kind() == value.Object && spec.Len() == 0 {
		return nil, nil
	}
	return query.CompileFilter(spec)
}

// scanMatches calls fn with the canonical JSON and the value of each
// document of c that matches f, in _id order; only the first with first.
// The JSON is valid only during the call.
func scanMatches(ctx context.Context, c *store.Collection, f *query.Filter, first bool, fn func(js []byte, doc value.Value) error) error {
	return scanMatchingJSON(ctx, c, f, func(cur *store.Cursor, js []byte) (bool, error) {
		doc := cur.Doc()
		if err := cur.Err(); err != nil {
			return false, err
		}
		err := fn(js, doc)
		return err == nil && !first, err
	})
}

// scanMatchingJSON calls fn with the cursor and the stored JSON of each
// document of c that f may match, in _id order, until fn returns false or
// an error. It matches on the stored JSON, decoding only the fields the
// filter reads; a document whose JSON the filter cannot judge (an error)
// is passed on, for the caller's decoded match to report. It checks ctx
// before each document, and a $expr stops inside its evaluation.
func scanMatchingJSON(ctx context.Context, c *store.Collection, f *query.Filter, fn func(cur *store.Cursor, js []byte) (more bool, err error)) error {
	f, err := c.BindText(f) // $text matches through the collection's text index
	if err != nil {
		return err
	}
	cur := c.Scan()
	defer cur.Close()
	for cur.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		js, err := cur.JSON()
		if err != nil {
			return err
		}
		if f != nil {
			ok, err := f.MatchJSONContext(ctx, js)
			if err != nil && ctx.Err() != nil {
				return ctx.Err() // a costly $expr stopped at the deadline
			}
			if err == nil && !ok {
				continue
			}
		}
		if more, err := fn(cur, js); err != nil || !more {
			return err
		}
	}
	return cur.Err()
}

// PlanDelete plans the deletion of the documents of coll that match
// filter, without deleting anything: it stores the plan (every matching
// document, with a digest of its bytes) under a new token and returns a
// summary. Apply the plan with Apply.
func PlanDelete(ctx context.Context, db *store.DB, coll string, filter value.Value, opts *PlanOptions) (*PlanResult, error) {
	if opts == nil {
		opts = &PlanOptions{}
	}
	f, err := compileFilter(filter)
	if err != nil {
		return nil, err
	}
	if err := checkCollation(opts); err != nil {
		return nil, err
	}
	b := newBuilder(KindDelete, opts)
	b.p.Collection, b.p.Filter = coll, &Doc{filter}
	err = db.Update(store.Change{Kind: "plan"}, func(tx *store.Tx) error {
		if err := b.begin(tx); err != nil {
			return err
		}
		defer b.w.finish()
		f, err := collatedFilter(tx, coll, filter, f, opts)
		if err != nil {
			return err
		}
		if err := collectDeletes(ctx, tx, b, f, opts.First); err != nil {
			return err
		}
		return b.save(tx)
	})
	if err != nil {
		return nil, err
	}
	return b.result(), nil
}

// collectDeletes adds to b a delete of every document of its collection
// that f matches (the first only, with first), in _id order.
func collectDeletes(ctx context.Context, tx *store.Tx, b *builder, f *query.Filter, first bool) error {
	coll := b.p.Collection
	c, err := tx.Collection(coll)
	if err != nil {
		return err
	}
	return scanMatches(ctx, c, f, first, func(js []byte, doc value.Value) error {
		b.p.Matched++
		return b.add(item{coll: coll, id: doc.Get("_id"), op: opDelete, digest: digest(js), before: doc})
	})
}

// PlanRevert plans the change that brings every document touched since a
// revision back to its state then, across all collections: documents
// inserted since are deleted, deleted ones come back, updated ones are
// restored. It is a plan like any other: apply it with Apply. Matched
// counts the documents touched since the revision; Modified, those that
// differ now.
func PlanRevert(ctx context.Context, db *store.DB, revision string, opts *PlanOptions) (*PlanResult, error) {
	if opts == nil {
		opts = &PlanOptions{}
	}
	b := newBuilder(KindRevert, opts)
	err := db.Update(store.Change{Kind: "plan"}, func(tx *store.Tx) error {
		rev, err := ResolveRevision(tx, revision)
		if err != nil {
			return err
		}
		b.p.Revision = &rev
		u, err := undoAfter(ctx, tx, rev.LSN, "")
		if err != nil {
			return err
		}
		if err := b.begin(tx); err != nil {
			return err
		}
		defer b.w.finish()
		colls := map[string]bool{}
		for _, d := range u.sorted() {
			js, cur, err := current(tx, d.coll, d.id)
			if err != nil {
				return err
			}
			b.p.Matched++
			if sameState(cur, d.state) {
				continue
			}
			if err := b.add(revertItem(d, js, cur)); err != nil {
				return err
			}
			colls[d.coll] = true
		}
		b.p.Collections = sortedKeys(colls)
		return b.save(tx)
	})
	if err != nil {
		return nil, err
	}
	return b.result(), nil
}

// revertItem plans a document's return from its current state (js, cur)
// to d.state.
func revertItem(d *docState, js []byte, cur value.Value) item {
	it := item{coll: d.coll, id: d.id, before: cur, after: d.state, op: opUpdate}
	switch {
	case js == nil:
		it.op = opInsert
	case d.state.IsMissing():
		it.op = opDelete
	}
	if js != nil {
		it.digest = digest(js)
	}
	return it
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
