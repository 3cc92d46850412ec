package mongoengine

import (
	"cmp"
	"context"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Version is one version of a document, as `history --id` prints it: the
// change that wrote it and the document as that write left it (missing
// after a deletion). Seq takes the place of a store file's lsn.
type Version struct {
	Seq        int64
	Change     string
	Kind       string
	Time       time.Time
	Actor      string
	Collection string
	Op         string // insert, update or delete
	Doc        value.Value
}

// Versions lists the versions of the document with _id id written
// through omgdb, newest first (journal order): one per applied item of a
// change on it, in coll only when coll is not empty, at most limit when
// limit is positive. A write made around omgdb is in no change, so it is
// not a version; an interrupted change's documents count as its items
// mark them. A document the journal never wrote is a NotFound error.
// It reads every item of the document (omgdb.plan_items has no index on
// the _id: a scan of the items).
func (d *DB) Versions(ctx context.Context, coll string, id value.Value, limit int) ([]Version, error) {
	bid, err := toBSON(id)
	if err != nil {
		return nil, err
	}
	cur, err := d.db.Collection(PlanItemsColl).Find(ctx, bson.D{{Key: "id", Value: bid}, {Key: "state", Value: "applied"}})
	if err != nil {
		return nil, wrapErr(d.target, "read the journal's documents from", err)
	}
	type item struct {
		Item
		plan string
		seq  int64
	}
	var items []item
	err = d.drain(ctx, cur, func(v value.Value) error {
		if value.Compare(v.Get("id"), id) != 0 { // as the _id index compares: 7, 7.0 and a long 7 are one _id
			return nil
		}
		items = append(items, item{Item: Item{ID: v.Get("id"), Op: v.Get("op").Str(), After: v.Get("after")},
			plan: v.Get("plan").OID().Hex(), seq: v.Get("seq").Long()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	changes := map[string]*Change{}
	var out []Version
	var order []struct{ seq, item int64 }
	for _, it := range items {
		ch, ok := changes[it.plan]
		if !ok {
			tok, _ := bson.ObjectIDFromHex(it.plan)
			chs, err := d.journal(ctx, bson.D{{Key: "_id", Value: tok}}, 1, 1)
			if err != nil {
				return nil, err
			}
			if len(chs) == 1 {
				ch = &chs[0]
			}
			changes[it.plan] = ch
		}
		if ch == nil || (coll != "" && ch.Collection != coll) {
			continue // a plan not applied, or another collection
		}
		doc := it.After
		if it.Op == OpDelete {
			doc = value.MissingValue
		}
		out = append(out, Version{Seq: ch.Seq, Change: ch.ID, Kind: ch.Kind, Time: ch.Time, Actor: ch.Actor, Collection: ch.Collection, Op: it.Op, Doc: doc})
		order = append(order, struct{ seq, item int64 }{ch.Seq, it.seq})
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { // newest first: by seq, then by the change id, then the item's place
		if c := cmp.Compare(order[b].seq, order[a].seq); c != 0 {
			return c
		}
		if c := cmp.Compare(out[b].Change, out[a].Change); c != 0 {
			return c
		}
		return cmp.Compare(order[b].item, order[a].item)
	})
	sorted := make([]Version, 0, len(out))
	for _, i := range idx {
		if limit > 0 && len(sorted) == limit {
			break
		}
		sorted = append(sorted, out[i])
	}
	if len(sorted) == 0 {
		where := "any collection"
		if coll != "" {
			where = "`" + coll + "`"
		}
		return nil, errs.Errorf(errs.NotFound, "no history for _id %s in %s", id, where).
			WithHint("check the _id (an ObjectId is written {\"$oid\":\"…\"} or as 24 bare hex digits) and the --coll; writes made around omgdb are not in its journal")
	}
	return sorted, nil
}
