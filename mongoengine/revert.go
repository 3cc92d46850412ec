package mongoengine

import (
	"context"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// KindRevert is the kind of a revert's plan.
const KindRevert = "revert"

// PlanRevert plans the change that brings every document written by omgdb
// changes since a revision back to its state then: documents inserted
// since are deleted, deleted ones come back, updated ones are restored.
// A plan writes one collection: coll names it, and may be empty when the
// changes since the revision wrote one collection only. Matched counts
// the documents written since; Modified, those that differ now. Documents
// written around omgdb are not in the journal and not reverted. A
// collection that a drop or rename since moved (or whose name another
// took) is compared whole: the collection of that name now against what
// the name held then, read where it is now (timetravel_follow.go);
// Matched then counts the documents that differ.
func (d *DB) PlanRevert(ctx context.Context, spec, coll string, ps *PlanSpec) (*Plan, error) {
	rev, err := d.ResolveRevision(ctx, spec)
	if err != nil {
		return nil, err
	}
	u, err := d.undoAfter(ctx, rev, coll)
	if err != nil {
		return nil, err
	}
	if coll == "" {
		if coll, err = revertColl(u, spec); err != nil {
			return nil, err
		}
	}
	if coll != "" {
		if err := writable(coll); err != nil {
			return nil, err
		}
	}
	p := newPlan(KindRevert, &PlanSpec{Collection: coll, Expiry: ps.Expiry, Actor: ps.Actor})
	if u.line(coll).moved {
		err = d.revertMoved(ctx, p, rev)
	} else {
		err = d.revertDocs(ctx, p, u)
	}
	if err != nil {
		return nil, err
	}
	p.Modified = int64(len(p.Items))
	return p, d.savePlan(ctx, p)
}

// revertColl is the one collection the changes since the revision wrote
// or moved ("" for none); several are a Usage error.
func revertColl(u *undoSet, spec string) (string, error) {
	colls := map[string]bool{}
	for _, ds := range u.order {
		colls[ds.coll] = true
	}
	for name, l := range u.lines {
		colls[name] = colls[name] || l.moved
	}
	names := []string{}
	for c, ok := range colls {
		if ok {
			names = append(names, c)
		}
	}
	sort.Strings(names)
	switch len(names) {
	case 0:
		return "", nil
	case 1:
		return names[0], nil
	}
	return "", errs.Errorf(errs.Usage, "the changes since revision %s wrote %d collections (%s): over MongoDB a revert plans one collection", spec, len(names), strings.Join(names, ", ")).
		WithHint("revert each with --coll, e.g. --coll %s", names[0])
}

// revertDocs plans, for each document written since the revision, the
// write back to its state then.
func (d *DB) revertDocs(ctx context.Context, p *Plan, u *undoSet) error {
	for _, ds := range u.order {
		if ds.coll != p.Collection {
			continue
		}
		cur, err := d.current(ctx, ds.coll, ds.id)
		if err != nil {
			return err
		}
		p.Matched++
		if it, ok := revertItem(ds.id, cur, ds.state); ok {
			p.Items = append(p.Items, it)
		}
	}
	return nil
}

// revertMoved plans the revert of a collection that a drop or rename
// since the revision moved (or whose name another collection took): the
// collection of that name now is compared, document by document, with
// what the name held at the revision, read where it is now.
func (d *DB) revertMoved(ctx context.Context, p *Plan, rev engine.Revision) error {
	now, err := d.scanNow(ctx, p.Collection)
	if err != nil {
		return err
	}
	docs, err := d.compareAt(ctx, p.Collection, rev, nil, now)
	if err != nil {
		return err
	}
	for _, dc := range docs {
		p.Matched++
		if it, ok := revertItem(dc.ID, dc.After, dc.Before); ok {
			p.Items = append(p.Items, it)
		}
	}
	return nil
}

// revertItem is the write that turns cur into then (Missing: absent).
func revertItem(id, cur, then value.Value) (Item, bool) {
	switch {
	case cur.IsMissing() && then.IsMissing():
		return Item{}, false
	case cur.IsMissing():
		return Item{ID: id, Op: OpInsert, After: then}, true
	case then.IsMissing():
		return Item{ID: id, Op: OpDelete, Before: cur}, true
	case !sameDoc(cur, then):
		return Item{ID: id, Op: OpUpdate, Before: cur, After: then}, true
	}
	return Item{}, false
}

// scanNow reads coll now, in _id order; a missing collection is empty.
func (d *DB) scanNow(ctx context.Context, coll string) (agg.Source, error) {
	c, err := d.collection(ctx, coll)
	if errs.KindOf(err) == errs.NotFound {
		return emptySource{}, nil
	}
	if err != nil {
		return nil, err
	}
	cur, err := c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, wrapErr(d.target, "read from", err)
	}
	return &atSource{ctx: ctx, d: d, u: &undoSet{docs: map[string]*docState{}}, cur: cur}, nil
}
