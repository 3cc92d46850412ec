package mongoengine

import (
	"context"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// omgdb's own collections in the deployment's database (see doc.go for
// their layout). Collections and the shell never list them.
const (
	PlansColl     = "omgdb.plans"      // one document per plan
	PlanItemsColl = "omgdb.plan_items" // one document per planned document write
	ChangesColl   = "omgdb.changes"    // the journal: one document per applied change
)

// Plan kinds, as on a store file, and the kind of a rollback's plan.
const (
	KindUpdate   = "update"
	KindDelete   = "delete"
	KindRollback = "rollback"
)

// Plan statuses. A plan is pending until apply claims it (applying), then
// applied; a plan past its expiry is expired.
const (
	StatusPending   = "pending"
	StatusApplying  = "applying"
	StatusApplied   = "applied"
	StatusExpired   = "expired"
	StatusDiscarded = "discarded"
)

// Item operations.
const (
	OpInsert = "insert"
	OpUpdate = "update"
	OpDelete = "delete"
)

// DefaultExpiry is how long a plan stays pending when PlanSpec.Expiry is 0.
const DefaultExpiry = 24 * time.Hour

// PlanSpec says what to plan.
type PlanSpec struct {
	Collection string
	Filter     value.Value // checked with omgdb's compiler before anything is sent
	// Update is the update as given (operators, a replacement or a
	// pipeline), kept with the plan; Compiled is it compiled by the caller
	// (changes.CompileUpdate), which computes the after-images. Both are
	// missing for a delete.
	Update       value.Value
	Compiled     *query.Update
	ArrayFilters []value.Value
	Upsert       bool          // insert a document when the filter matches none
	First        bool          // only the first match in _id order
	Expiry       time.Duration // 0: DefaultExpiry
	Actor        string        // who planned it
	// Source and Pipeline are a plan-aggregate's: the collection the
	// pipeline reads and the pipeline, its $out or $merge included
	// (Collection is then the target). Kept with the plan for `plans`.
	Source   string
	Pipeline value.Value
}

// Item is one document a plan writes: its before-image (missing for an
// insert) and after-image (missing for a delete).
type Item struct {
	ID     value.Value
	Op     string
	Before value.Value
	After  value.Value
	// State is what an apply recorded: "applied", "conflict", or "" (not
	// written, or written at the moment the apply was interrupted).
	State  string
	Reason string // a conflict's reason
}

// Plan is a stored plan with its items.
type Plan struct {
	Token      string
	Kind       string
	Collection string
	Matched    int64 // documents the filter selected
	Modified   int64 // documents the plan writes
	Created    time.Time
	Expires    time.Time
	Actor      string
	Status     string
	RollbackOf string      // a rollback's plan: the change it undoes
	Collation  value.Value // the collation of the read that matched its documents (missing: none)
	UpsertedID value.Value // the _id an upsert inserts
	// NewCollection is true when the upsert's collection does not exist:
	// applying the plan creates it.
	NewCollection bool
	// What was planned, as given (plans.go): the filter, update and array
	// filters of an update or delete, the source and pipeline of an
	// aggregate; missing when not given.
	Filter, Update, Pipeline value.Value
	ArrayFilters             []value.Value
	Upsert, First            bool
	Source                   string
	// CreateTarget is set on a $out plan whose target does not exist:
	// apply creates it even when the plan writes no document.
	CreateTarget bool
	// createdTarget is set by Apply when it created the target: the change
	// then records that it created its collection (creates).
	createdTarget bool
	StatusTime    time.Time // when it was claimed, applied or discarded
	Items         []Item
}

// PlanUpdate reads the documents of spec.Collection that spec.Filter
// matches (in _id order), computes each after-image with omgdb's own
// update engine, and stores the plan in omgdb.plans. Documents the update
// leaves as they are count as matched and are not written. With
// spec.Upsert and no match, the plan inserts the document MongoDB would.
func (d *DB) PlanUpdate(ctx context.Context, spec *PlanSpec) (*Plan, error) {
	if err := writable(spec.Collection); err != nil {
		return nil, err
	}
	p := newPlan(KindUpdate, spec)
	p.Collation = d.collationSpec
	actx := query.ApplyContext{Now: p.Created, Query: spec.Filter, Context: ctx}
	var err error
	p.NewCollection, err = d.matches(ctx, spec, func(doc value.Value) error {
		p.Matched++
		after, changed, err := spec.Compiled.Apply(doc, actx)
		if err == nil && changed {
			after, err = value.PrepareDocument(after)
		}
		if err != nil && ctx.Err() != nil {
			return ctx.Err() // the deadline, not a fault of the document
		}
		if err != nil {
			return query.DocumentError(spec.Collection, doc.Get("_id"), err)
		}
		if changed && !sameDoc(doc, after) {
			p.Items = append(p.Items, Item{ID: doc.Get("_id"), Op: OpUpdate, Before: doc, After: after})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if spec.Upsert && p.Matched == 0 {
		doc, err := query.UpsertDocument(spec.Compiled, spec.Filter, p.Created)
		if err != nil {
			return nil, err
		}
		p.UpsertedID = doc.Get("_id")
		p.Items = append(p.Items, Item{ID: p.UpsertedID, Op: OpInsert, After: doc})
	}
	p.Modified = int64(len(p.Items))
	return p, d.savePlan(ctx, p)
}

// PlanDelete reads the documents of spec.Collection that spec.Filter
// matches and stores the plan that deletes them.
func (d *DB) PlanDelete(ctx context.Context, spec *PlanSpec) (*Plan, error) {
	if err := writable(spec.Collection); err != nil {
		return nil, err
	}
	p := newPlan(KindDelete, spec)
	p.Collation = d.collationSpec
	_, err := d.matches(ctx, spec, func(doc value.Value) error {
		p.Matched++
		p.Items = append(p.Items, Item{ID: doc.Get("_id"), Op: OpDelete, Before: doc})
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.Modified = int64(len(p.Items))
	return p, d.savePlan(ctx, p)
}

// writable refuses a collection omgdb does not write through plans: its
// own (omgdb.*), the server's (system.*), and an empty name.
func writable(coll string) error {
	if hidden(coll) || coll == "" || strings.ContainsAny(coll, "$\x00") {
		return errs.Errorf(errs.Invalid, "collection name %q is not one omgdb writes: names starting with \"omgdb.\" hold omgdb's plans and journal, \"omgdb_dropped_\" the collections it dropped, \"system.\" the server's own", coll).
			WithHint("choose another collection name; omgdb's collections change only through plan, apply and rollback")
	}
	return nil
}

func newPlan(kind string, spec *PlanSpec) *Plan {
	now := time.Now().UTC().Truncate(time.Millisecond) // BSON dates hold milliseconds
	expiry := spec.Expiry
	if expiry <= 0 {
		expiry = DefaultExpiry
	}
	return &Plan{Token: value.NewOID().Hex(), Kind: kind, Collection: spec.Collection,
		Created: now, Expires: now.Add(expiry), Actor: spec.Actor, Status: StatusPending,
		Filter: spec.Filter, Update: spec.Update, ArrayFilters: spec.ArrayFilters, Upsert: spec.Upsert, First: spec.First,
		Source: spec.Source, Pipeline: spec.Pipeline}
}

// matches passes each document the filter selects to each, in _id order
// (the first only with spec.First). A missing collection is an error
// unless spec.Upsert, and reported.
func (d *DB) matches(ctx context.Context, spec *PlanSpec, each func(value.Value) error) (bool, error) {
	q := &engine.Find{Filter: spec.Filter}
	if spec.First {
		q.Limit = 1
	}
	err := d.Find(ctx, spec.Collection, q, each)
	if spec.Upsert && errs.KindOf(err) == errs.NotFound {
		_, cerr := engine.CheckFilter(spec.Filter)
		return cerr == nil, cerr // an upsert creates the collection
	}
	return false, err
}

// sameDoc reports whether two documents are the same exactly: same
// fields in the same order, same types, same values.
func sameDoc(a, b value.Value) bool {
	return string(value.AppendJSON(nil, a)) == string(value.AppendJSON(nil, b))
}

// savePlan stores p: its items first, then its header, so that a plan is
// found only whole.
func (d *DB) savePlan(ctx context.Context, p *Plan) error {
	if err := d.checkItems(ctx, p.Collection, p.Items); err != nil {
		return err
	}
	tok, _ := bson.ObjectIDFromHex(p.Token)
	if len(p.Items) > 0 {
		// Apply marks each item by {plan, seq}: without this index each
		// mark would scan every item of every plan ever made.
		ix := mongo.IndexModel{Keys: bson.D{{Key: "plan", Value: 1}, {Key: "seq", Value: 1}}}
		if _, err := d.db.Collection(PlanItemsColl).Indexes().CreateOne(ctx, ix); err != nil {
			return wrapErr(d.target, "index the plans in", err)
		}
		docs := make([]any, len(p.Items))
		for i, it := range p.Items {
			doc, err := itemDoc(tok, i, it)
			if err != nil {
				return err
			}
			docs[i] = doc
		}
		if _, err := d.db.Collection(PlanItemsColl).InsertMany(ctx, docs); err != nil {
			return wrapErr(d.target, "store the plan in", err)
		}
	}
	if _, err := d.db.Collection(PlansColl).InsertOne(ctx, planDoc(tok, p)); err != nil {
		return wrapErr(d.target, "store the plan in", err)
	}
	return nil
}

// planDoc is a plan's header as stored in omgdb.plans.
func planDoc(tok bson.ObjectID, p *Plan) bson.D {
	doc := bson.D{{Key: "_id", Value: tok}, {Key: "kind", Value: p.Kind}, {Key: "collection", Value: p.Collection},
		{Key: "matched", Value: p.Matched}, {Key: "modified", Value: p.Modified},
		{Key: "created", Value: bson.NewDateTimeFromTime(p.Created)}, {Key: "expires", Value: bson.NewDateTimeFromTime(p.Expires)},
		{Key: "actor", Value: p.Actor}, {Key: "status", Value: p.Status}}
	if p.RollbackOf != "" {
		doc = append(doc, bson.E{Key: "rollback_of", Value: p.RollbackOf})
	}
	if !p.Collation.IsMissing() {
		if c, err := docToBSON(p.Collation); err == nil {
			doc = append(doc, bson.E{Key: "collation", Value: c})
		}
	}
	return append(doc, specFields(p)...)
}

// itemDoc is an item as stored in omgdb.plan_items: the plan's token, its
// place in the plan, the document's _id, the operation and the images,
// type for type.
func itemDoc(tok bson.ObjectID, seq int, it Item) (bson.D, error) {
	id, err := toBSON(it.ID)
	if err != nil {
		return nil, err
	}
	doc := bson.D{{Key: "plan", Value: tok}, {Key: "seq", Value: int64(seq)}, {Key: "id", Value: id}, {Key: "op", Value: it.Op}}
	for _, img := range []struct {
		key string
		v   value.Value
	}{{"before", it.Before}, {"after", it.After}} {
		if img.v.IsMissing() {
			continue
		}
		b, err := docToBSON(img.v)
		if err != nil {
			return nil, err
		}
		doc = append(doc, bson.E{Key: img.key, Value: b})
	}
	return doc, nil
}

// LoadPlan reads a plan and its items by token.
func (d *DB) LoadPlan(ctx context.Context, token string) (*Plan, error) {
	tok, err := checkToken(token, "plan token")
	if err != nil {
		return nil, err
	}
	raw, err := d.db.Collection(PlansColl).FindOne(ctx, bson.D{{Key: "_id", Value: tok}}).Raw()
	if err != nil {
		if isNoDocuments(err) {
			return nil, errs.Errorf(errs.NotFound, "plan %s not found in %s", token, d.target.Redacted).
				WithHint("list the pending plans with `omgdb plans %s`, or plan again with `omgdb plan-update`, `plan-delete` or `plan-aggregate` and apply the token it prints", d.target.Redacted)
		}
		return nil, wrapErr(d.target, "read the plan from", err)
	}
	p, err := planOf(raw)
	if err != nil {
		return nil, err
	}
	p.Items, err = d.planItems(ctx, tok, nil)
	return p, err
}

// planItems reads a plan's items in order, those whose state is state
// when it is not nil.
func (d *DB) planItems(ctx context.Context, tok bson.ObjectID, state any) ([]Item, error) {
	filter := bson.D{{Key: "plan", Value: tok}}
	if state != nil {
		filter = append(filter, bson.E{Key: "state", Value: state})
	}
	cur, err := d.db.Collection(PlanItemsColl).Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "seq", Value: 1}}))
	if err != nil {
		return nil, wrapErr(d.target, "read the plan from", err)
	}
	var items []Item
	err = d.drain(ctx, cur, func(v value.Value) error {
		items = append(items, Item{ID: v.Get("id"), Op: v.Get("op").Str(), Before: v.Get("before"), After: v.Get("after"), State: v.Get("state").Str(), Reason: v.Get("reason").Str()})
		return nil
	})
	return items, err
}

// checkToken parses a plan token or change id: 24 hexadecimal digits.
func checkToken(s, what string) (bson.ObjectID, error) {
	tok, err := bson.ObjectIDFromHex(s)
	if err != nil {
		return tok, errs.Errorf(errs.Invalid, "invalid %s %q: expected 24 hexadecimal digits", what, s).
			WithHint("copy the token or change id exactly as printed, e.g. 665f1c2e9b1d4a0c8e7f6a5b")
	}
	return tok, nil
}
