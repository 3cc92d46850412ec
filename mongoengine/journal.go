package mongoengine

import (
	"context"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Change is an entry of the journal (omgdb.changes): a plan applied
// through omgdb. Its documents' before- and after-images are its plan's
// items (omgdb.plan_items, state "applied").
type Change struct {
	ID         string
	Kind       string // "apply", "rollback", "insert" or "import"
	PlanKind   string // update, delete, rollback, insert or import
	Collection string
	Inserted   int64
	Updated    int64
	Deleted    int64
	Conflicts  int64 // documents not written
	Time       time.Time
	Actor      string
	// Status is applying (in progress), interrupted (applying with its
	// lease expired, or taken over by a rollback), applied, or partial
	// (stopped at its deadline between documents: deadline.go).
	Status       string
	Unwritten    int64     // partial: the documents not written
	Seq          int64     // its place in the journal (0: journaled before seq existed)
	Creates      bool      // its collection did not exist when it was journaled
	RolledBackBy string    // the rollback that undid it
	RollbackOf   string    // for a rollback: the change it undid
	LeaseUntil   time.Time // while applying: when its writer's lease ends (lease.go)
	owner        bson.ObjectID
	Note         string // a schema change: what it did ("drop users")
	RenamedTo    string // a rename: the new name
	schema       bool   // a schema change (its journal entry lists steps)
	steps        []step // a schema change: its steps
	done         int    // a schema change: the steps counted as carried out
	Carried      bool   // carried from another journal by omgdb copy --history (carry.go)
}

// journalStart records the change as applying, with its writer's lease,
// before any document is written: an interrupted apply stays so in the
// journal, and is known interrupted once its lease expires. The caller
// releases the lease it returns.
func (d *DB) journalStart(ctx context.Context, p *Plan, actor string) (*lease, error) {
	tok, _ := bson.ObjectIDFromHex(p.Token)
	kind := "apply"
	switch {
	case p.Kind == KindRollback || p.Kind == KindInsert || p.Kind == KindImport:
		kind = p.Kind
	case strings.HasPrefix(p.Kind, KindImport+"-"):
		kind = KindImport // an import in mode upsert, merge or delete
	}
	seq, err := d.nextSeq(ctx, tok)
	if err != nil {
		return nil, err
	}
	doc := bson.D{{Key: "_id", Value: tok}, {Key: "seq", Value: seq}, {Key: "kind", Value: kind}, {Key: "plan_kind", Value: p.Kind},
		{Key: "collection", Value: p.Collection}, {Key: "actor", Value: actor},
		{Key: "time", Value: bson.NewDateTimeFromTime(time.Now())}, {Key: "status", Value: StatusApplying}}
	if p.RollbackOf != "" {
		doc = append(doc, bson.E{Key: "rollback_of", Value: p.RollbackOf})
	}
	if creates, err := d.creates(ctx, p.Collection); err != nil || creates || p.createdTarget {
		if err != nil {
			return nil, err
		}
		doc = append(doc, bson.E{Key: "creates", Value: true})
	}
	start := time.Now()
	l := newLease(d, tok, start)
	doc = append(doc, l.fields(start)...)
	if _, err := d.db.Collection(ChangesColl).InsertOne(ctx, doc); err != nil {
		if mongo.IsDuplicateKeyError(err) {
			// The change's _id is the plan's token: a second apply that
			// got past the claim (a server whose conditional update is
			// not atomic: FerretDB v1) stops here, before any write.
			return nil, errs.Errorf(errs.Conflict, "plan %s was claimed by another apply", p.Token).
				WithHint("a plan applies once; see `omgdb history %s`", d.target.Redacted)
		}
		return nil, wrapErr(d.target, "journal the change in", err)
	}
	go l.run()
	return l, nil
}

// journalEnd records what the apply wrote, and marks the plan applied,
// if the change still holds its lease l.
func (d *DB) journalEnd(ctx context.Context, p *Plan, res *ApplyResult, l *lease) error {
	tok, _ := bson.ObjectIDFromHex(p.Token)
	if res.Transaction && len(res.Conflicts) > 0 {
		return nil // nothing was written: unclaim dropped the change
	}
	conflicts := bson.A{}
	for _, c := range res.Conflicts {
		id, err := toBSON(c.ID)
		if err != nil {
			return err
		}
		conflicts = append(conflicts, bson.D{{Key: "_id", Value: id}, {Key: "reason", Value: c.Reason}})
	}
	status := StatusApplied
	if res.Unwritten > 0 {
		status = StatusPartial // stopped at its deadline
	}
	set := bson.D{{Key: "status", Value: status}, {Key: "time", Value: bson.NewDateTimeFromTime(time.Now())}, {Key: "inserted", Value: res.Inserted},
		{Key: "updated", Value: res.Updated}, {Key: "deleted", Value: res.Deleted}, {Key: "conflicts", Value: conflicts},
		{Key: "unwritten", Value: res.Unwritten}}
	if err := l.check(); err != nil {
		return err
	}
	r, err := d.db.Collection(ChangesColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: tok}, {Key: "owner", Value: l.owner}, {Key: "status", Value: StatusApplying}},
		bson.D{{Key: "$set", Value: set}, {Key: "$unset", Value: bson.D{{Key: "lease_until", Value: ""}}}})
	if err != nil {
		return wrapErr(d.target, "journal the change in", err)
	}
	if r.MatchedCount == 0 {
		return errs.Errorf(errs.Conflict, "change %s was taken over by a rollback of another omgdb before it was marked applied", p.Token).
			WithHint("see `omgdb history %s`", d.target.Redacted)
	}
	return d.markApplied(ctx, p)
}

// markApplied marks a plan applied.
func (d *DB) markApplied(ctx context.Context, p *Plan) error {
	tok, _ := bson.ObjectIDFromHex(p.Token)
	_, err := d.db.Collection(PlansColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: tok}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: StatusApplied}, {Key: "status_time", Value: bson.NewDateTimeFromTime(time.Now())}}}})
	if err != nil {
		return wrapErr(d.target, "mark the plan applied in", err)
	}
	return nil
}

// History lists the journal's changes, newest first: those to coll only
// when coll is not empty, at most limit when limit is positive. Writes
// made around omgdb are not in it.
func (d *DB) History(ctx context.Context, coll string, limit int) ([]Change, error) {
	filter := bson.D{}
	if coll != "" { // a rename is listed under both its names
		filter = append(filter, bson.E{Key: "$or", Value: bson.A{bson.D{{Key: "collection", Value: coll}}, bson.D{{Key: "renamed_to", Value: coll}}}})
	}
	return d.journal(ctx, filter, -1, limit)
}

func changeOf(v value.Value) Change {
	ch := Change{ID: v.Get("_id").OID().Hex(), Kind: v.Get("kind").Str(), PlanKind: v.Get("plan_kind").Str(),
		Collection: v.Get("collection").Str(), Inserted: v.Get("inserted").Long(), Updated: v.Get("updated").Long(),
		Deleted: v.Get("deleted").Long(), Conflicts: int64(v.Get("conflicts").Len()),
		Time: time.UnixMilli(v.Get("time").Date()).UTC(), Actor: v.Get("actor").Str(), Status: v.Get("status").Str(),
		RolledBackBy: v.Get("rolled_back_by").Str(), RollbackOf: v.Get("rollback_of").Str(), Seq: v.Get("seq").Long(), Creates: v.Get("creates").Bool(), owner: ownerOf(v),
		Note: v.Get("note").Str(), RenamedTo: v.Get("renamed_to").Str(), Unwritten: v.Get("unwritten").Long(), Carried: v.Get("carried").Bool()}
	for _, s := range v.Get("ops").Array() {
		ch.steps = append(ch.steps, stepOf(s))
	}
	ch.schema, ch.done = !v.Get("ops").IsMissing(), int(v.Get("done").Long())
	if lu := v.Get("lease_until"); lu.Kind() == value.Date {
		ch.LeaseUntil = time.UnixMilli(lu.Date()).UTC()
	}
	return ch
}

func ownerOf(v value.Value) bson.ObjectID {
	if o := v.Get("owner"); o.Kind() == value.ObjectID {
		return bson.ObjectID(o.OID())
	}
	return bson.ObjectID{}
}

// RollbackResult is what Rollback did: the rollback is a change of its
// own (roll it back to redo).
type RollbackResult struct {
	ApplyResult
	RolledBack string // the change undone
	// Undid, for the rollback of a schema change, is what it undid
	// ("drop users"): no document was written, the steps were undone.
	Undid string
}

// Rollback plans the reverse of an applied change (each document it wrote
// back to its before-image: updated ones replaced, inserted ones deleted,
// deleted ones inserted) and applies it with the same preconditions: a
// document changed since the change is a conflict, unless opts.Force. The
// change is marked rolled back when no document conflicted.
func (d *DB) Rollback(ctx context.Context, changeID string, opts *ApplyOptions) (*RollbackResult, error) {
	if opts == nil {
		opts = &ApplyOptions{}
	}
	if res, ok, err := d.rollbackSchema(ctx, changeID, opts); ok || err != nil {
		return res, err
	}
	ch, err := d.change(ctx, changeID)
	if err != nil {
		return nil, err
	}
	tok, _ := bson.ObjectIDFromHex(changeID)
	items, err := d.undoItems(ctx, ch, tok)
	if err != nil {
		return nil, err
	}
	p := newPlan(KindRollback, &PlanSpec{Collection: ch.Collection, Actor: opts.Actor})
	p.RollbackOf, p.Matched = changeID, int64(len(items))
	for i := len(items) - 1; i >= 0; i-- {
		p.Items = append(p.Items, reverse(items[i]))
	}
	if err := d.savePlan(ctx, p); err != nil {
		return nil, err
	}
	res, err := d.Apply(ctx, p.Token, opts)
	if res == nil {
		return nil, err
	}
	if err != nil { // stopped at its deadline: what it wrote is in the result
		return &RollbackResult{ApplyResult: *res, RolledBack: changeID}, err
	}
	if len(res.Conflicts) == 0 {
		_, err = d.db.Collection(ChangesColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: tok}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "rolled_back_by", Value: p.Token}}}})
		if err != nil {
			return nil, wrapErr(d.target, "journal the rollback in", err)
		}
		if ch.Creates {
			if err := d.dropIfEmpty(ctx, ch.Collection); err != nil {
				return nil, err
			}
		}
	}
	return &RollbackResult{ApplyResult: *res, RolledBack: changeID}, nil
}

// dropIfEmpty drops coll when it holds no document and no index but
// _id's: what a rolled-back change that created the collection leaves, so
// that the rollback leaves no collection behind (as on a store file) and a
// drop made before it can be rolled back too (its collection comes back
// under its name). A collection someone filled or indexed since is kept.
func (d *DB) dropIfEmpty(ctx context.Context, coll string) error {
	n, ix, err := d.sizes(ctx, coll)
	if errs.KindOf(err) == errs.NotFound {
		return nil
	}
	if err != nil || n > 0 || ix > 0 {
		return err
	}
	if err := d.db.Collection(coll).Drop(ctx); err != nil {
		return wrapErr(d.target, "drop the empty collection the change had created in", err)
	}
	return nil
}

// reverse is the item that undoes it.
func reverse(it Item) Item {
	switch it.Op {
	case OpInsert:
		return Item{ID: it.ID, Op: OpDelete, Before: it.After}
	case OpDelete:
		return Item{ID: it.ID, Op: OpInsert, After: it.Before}
	}
	return Item{ID: it.ID, Op: OpUpdate, Before: it.After, After: it.Before}
}

// change reads an applied change that has not been rolled back.
func (d *DB) change(ctx context.Context, changeID string) (*Change, error) {
	found, err := d.journalEntry(ctx, changeID, "change id") // resume.go
	if err != nil {
		return nil, err
	}
	if found == nil {
		return nil, errs.Errorf(errs.NotFound, "change %s not found in the journal of %s", changeID, d.target.Redacted).
			WithHint("list the changes made through omgdb with `omgdb history %s`; writes made around omgdb are not in its journal", d.target.Redacted)
	}
	ch := *found
	switch {
	case ch.RolledBackBy != "":
		return nil, errs.Errorf(errs.Conflict, "change %s was already rolled back by %s", changeID, ch.RolledBackBy).
			WithHint("roll back %s to redo it", ch.RolledBackBy)
	case ch.Status == StatusApplying:
		return &ch, d.takeOver(ctx, &ch)
	case ch.Status != StatusApplied && ch.Status != StatusInterrupted && ch.Status != StatusPartial:
		return nil, errs.Errorf(errs.Conflict, "change %s is %s", changeID, ch.Status).
			WithHint("list the changes with `omgdb history %s`", d.target.Redacted)
	}
	return &ch, nil
}
