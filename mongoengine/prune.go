package mongoengine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
)

// MetaColl holds omgdb's facts about the deployment's journal: today the
// cuts of PruneHistory, one document per prune, {_id:
// "pruned_through_<seq>", kind: "pruned_through", seq}; the journal is
// pruned through the greatest seq among them (and among the single
// {_id: "pruned_through", seq} an earlier omgdb kept up to date).
const MetaColl = "omgdb.meta"

// PruneResult is what PruneHistory removed.
type PruneResult struct {
	Revision    engine.Revision // the revision pruned through: its state and every later one stay reachable
	Changes     int64           // journal entries removed
	Plans       int64           // their plans
	Items       int64           // their documents' images
	Collections []string        // collections kept aside for rollback (omgdb_dropped_…) dropped
	Snapshots   []string        // snapshots before the revision, deleted
	// UnappliedPlans counts the plans never applied that were removed
	// (discarded, or expired: prune_plans.go), UnappliedItems their items.
	UnappliedPlans, UnappliedItems int64
}

// PruneHistory removes, for good, the journal up to the revision before:
// every change at or before it (their plans, images, and the collections
// a drop kept aside for rollback), the snapshots before it, and the
// plans never applied (prune_plans.go). The state
// at that revision and every later one stay reachable (--at, diff,
// revert); earlier ones, and rollback of the changes removed, are gone,
// and a revision before it is refused from then on. A change still being
// written (or interrupted) at or before the revision refuses the prune:
// roll it back first.
//
// Each change's journal entry goes first, then its plan, its images and
// its collection kept aside: a prune that is killed leaves no entry
// whose images are gone, only garbage (the next prune drops the
// collections kept aside among it).
func (d *DB) PruneHistory(ctx context.Context, before string) (*PruneResult, error) {
	rev, err := d.ResolveRevision(ctx, before)
	if err != nil {
		return nil, err
	}
	if rev.Change == "" {
		return nil, errs.Errorf(errs.Invalid, "revision %s is the database before any change made through omgdb: there is no history before it to prune", before).
			WithHint("name a later revision (`omgdb log %s`)", d.target.Redacted)
	}
	upTo := bson.D{{Key: "$or", Value: bson.A{
		bson.D{{Key: "seq", Value: bson.D{{Key: "$lte", Value: rev.Seq}}}},
		bson.D{{Key: "seq", Value: bson.D{{Key: "$exists", Value: false}}}}}}}
	chs, err := d.journal(ctx, upTo, 1, 0)
	if err != nil {
		return nil, err
	}
	for _, ch := range chs {
		if ch.Status != StatusApplied && ch.Status != StatusPartial {
			return nil, errs.Errorf(errs.Conflict, "change %s is %s: its documents are not all accounted for, so its history cannot be pruned", ch.ID, ch.Status).
				WithHint("roll it back with `omgdb rollback %s %s` (once its lease has expired), then prune", d.target.Redacted, ch.ID)
		}
	}
	res := &PruneResult{Revision: rev}
	// The cut first: from here on no revision before it resolves, even if
	// the prune is killed before the end.
	if err := d.recordCut(ctx, rev.Seq); err != nil {
		return nil, err
	}
	for _, ch := range chs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		tok, _ := bson.ObjectIDFromHex(ch.ID)
		r, err := d.db.Collection(ChangesColl).DeleteOne(ctx, bson.D{{Key: "_id", Value: tok}})
		if err != nil {
			return res, wrapErr(d.target, "prune the journal in", err)
		}
		res.Changes += r.DeletedCount
		if err := d.pruneGarbage(ctx, tok, res); err != nil {
			return res, err
		}
	}
	if err := d.pruneOrphans(ctx, res); err != nil {
		return res, err
	}
	if err := d.pruneUnapplied(ctx, time.Now(), res); err != nil {
		return res, err
	}
	snaps, err := d.db.Collection(SnapshotsColl).Find(ctx, bson.D{{Key: "seq", Value: bson.D{{Key: "$lt", Value: rev.Seq}}}})
	if err != nil {
		return res, wrapErr(d.target, "read the snapshots of", err)
	}
	var gone []struct {
		Name string `bson:"_id"`
	}
	if err := snaps.All(ctx, &gone); err != nil {
		return res, wrapErr(d.target, "read the snapshots of", err)
	}
	for _, s := range gone {
		if _, err := d.db.Collection(SnapshotsColl).DeleteOne(ctx, bson.D{{Key: "_id", Value: s.Name}}); err != nil {
			return res, wrapErr(d.target, "delete a snapshot in", err)
		}
		res.Snapshots = append(res.Snapshots, s.Name)
	}
	return res, nil
}

// pruneGarbage removes what a change whose journal entry is gone left:
// its plan, its images and the collection it kept aside.
func (d *DB) pruneGarbage(ctx context.Context, tok bson.ObjectID, res *PruneResult) error {
	r, err := d.db.Collection(PlanItemsColl).DeleteMany(ctx, bson.D{{Key: "plan", Value: tok}})
	if err != nil {
		return wrapErr(d.target, "prune the journal's documents in", err)
	}
	res.Items += r.DeletedCount
	r, err = d.db.Collection(PlansColl).DeleteOne(ctx, bson.D{{Key: "_id", Value: tok}})
	if err != nil {
		return wrapErr(d.target, "prune the plans in", err)
	}
	res.Plans += r.DeletedCount
	aside := DroppedPrefix + tok.Hex()
	names, err := d.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: aside}})
	if err != nil {
		return wrapErr(d.target, "list the collections of", err)
	}
	if len(names) > 0 {
		if err := d.db.Collection(aside).Drop(ctx); err != nil {
			return wrapErr(d.target, "drop a collection kept for rollback in", err)
		}
		res.Collections = append(res.Collections, aside)
	}
	return nil
}

// pruneOrphans removes the largest garbage a killed prune leaves: a
// collection kept aside for a change that is no longer in the journal
// (with its plan and images). A killed prune's other plans and images
// stay: small, and harmless, since no journal entry points at them.
func (d *DB) pruneOrphans(ctx context.Context, res *PruneResult) error {
	names, err := d.db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return wrapErr(d.target, "list the collections of", err)
	}
	var ids []bson.ObjectID
	for _, n := range names {
		if hex, ok := strings.CutPrefix(n, DroppedPrefix); ok {
			if id, err := bson.ObjectIDFromHex(hex); err == nil {
				ids = append(ids, id)
			}
		}
	}
	for _, id := range ids {
		err := d.db.Collection(ChangesColl).FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Err()
		if err == nil {
			continue
		}
		if err != mongo.ErrNoDocuments {
			return wrapErr(d.target, "read the journal of", err)
		}
		if err := d.pruneGarbage(ctx, id, res); err != nil {
			return err
		}
	}
	return nil
}

// prunedThrough is the seq through which the journal was pruned (0:
// never): the greatest cut recorded.
func (d *DB) prunedThrough(ctx context.Context) (int64, error) {
	var m struct {
		Seq int64 `bson:"seq"`
	}
	filter := bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "_id", Value: cutKind}}, bson.D{{Key: "kind", Value: cutKind}}}}}
	err := d.db.Collection(MetaColl).FindOne(ctx, filter, options.FindOne().SetSort(bson.D{{Key: "seq", Value: -1}})).Decode(&m)
	if err == mongo.ErrNoDocuments {
		return 0, nil
	}
	if err != nil {
		return 0, wrapErr(d.target, "read the journal's bounds from", err)
	}
	return m.Seq, nil
}

// cutKind marks a cut's record in MetaColl.
const cutKind = "pruned_through"

// recordCut records that the journal is pruned through seq. Each cut is
// a document of its own, inserted, never updated: a server without
// atomic updates (FerretDB v1.24.2 ran four concurrent $max upserts of
// one record as reads then writes, and kept the lower seq) still keeps
// every cut, and the greatest wins. The same cut recorded twice (a prune
// run again after a kill) is a duplicate key, and already there.
func (d *DB) recordCut(ctx context.Context, seq int64) error {
	rec := bson.D{{Key: "_id", Value: fmt.Sprintf("%s_%d", cutKind, seq)}, {Key: "kind", Value: cutKind}, {Key: "seq", Value: seq}}
	if _, err := d.db.Collection(MetaColl).InsertOne(ctx, rec); err != nil && !mongo.IsDuplicateKeyError(err) {
		return wrapErr(d.target, "record the pruning in", err)
	}
	return nil
}
