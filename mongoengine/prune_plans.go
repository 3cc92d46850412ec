package mongoengine

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Plans never applied leave the deployment when the journal is pruned:
// PruneHistory removes every discarded plan and every pending plan whose
// expiry passed more than ClockSkew ago (so that no omgdb whose clock is
// within ClockSkew of this one can still claim it), with their items.
// No plan that can still be applied is removed: a pending plan before
// its expiry, a plan being applied (or claimed by an apply that stopped,
// which apply --resume finishes) and an applied plan stay. A store file
// keeps such plans' headers (their documents are dropped when a plan is
// made) and does not remove them when compacted.

// pruneUnapplied removes the plans never applied, as of now: each
// header with a filter that matches only while the plan is still
// discarded or still pending past its expiry (so an apply that claimed
// it meanwhile keeps it), then, once the header is gone, its items. A
// prune killed in between leaves those items, which nothing reads.
func (d *DB) pruneUnapplied(ctx context.Context, now time.Time, res *PruneResult) error {
	gone := bson.D{{Key: "$or", Value: bson.A{
		bson.D{{Key: "status", Value: StatusDiscarded}},
		bson.D{{Key: "status", Value: StatusPending}, {Key: "expires", Value: bson.D{{Key: "$lt", Value: bson.NewDateTimeFromTime(now.Add(-ClockSkew))}}}},
	}}}
	cur, err := d.db.Collection(PlansColl).Find(ctx, gone)
	if err != nil {
		return wrapErr(d.target, "read the plans from", err)
	}
	var plans []struct {
		ID bson.ObjectID `bson:"_id"`
	}
	if err := cur.All(ctx, &plans); err != nil {
		return wrapErr(d.target, "read the plans from", err)
	}
	for _, p := range plans {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := d.db.Collection(PlansColl).DeleteOne(ctx, append(bson.D{{Key: "_id", Value: p.ID}}, gone...))
		if err != nil {
			return wrapErr(d.target, "remove a plan never applied from", err)
		}
		if r.DeletedCount == 0 {
			continue // claimed meanwhile
		}
		res.UnappliedPlans++
		ri, err := d.db.Collection(PlanItemsColl).DeleteMany(ctx, bson.D{{Key: "plan", Value: p.ID}})
		if err != nil {
			return wrapErr(d.target, "remove a plan never applied from", err)
		}
		res.UnappliedItems += ri.DeletedCount
	}
	return nil
}
