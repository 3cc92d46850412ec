package changes

import (
	"context"
	"fmt"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// One-step writes (Update, Replace, Delete) plan and apply in the same
// transaction without storing the plan: the planner's code finds the
// documents and computes their after-images (collectUpdates,
// collectDeletes), a writeSink keeps them instead of a planWriter, and
// they are written as Apply writes them (writeItem; an update through
// ReplaceJSONAt with the paths it changes). Nothing changes between the
// two halves, so no document is checked against a digest. The change is one journal
// record under a new change id, so History lists it and Rollback undoes
// it like an applied plan.

// Journal kinds of the changes one-step writes make (store.Change.Kind,
// Change.Kind in History).
const (
	KindReplace = "replace" // Replace; Update and Delete use KindUpdate and KindDelete
	KindDrop    = "drop"    // DropCollection
	KindRename  = "rename"  // RenameCollection
)

// WriteOptions configures a one-step write. The zero value writes every
// matching document, inserts nothing when none matches, and writes.
type WriteOptions struct {
	// One writes only the first matching document in _id order
	// (updateOne, deleteOne). Replace always writes one. Default false.
	One bool
	// Upsert (Update and Replace) inserts a document when nothing matches:
	// the filter's equalities, then the update with $setOnInsert (or the
	// replacement), with a new ObjectId _id when neither sets one, creating
	// the collection if needed. Default false.
	Upsert bool
	// ArrayFilters are the filters of $[<identifier>] paths (Update only).
	ArrayFilters []value.Value
	// DryRun writes no document: the write is planned instead, exactly as
	// PlanUpdate or PlanDelete plan it (stored as a pending plan that Apply
	// can apply), and WriteResult.Plan holds the plan's summary.
	DryRun bool
	Actor  string // who writes; the store's actor when empty
}

// WriteResult is what a one-step write returns: MongoDB's counts and the
// change id.
type WriteResult struct {
	// ChangeID names the change in History and for Rollback; empty when
	// nothing was written (no match, or no matched document changed) and
	// for a dry run.
	ChangeID   string `json:"change_id,omitempty"`
	Kind       string `json:"kind"` // update, replace or delete
	Collection string `json:"collection"`
	Matched    int64  `json:"matched"`  // documents the filter matched (at most 1 with One)
	Modified   int64  `json:"modified"` // matched documents the update changed
	Deleted    int64  `json:"deleted"`  // documents deleted (Delete)
	Upserted   int64  `json:"upserted"` // 1 when an upsert inserted a document
	UpsertedID *Doc   `json:"upsertedId,omitempty"`
	LSN        uint64 `json:"lsn,omitempty"` // the journal record; absent when nothing was written
	Message    string `json:"message,omitempty"`
	// Plan is the dry run's plan (WriteOptions.DryRun); nil otherwise.
	Plan             *PlanResult `json:"plan,omitempty"`
	NextValidActions []string    `json:"next_valid_actions"`
}

// planOptions returns the options a dry run plans with.
func (o *WriteOptions) planOptions() *PlanOptions {
	return &PlanOptions{Upsert: o.Upsert, ArrayFilters: o.ArrayFilters, First: o.One, Actor: o.Actor}
}

// Update applies update operators ({"$set":…}) or a pipeline-style update
// ([{"$set":…}], see CompileUpdate) to the documents of coll
// that filter matches (the first in _id order with opts.One), in one
// journaled change, with MongoDB's update semantics: the same code as
// PlanUpdate computes the after-images, $currentDate takes the time of
// the call, and every index and validation rule is enforced (any refusal
// writes nothing). A replacement document is refused: use Replace. A
// missing collection is a NotFound error unless opts.Upsert. With
// opts.DryRun nothing is written and the plan is returned instead.
func Update(ctx context.Context, db *store.DB, coll string, filter, update value.Value, opts *WriteOptions) (*WriteResult, error) {
	return updateDocs(ctx, db, KindUpdate, coll, filter, update, opts)
}

// Replace replaces the first document of coll (in _id order) that filter
// matches with doc, keeping its _id (doc may repeat it, not change it), in
// one journaled change. doc must not contain update operators. With
// opts.Upsert and no match, doc is inserted (with the filter's _id
// equality, else a new ObjectId). opts.One is implied; opts.DryRun plans
// instead, as Update does.
func Replace(ctx context.Context, db *store.DB, coll string, filter, doc value.Value, opts *WriteOptions) (*WriteResult, error) {
	o := WriteOptions{}
	if opts != nil {
		o = *opts
	}
	o.One, o.ArrayFilters = true, nil
	return updateDocs(ctx, db, KindReplace, coll, filter, doc, &o)
}

// Delete deletes the documents of coll that filter matches (the first in
// _id order with opts.One) in one journaled change: their before-images
// go to the journal, so Rollback brings them back. A missing collection
// is a NotFound error. With opts.DryRun nothing is deleted and the plan
// (PlanDelete's) is returned instead.
func Delete(ctx context.Context, db *store.DB, coll string, filter value.Value, opts *WriteOptions) (*WriteResult, error) {
	if opts == nil {
		opts = &WriteOptions{}
	}
	if opts.DryRun {
		p, err := PlanDelete(ctx, db, coll, filter, opts.planOptions())
		return dryRun(KindDelete, coll, p, err)
	}
	f, err := compileFilter(filter)
	if err != nil {
		return nil, err
	}
	b, s := newWriteBuilder(KindDelete, coll, filter, value.Value{})
	change := store.Change{Kind: KindDelete, Actor: opts.Actor, Note: b.p.note(KindDelete)}
	res := &WriteResult{Kind: KindDelete, Collection: coll}
	err = db.Update(change, func(tx *store.Tx) error {
		f, err := collatedFilter(tx, coll, filter, f, &PlanOptions{})
		if err != nil {
			return err
		}
		if err := collectDeletes(ctx, tx, b, f, opts.One); err != nil {
			return err
		}
		return s.write(ctx, tx, res)
	})
	if err != nil {
		return nil, err
	}
	res.Matched = b.p.Matched
	return res.finish(), nil
}

// updateDocs is Update and Replace (kind says which).
func updateDocs(ctx context.Context, db *store.DB, kind, coll string, filter, update value.Value, opts *WriteOptions) (*WriteResult, error) {
	if opts == nil {
		opts = &WriteOptions{}
	}
	f, u, err := compileUpdate(filter, update, opts.ArrayFilters)
	if err != nil {
		return nil, err
	}
	if err := CheckUpdateKind(kind, update, u); err != nil {
		return nil, err
	}
	if opts.DryRun {
		p, err := PlanUpdate(ctx, db, coll, filter, update, opts.planOptions())
		return dryRun(kind, coll, p, err)
	}
	b, s := newWriteBuilder(KindUpdate, coll, filter, update)
	s.paths = u.Paths()
	po := opts.planOptions()
	res := &WriteResult{Kind: kind, Collection: coll}
	change := store.Change{Kind: kind, Actor: opts.Actor, Note: b.p.note(kind)}
	err = db.Update(change, func(tx *store.Tx) error {
		f, err := collatedFilter(tx, coll, filter, f, po)
		if err != nil {
			return err
		}
		if _, err := collectUpdates(ctx, tx, b, f, u, filter, po); err != nil {
			return err
		}
		return s.write(ctx, tx, res)
	})
	if err != nil {
		return nil, err
	}
	res.Matched, res.UpsertedID = b.p.Matched, b.upserted
	return res.finish(), nil
}

// CheckUpdateKind refuses a replacement document given to Update (kind
// KindUpdate), and update operators or a pipeline given to Replace
// (KindReplace), as MongoDB's updateMany/updateOne and replaceOne do.
// Update takes a pipeline.
func CheckUpdateKind(kind string, update value.Value, u *query.Update) error {
	switch {
	case kind == KindUpdate && u.IsReplacement():
		return errs.Errorf(errs.Invalid, "update document requires update operators such as $set: got a replacement document").
			WithHint("wrap the fields in {\"$set\": {…}}, or use `omgdb replace` to replace a whole document")
	case kind == KindReplace && update.Kind() == value.Array:
		return errs.Errorf(errs.Invalid, "a replacement must be a document, not an update pipeline").
			WithHint("give the whole new document, or use `omgdb update` to run a pipeline")
	case kind == KindReplace && !u.IsReplacement():
		return errs.Errorf(errs.Invalid, "replacement document must not contain update operators").
			WithHint("give the whole new document, e.g. {\"name\":\"ada\",\"age\":37}, or use `omgdb update` to apply operators")
	}
	return nil
}

// dryRun wraps a dry run's plan in a WriteResult.
func dryRun(kind, coll string, p *PlanResult, err error) (*WriteResult, error) {
	if err != nil {
		return nil, err
	}
	return &WriteResult{Kind: kind, Collection: coll, Matched: p.Matched, Modified: p.Modified,
		UpsertedID: p.UpsertedID, Plan: p, Message: "dry run: nothing was written; apply the plan with its token to write exactly this",
		NextValidActions: []string{ActionApply, ActionShow, ActionDiscard}}, nil
}

// newWriteBuilder returns a builder whose items go to a writeSink.
func newWriteBuilder(kind, coll string, filter, update value.Value) (*builder, *writeSink) {
	b := newBuilder(kind, &PlanOptions{Sample: -1})
	b.p.Collection, b.p.Filter = coll, &Doc{filter}
	if !update.IsMissing() {
		b.p.Update = &Doc{update}
	}
	s := &writeSink{}
	b.sink = s
	return b, s
}

// writeSink keeps a one-step write's items, to write them once the scan
// that found them is over (a bbolt cursor must not see its bucket change
// under it). It keeps only what writing needs: the identity and the
// after-image's JSON, not the before-image. Memory grows with the
// after-images, as the transaction's own dirty pages do.
type writeSink struct {
	items []item
	// paths are the paths an update writes (query.Update.Paths): an
	// update's after-image differs from its document only there, so the
	// store need not parse either for indexes no path touches (as Apply
	// does). nil: any path.
	paths []string
}

func (s *writeSink) add(it *item) error {
	if it.op == opNone {
		return nil
	}
	if it.afterJSON == nil && it.op != opDelete {
		it.afterJSON = value.AppendJSON(nil, it.after)
	}
	s.items = append(s.items, item{coll: it.coll, id: it.id, op: it.op, afterJSON: it.afterJSON})
	return nil
}

// write writes the items in tx, counting them into res.
func (s *writeSink) write(ctx context.Context, tx *store.Tx, res *WriteResult) error {
	tx.Grow(len(s.items))
	var n ApplyResult
	for i := range s.items {
		if i%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := s.writeItem(tx, &s.items[i], &n); err != nil {
			return err
		}
	}
	res.Modified, res.Deleted, res.Upserted = n.Updated, n.Deleted, n.Inserted
	if len(s.items) > 0 {
		res.ChangeID, res.LSN = tx.ChangeID(), tx.LastLSN()+1 // the record this transaction appends at commit
	}
	return nil
}

// writeItem writes an item as Apply's writeItem does, an update with the
// paths it writes.
func (s *writeSink) writeItem(tx *store.Tx, it *item, n *ApplyResult) error {
	if it.op != opUpdate || s.paths == nil {
		return writeItem(tx, it, n)
	}
	c, err := tx.Collection(it.coll)
	if err != nil {
		return err
	}
	n.Updated++
	return c.ReplaceJSONAt(it.id, it.afterJSON, s.paths, nil)
}

// finish sets the result's message and next actions.
func (r *WriteResult) finish() *WriteResult {
	r.NextValidActions = []string{ActionRollback, ActionShow}
	switch {
	case r.ChangeID != "":
		return r
	case r.Matched == 0:
		r.Message = fmt.Sprintf("the filter matches no document in `%s`: nothing was written", r.Collection)
	default:
		r.Message = "no matched document changed: nothing was written"
	}
	r.NextValidActions = []string{}
	return r
}
