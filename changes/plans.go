package changes

import (
	"context"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Plans lists plans, oldest first: the pending ones, or with all every
// plan the store remembers (applied, discarded and expired ones keep
// their header). Status is as of now: a pending plan past its expiry is
// listed as expired.
func Plans(ctx context.Context, db *store.DB, all bool) ([]*Plan, error) {
	out := []*Plan{}
	err := db.View(func(tx *store.Tx) error {
		plans, err := allPlans(tx)
		now := timeNow()
		for _, p := range plans {
			p.Status = p.status(now)
			if all || p.Status == StatusPending {
				out = append(out, p)
			}
		}
		return err
	})
	return out, err
}

// PlanDoc is one document of a plan, as ShowPlan returns it.
type PlanDoc struct {
	Collection string      `json:"collection"`
	ID         Doc         `json:"_id"`
	Op         string      `json:"op"`     // insert, update or delete
	Before     Doc         `json:"before"` // when planned; null for an insert, or when stale and the journal was pruned
	After      Doc         `json:"after"`  // after the change; null for a delete
	Fields     []FieldDiff `json:"fields,omitempty"`
}

// ShowPlan returns a plan and every document it changes (matched
// documents that would not change are left out). An applied, discarded or
// expired plan has no documents left: an applied one's are in the journal
// (see Diff and Versions). A document's before-image, which plans do not
// store, is the current document while its bytes have the plan's digest,
// and otherwise (the plan is stale) its state at the plan's base LSN,
// from the journal; null when compaction pruned that part of the journal.
func ShowPlan(ctx context.Context, db *store.DB, token string) (*Plan, []PlanDoc, error) {
	if err := checkToken(token, "plan token"); err != nil {
		return nil, nil, err
	}
	var p *Plan
	docs := []PlanDoc{}
	err := db.View(func(tx *store.Tx) error {
		var err error
		if p, err = loadPlan(tx, token); err != nil {
			return err
		}
		p.Status = p.status(timeNow())
		pb := &planBefores{base: p.BaseLSN}
		return eachItem(tx, token, withAfter|withBefore, func(it *item) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if it.op == opNone {
				return nil
			}
			if !it.hasBefore {
				if it.before, err = pb.before(ctx, tx, it); err != nil {
					return err
				}
			}
			d := PlanDoc{Collection: it.coll, ID: Doc{it.id}, Op: it.op, Before: Doc{it.before}, After: Doc{it.after}}
			if it.op == opUpdate && !it.before.IsMissing() {
				d.Fields = FieldDiffs(it.before, it.after)
			}
			docs = append(docs, d)
			return nil
		})
	})
	if err != nil {
		return nil, nil, err
	}
	return p, docs, nil
}

// Discard drops a pending plan: its documents are forgotten and its token
// can no longer be applied.
func Discard(ctx context.Context, db *store.DB, token string) (*Plan, error) {
	if err := checkToken(token, "plan token"); err != nil {
		return nil, err
	}
	var p *Plan
	err := db.Update(store.Change{Kind: "plan"}, func(tx *store.Tx) error {
		var err error
		if p, err = loadPlan(tx, token); err != nil {
			return err
		}
		now := timeNow()
		if err := checkPending(tx, p, now); err != nil {
			return err
		}
		return retire(tx, p, StatusDiscarded, now)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// planBefores finds the before-images of a plan's items: the documents as
// they were when planned, whose bytes have the items' digests.
type planBefores struct {
	base uint64   // the plan's BaseLSN
	then *undoSet // the state at base of what changed since, read once needed
}

// before returns it's document as it was when planned: the current one
// while it has the plan's digest, else its state at the plan's base LSN,
// from the journal (missing when that part was pruned).
func (pb *planBefores) before(ctx context.Context, tx *store.Tx, it *item) (value.Value, error) {
	if it.digest == "" {
		return value.Value{}, nil // planned as absent
	}
	js, err := currentJSON(tx, it.coll, it.id)
	if err != nil {
		return value.Value{}, err
	}
	if js != nil && digest(js) == it.digest {
		return parseImage(js)
	}
	if pb.then == nil {
		if pb.then, err = undoAfter(ctx, tx, pb.base, ""); err != nil {
			return value.Value{}, err
		}
	}
	if d := pb.then.docs[docKey(it.coll, it.id)]; d != nil && !d.state.IsMissing() &&
		digest(value.JSON(d.state)) == it.digest {
		return d.state, nil
	}
	return value.Value{}, nil
}
