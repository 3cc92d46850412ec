package mongoengine

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/internal/failpoint"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Carrying a journal: `omgdb copy --history` replays another store's
// journal here, oldest first, each change as one change of this journal
// with the same id, kind, time, actor and note, its documents written
// with their after-images. Nothing but copy calls Carry: it writes the
// journal directly, without a plan to review, and the MCP server and
// the shell never reach it.

// Carried is one change carried from another journal, or read from this
// one to be carried elsewhere.
type Carried struct {
	ID         string // the change id: 24 hexadecimal digits
	Kind       string
	Collection string // the one collection its documents are in
	Actor      string
	Note       string
	RollbackOf string // for a rollback: the change it undid
	Time       time.Time
	// Items are the documents it wrote, each with its before- and
	// after-image (Missing: absent), its op insert, update or delete.
	Items []Item
	// Create makes the collection, empty, when it does not exist; Drop
	// drops it once the items are written (it holds no document then).
	Create, Drop bool
	// Creates says the change created its collection on the source (a
	// change that created it here is journaled so too): time travel
	// before it finds no collection, also after a resumed copy.
	Creates bool
	// FileOps is a store file's operations on collections, indexes and
	// rules in the change (canonical JSON of an array), kept with the
	// change so that a copy back to a file carries them exactly.
	FileOps string
	// Steps are the schema steps of a change made over MongoDB (drop,
	// rename, index changes): {op, coll, to, spec}, in order. Carry runs
	// the index steps (create_index, drop_index) after the documents,
	// each unless the deployment shows it done.
	Steps []value.Value
	// OwnSteps journals the steps as the change's own (its "ops"), so
	// that rollback undoes them: for a change that only changed indexes,
	// a drop or a rename.
	OwnSteps bool
	// StepsMove says the steps move the documents (a drop renames the
	// collection aside): the items are journaled, not written.
	StepsMove bool
	// RenamedTo and Aside are a rename's new name and a drop's aside
	// collection, journaled as a rename or drop made over MongoDB is.
	RenamedTo, Aside string
	// Change is the journal entry, for a change read from this journal.
	Change Change
}

// HasHistory reports whether the journal holds any change.
func (d *DB) HasHistory(ctx context.Context) (bool, error) {
	n, err := d.db.Collection(ChangesColl).CountDocuments(ctx, bson.D{}, options.Count().SetLimit(1))
	return n > 0, wrapIfErr(d.target, "read the journal from", err)
}

// Carry writes c as a change of the journal: its items (marked applied)
// first, then its documents (each after-image written by _id, or the
// document deleted), its plan, and its journal entry last, so that a
// change in the journal has all its documents. A change already in the
// journal is left as it is: a resumed copy carries each change once, and
// the writes of one interrupted before its entry are made again (they
// are by _id, so making them twice gives the same documents).
func (d *DB) Carry(ctx context.Context, c *Carried) (done bool, err error) {
	tok, err := checkToken(c.ID, "change id")
	if err != nil {
		return false, err
	}
	if err := writable(c.Collection); c.Collection != "" && err != nil {
		return false, err
	}
	n, err := d.db.Collection(ChangesColl).CountDocuments(ctx, bson.D{{Key: "_id", Value: tok}})
	if err != nil {
		return false, wrapErr(d.target, "read the journal from", err)
	}
	if n > 0 {
		return true, d.linkRollback(ctx, c)
	}
	seq, err := d.carriedSeq(ctx, tok)
	if err != nil {
		return false, err
	}
	creates := c.Creates
	if c.Collection != "" && !creates {
		if creates, err = d.creates(ctx, c.Collection); err != nil {
			return false, err
		}
	}
	if err := d.carryItems(ctx, tok, c.Items); err != nil {
		return false, err
	}
	if err := d.carryDocs(ctx, c); err != nil {
		return false, err
	}
	failpoint.Hit(failpoint.CarryDocs)
	if err := d.carryPlan(ctx, tok, c); err != nil {
		return false, err
	}
	if _, err := d.db.Collection(ChangesColl).InsertOne(ctx, carriedEntry(tok, seq, creates, c)); err != nil {
		return false, wrapErr(d.target, "journal the change in", err)
	}
	return false, d.linkRollback(ctx, c)
}

// carriedSeq gives the change its seq: the one an interrupted carry of
// it took, or the next.
func (d *DB) carriedSeq(ctx context.Context, tok bson.ObjectID) (int64, error) {
	var got struct {
		Seq int64 `bson:"_id"`
	}
	err := d.db.Collection(SeqsColl).FindOne(ctx, bson.D{{Key: "change", Value: tok}}).Decode(&got)
	if err == nil {
		return got.Seq, nil
	}
	if !isNoDocuments(err) {
		return 0, wrapErr(d.target, "number the change in", err)
	}
	return d.nextSeq(ctx, tok)
}

// carryItems stores the change's items, marked applied, in place of any
// an interrupted carry stored.
func (d *DB) carryItems(ctx context.Context, tok bson.ObjectID, items []Item) error {
	coll := d.db.Collection(PlanItemsColl)
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "plan", Value: tok}}); err != nil {
		return wrapErr(d.target, "journal the change in", err)
	}
	if len(items) == 0 {
		return nil
	}
	ix := mongo.IndexModel{Keys: bson.D{{Key: "plan", Value: 1}, {Key: "seq", Value: 1}}}
	if _, err := coll.Indexes().CreateOne(ctx, ix); err != nil {
		return wrapErr(d.target, "index the plans in", err)
	}
	docs := make([]any, len(items))
	for i, it := range items {
		doc, err := itemDoc(tok, i, it)
		if err != nil {
			return err
		}
		docs[i] = append(doc, bson.E{Key: "state", Value: StatusApplied})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		return d.carryRefused(err, "journal the change in")
	}
	return nil
}

// carryRefused is the error of a write the server refused (a value it
// cannot store, such as a decimal or an array of arrays on FerretDB), or
// wrapErr's for any other failure.
func (d *DB) carryRefused(err error, doing string) error {
	var we mongo.WriteException
	var bw mongo.BulkWriteException
	msg := ""
	switch {
	case errors.As(err, &bw) && len(bw.WriteErrors) > 0:
		msg = bw.WriteErrors[0].Message
	case errors.As(err, &we) && len(we.WriteErrors) > 0:
		msg = we.WriteErrors[0].Message
	default:
		return wrapErr(d.target, doing, err)
	}
	return errs.Errorf(errs.Invalid, "MongoDB at %s refused a document of the change: %s", d.target.Redacted, Redact(msg, d.target.URI)).
		WithHint("the deployment cannot store a value of the source's history (see `omgdb docs mongodb` for what each server supports); the changes before it are carried: drop the target's database, or copy without --history")
}

// carryDocs writes each item's after-image by _id (or deletes the
// document), creating or dropping the collection as c says.
func (d *DB) carryDocs(ctx context.Context, c *Carried) error {
	if c.Collection == "" {
		return nil
	}
	if c.Create {
		if ok, err := d.HasCollection(ctx, c.Collection); err != nil || !ok {
			if err != nil {
				return err
			}
			if err := d.create(ctx, c.Collection, nil); err != nil {
				return err
			}
		}
	}
	coll := d.db.Collection(c.Collection)
	for _, it := range c.Items {
		if c.StepsMove {
			break
		}
		id, err := toBSON(it.ID)
		if err != nil {
			return err
		}
		filter := bson.D{{Key: "_id", Value: id}}
		if it.After.IsMissing() {
			_, err = coll.DeleteOne(ctx, filter)
		} else {
			var doc bson.D
			if doc, err = docToBSON(it.After); err == nil {
				_, err = coll.ReplaceOne(ctx, filter, doc, options.Replace().SetUpsert(true))
			}
		}
		if err != nil {
			return d.carryRefused(err, "write a carried change's document in")
		}
	}
	for _, v := range c.Steps {
		if err := d.carryStep(ctx, stepOf(v)); err != nil {
			return err
		}
	}
	if c.Drop {
		return d.DropCollection(ctx, c.Collection)
	}
	return nil
}

// carryStep runs a step unless the deployment shows it done (an
// interrupted carry of the change ran it).
func (d *DB) carryStep(ctx context.Context, s step) error {
	done, err := d.stepDone(ctx, s)
	if err != nil || done {
		return err
	}
	return d.runStep(ctx, s)
}

// carryPlan stores the change's plan, applied, as every change has one.
func (d *DB) carryPlan(ctx context.Context, tok bson.ObjectID, c *Carried) error {
	p := &Plan{Token: c.ID, Kind: c.Kind, Collection: c.Collection, Created: c.Time, Expires: c.Time,
		Actor: c.Actor, Status: StatusApplied, RollbackOf: c.RollbackOf, Matched: int64(len(c.Items)), Modified: int64(len(c.Items))}
	_, err := d.db.Collection(PlansColl).ReplaceOne(ctx, bson.D{{Key: "_id", Value: tok}}, planDoc(tok, p), options.Replace().SetUpsert(true))
	return wrapIfErr(d.target, "store the plan in", err)
}

// carriedEntry is the journal entry of a carried change.
func carriedEntry(tok bson.ObjectID, seq int64, creates bool, c *Carried) bson.D {
	ins, upd, del := c.Change.Inserted, c.Change.Updated, c.Change.Deleted // a schema change's, from its journal
	if len(c.Items) > 0 {
		ins, upd, del = 0, 0, 0
	}
	for _, it := range c.Items {
		switch it.Op {
		case OpInsert:
			ins++
		case OpUpdate:
			upd++
		case OpDelete:
			del++
		}
	}
	doc := bson.D{{Key: "_id", Value: tok}, {Key: "seq", Value: seq}, {Key: "kind", Value: c.Kind}, {Key: "plan_kind", Value: c.Kind},
		{Key: "collection", Value: c.Collection}, {Key: "actor", Value: c.Actor},
		{Key: "time", Value: bson.NewDateTimeFromTime(c.Time)}, {Key: "status", Value: StatusApplied},
		{Key: "inserted", Value: ins}, {Key: "updated", Value: upd}, {Key: "deleted", Value: del},
		{Key: "conflicts", Value: bson.A{}}, {Key: "carried", Value: true}}
	if c.Note != "" {
		doc = append(doc, bson.E{Key: "note", Value: c.Note})
	}
	if c.RollbackOf != "" {
		doc = append(doc, bson.E{Key: "rollback_of", Value: c.RollbackOf})
	}
	if creates {
		doc = append(doc, bson.E{Key: "creates", Value: true})
	}
	if c.FileOps != "" {
		doc = append(doc, bson.E{Key: "file_ops", Value: c.FileOps})
	}
	if c.RenamedTo != "" {
		doc = append(doc, bson.E{Key: "renamed_to", Value: c.RenamedTo})
	}
	if c.Aside != "" {
		doc = append(doc, bson.E{Key: "aside", Value: c.Aside})
	}
	if c.OwnSteps {
		steps := bson.A{}
		for _, v := range c.Steps {
			if sd, err := stepDoc(stepOf(v)); err == nil {
				steps = append(steps, sd)
			}
		}
		doc = append(doc, bson.E{Key: "ops", Value: steps}, bson.E{Key: "done", Value: int64(len(steps))})
	}
	return doc
}

// linkRollback marks the change a carried rollback undid as rolled back
// by it.
func (d *DB) linkRollback(ctx context.Context, c *Carried) error {
	if c.RollbackOf == "" {
		return nil
	}
	undone, err := checkToken(c.RollbackOf, "change id")
	if err != nil {
		return err
	}
	_, err = d.db.Collection(ChangesColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: undone}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "rolled_back_by", Value: c.ID}}}})
	return wrapIfErr(d.target, "journal the rollback in", err)
}

// CarryOut passes the journal to each, oldest first, each change as a
// Carried with the documents it wrote (its items marked applied). A
// change still applying or interrupted stops it: roll it back first.
func (d *DB) CarryOut(ctx context.Context, each func(*Carried) error) error {
	opts := options.Find().SetSort(bson.D{{Key: "seq", Value: 1}, {Key: "_id", Value: 1}})
	cur, err := d.db.Collection(ChangesColl).Find(ctx, bson.D{}, opts)
	if err != nil {
		return wrapErr(d.target, "read the journal from", err)
	}
	var all []value.Value
	if err := d.drain(ctx, cur, func(v value.Value) error { all = append(all, v); return nil }); err != nil {
		return err
	}
	for _, v := range all {
		c, err := d.carriedOf(ctx, v)
		if err != nil {
			return err
		}
		if err := each(c); err != nil {
			return err
		}
	}
	return nil
}

// carriedOf reads one journal entry and its items.
func (d *DB) carriedOf(ctx context.Context, v value.Value) (*Carried, error) {
	ch := changeOf(v)
	if ch.Status != StatusApplied && ch.Status != StatusPartial {
		return nil, errs.Errorf(errs.Conflict, "change %s in %s is %s: copy --history carries only finished changes", ch.ID, d.target.Redacted, ch.Status).
			WithHint("roll it back first with `omgdb rollback %s %s`, then copy again", d.target.Redacted, ch.ID)
	}
	c := &Carried{ID: ch.ID, Kind: ch.Kind, Collection: ch.Collection, Actor: ch.Actor, Note: ch.Note,
		RollbackOf: ch.RollbackOf, Time: ch.Time, FileOps: v.Get("file_ops").Str(), Change: ch, Creates: ch.Creates}
	if ops := v.Get("ops"); ops.Kind() == value.Array {
		c.Steps = ops.Array()
	}
	tok, _ := bson.ObjectIDFromHex(ch.ID)
	items, err := d.planItems(ctx, tok, StatusApplied)
	c.Items = items
	return c, err
}

// PrunedThrough returns the seq through which the journal was pruned, or
// 0 when it never was.
func (d *DB) PrunedThrough(ctx context.Context) (int64, error) { return d.prunedThrough(ctx) }
