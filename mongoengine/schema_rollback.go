package mongoengine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// rollbackSchema rolls back a schema change (one whose journal entry
// lists steps): a new change of kind rollback whose steps are the
// inverses of the change's, last first. An interrupted change (status
// applying) is rolled back too: the steps it counted as done, and the
// one after them if the collections and indexes show it was carried
// out. ok is false when changeID is not a schema change.
func (d *DB) rollbackSchema(ctx context.Context, changeID string, opts *ApplyOptions) (res *RollbackResult, ok bool, err error) {
	tok, err := bson.ObjectIDFromHex(changeID)
	if err != nil {
		return nil, false, nil
	}
	raw, err := d.db.Collection(ChangesColl).FindOne(ctx, bson.D{{Key: "_id", Value: tok}}).Raw()
	if err != nil {
		return nil, false, nil // Rollback reads it again and reports
	}
	v, err := fromDoc(raw)
	if err != nil || v.Get("ops").IsMissing() {
		return nil, false, err
	}
	ch := changeOf(v)
	if ch.RolledBackBy != "" {
		return nil, true, errs.Errorf(errs.Conflict, "change %s was already rolled back by %s", changeID, ch.RolledBackBy).
			WithHint("roll back %s to redo it", ch.RolledBackBy)
	}
	steps, err := d.doneSteps(ctx, v)
	if err != nil {
		return nil, true, err
	}
	sc := &schemaChange{id: bson.NewObjectID(), kind: KindRollback, coll: ch.Collection, actor: opts.Actor,
		note: "rollback of " + ch.Note}
	for i := len(steps) - 1; i >= 0; i-- {
		sc.steps = append(sc.steps, inverse(steps[i], DroppedPrefix+sc.id.Hex()))
	}
	sc.extra = bson.D{{Key: "rollback_of", Value: changeID}}
	if err := d.runSchema(ctx, sc); err != nil {
		return nil, true, err
	}
	_, err = d.db.Collection(ChangesColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: tok}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "rolled_back_by", Value: sc.id.Hex()}}}})
	if err != nil {
		return nil, true, wrapErr(d.target, "journal the rollback in", err)
	}
	out := &RollbackResult{ApplyResult: ApplyResult{ChangeID: sc.id.Hex(), Kind: KindRollback, Collection: ch.Collection}, RolledBack: changeID, Undid: ch.Note}
	return out, true, nil
}

// doneSteps returns the steps of a journaled schema change that were
// carried out: all of an applied change's; of an interrupted one, those
// counted in "done" and the next if the deployment shows it done.
func (d *DB) doneSteps(ctx context.Context, v value.Value) ([]step, error) {
	var steps []step
	for _, s := range v.Get("ops").Array() {
		steps = append(steps, stepOf(s))
	}
	if v.Get("status").Str() == StatusApplied {
		return steps, nil
	}
	done := int(v.Get("done").Long())
	if done < len(steps) {
		ok, err := d.stepDone(ctx, steps[done])
		if err != nil {
			return nil, err
		}
		if ok {
			done++
		}
	}
	return steps[:done], nil
}

// stepDone reports whether the deployment shows s carried out.
func (d *DB) stepDone(ctx context.Context, s step) (bool, error) {
	switch s.Op {
	case stepRename:
		from, err := d.HasCollection(ctx, s.Coll)
		if err != nil {
			return false, err
		}
		to, err := d.HasCollection(ctx, s.To)
		return !from && to, err
	case stepCreate:
		return d.HasCollection(ctx, s.Coll)
	case stepDefine:
		return true, nil // its inverse sets the rules it replaced, whether it ran or not
	}
	has, err := d.hasIndex(ctx, s.Coll, s.Spec.Get("name").Str())
	if s.Op == stepDropIndex {
		return !has, err
	}
	return has, err
}

func (d *DB) hasIndex(ctx context.Context, coll, name string) (bool, error) {
	specs, err := d.IndexSpecs(ctx, coll)
	if err != nil {
		return false, err
	}
	_, ok := findIndex(specs, name, value.Value{})
	return ok, nil
}
