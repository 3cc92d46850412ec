package mongoengine

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// takeOver makes an applying change whose lease has expired interrupted,
// in one server operation that matches only while the change still holds
// the lease that was read: a writer that renewed it meanwhile is running,
// and keeps it. A change whose lease runs is refused.
func (d *DB) takeOver(ctx context.Context, ch *Change) error {
	if !leaseExpired(ch, time.Now()) {
		return errs.Errorf(errs.Conflict, "change %s is being written by another omgdb (its lease runs until %s)", ch.ID, ch.LeaseUntil.Format(time.RFC3339)).
			WithHint("wait for it to finish; if that omgdb was stopped, its lease expires at the time given, and `omgdb rollback %s %s` then undoes what it wrote", d.target.Redacted, ch.ID)
	}
	tok, _ := bson.ObjectIDFromHex(ch.ID)
	filter := append(bson.D{{Key: "_id", Value: tok}, {Key: "status", Value: StatusApplying}}, leaseFilter(ch)...)
	r, err := d.db.Collection(ChangesColl).UpdateOne(ctx, filter, bson.D{{Key: "$set", Value: bson.D{
		{Key: "status", Value: StatusInterrupted}, {Key: "interrupted_time", Value: bson.NewDateTimeFromTime(time.Now())}}}})
	if err != nil {
		return wrapErr(d.target, "journal the change in", err)
	}
	if r.MatchedCount == 0 {
		return errs.Errorf(errs.Conflict, "change %s changed while it was taken over: its writer renewed its lease, or another rollback took it", ch.ID).
			WithHint("see `omgdb history %s`, then try again", d.target.Redacted)
	}
	ch.Status = StatusInterrupted
	return nil
}

// undoItems are the items a rollback of ch undoes, in plan order: the
// items marked applied, and for an interrupted change the unmarked ones
// that were written when it stopped. An apply writes its documents one
// after the other and marks each right after, so only its first unmarked
// item may have been written; an insert or import sends a batch at once,
// so each of its unmarked items may have been.
func (d *DB) undoItems(ctx context.Context, ch *Change, tok bson.ObjectID) ([]Item, error) {
	if ch.Status != StatusInterrupted {
		return d.planItems(ctx, tok, "applied")
	}
	all, err := d.planItems(ctx, tok, nil)
	if err != nil {
		return nil, err
	}
	var unmarked []Item
	for _, it := range all {
		if it.State == "" {
			unmarked = append(unmarked, it)
		}
	}
	if ch.PlanKind != KindInsert && ch.PlanKind != KindImport && len(unmarked) > 1 {
		unmarked = unmarked[:1]
	}
	written, err := d.writtenUnmarked(ctx, ch.Collection, unmarked)
	if err != nil {
		return nil, err
	}
	var out []Item
	for _, it := range all {
		if it.State == "applied" || it.State == "" && written[idKey(it.ID)] {
			out = append(out, it)
		}
	}
	return out, nil
}

// writtenUnmarked says, by _id, which of the unmarked items may have been
// written: the document does not hold what it held before the item (an
// update's document is not its before-image, an insert's is there, a
// deletion's is gone). Undoing one that holds neither image is then a
// conflict, reported, as for any document changed since.
func (d *DB) writtenUnmarked(ctx context.Context, coll string, items []Item) (map[string]bool, error) {
	written := map[string]bool{}
	if len(items) == 0 {
		return written, nil
	}
	ids := bson.A{}
	for _, it := range items {
		id, err := toBSON(it.ID)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	cur, err := d.db.Collection(coll).Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
	if err != nil {
		return nil, wrapErr(d.target, "read from", err)
	}
	now := map[string]value.Value{}
	err = d.drain(ctx, cur, func(v value.Value) error {
		now[idKey(v.Get("_id"))] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		doc, there := now[idKey(it.ID)]
		switch it.Op {
		case OpUpdate:
			written[idKey(it.ID)] = !there || !sameDoc(doc, it.Before)
		case OpInsert:
			written[idKey(it.ID)] = there
		case OpDelete:
			written[idKey(it.ID)] = !there
		}
	}
	return written, nil
}

// idKey is an _id as a map key: its canonical JSON, type included.
func idKey(id value.Value) string { return string(value.AppendJSON(nil, id)) }
