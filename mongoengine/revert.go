package mongoengine

import (
	"context"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
)

// KindRevert is the kind of a revert's plan.
const KindRevert = "revert"

// PlanRevert plans the change that brings every document written by omgdb
// changes since a revision back to its state then: documents inserted
// since are deleted, deleted ones come back, updated ones are restored.
// A plan writes one collection: coll names it, and may be empty when the
// changes since the revision wrote one collection only. Matched counts
// the documents written since; Modified, those that differ now. Documents
// written around omgdb are not in the journal and not reverted.
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
		colls := map[string]bool{}
		for _, ds := range u.order {
			colls[ds.coll] = true
		}
		if len(colls) > 1 {
			names := make([]string, 0, len(colls))
			for c := range colls {
				names = append(names, c)
			}
			sort.Strings(names)
			return nil, errs.Errorf(errs.Usage, "the changes since revision %s wrote %d collections (%s): over MongoDB a revert plans one collection", spec, len(names), strings.Join(names, ", ")).
				WithHint("revert each with --coll, e.g. --coll %s", names[0])
		}
		coll = u.collOf()
	}
	if coll != "" {
		if err := writable(coll); err != nil {
			return nil, err
		}
	}
	p := newPlan(KindRevert, &PlanSpec{Collection: coll, Expiry: ps.Expiry, Actor: ps.Actor})
	for _, ds := range u.order {
		cur, err := d.current(ctx, ds.coll, ds.id)
		if err != nil {
			return nil, err
		}
		p.Matched++
		switch {
		case cur.IsMissing() && ds.state.IsMissing():
		case cur.IsMissing():
			p.Items = append(p.Items, Item{ID: ds.id, Op: OpInsert, After: ds.state})
		case ds.state.IsMissing():
			p.Items = append(p.Items, Item{ID: ds.id, Op: OpDelete, Before: cur})
		case !sameDoc(cur, ds.state):
			p.Items = append(p.Items, Item{ID: ds.id, Op: OpUpdate, Before: cur, After: ds.state})
		}
	}
	p.Modified = int64(len(p.Items))
	return p, d.savePlan(ctx, p)
}
