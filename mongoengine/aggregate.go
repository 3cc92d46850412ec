package mongoengine

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// KindAggregate is the kind of a plan-aggregate's plan: the writes of a
// pipeline that ends in $out or $merge.
const KindAggregate = "aggregate"

// PlanWrites stores a plan of writes the caller computed: a
// plan-aggregate's, whose $out or $merge semantics are omgdb's own
// (changes.WriteStage) over the results the server returned and the
// target it read. spec.Collection is the target (refused when it is one
// of omgdb's or the server's), spec.Source and spec.Pipeline what was
// planned; matched counts the results. createTarget asks apply to create
// the target even when the plan writes no document ($out into a missing
// collection).
func (d *DB) PlanWrites(ctx context.Context, kind string, spec *PlanSpec, matched int64, items []Item, createTarget bool) (*Plan, error) {
	if err := writable(spec.Collection); err != nil {
		return nil, err
	}
	p := newPlan(kind, spec)
	p.Matched, p.Items, p.CreateTarget = matched, items, createTarget
	p.Modified = int64(len(items))
	return p, d.savePlan(ctx, p)
}

// createTarget creates the target of a $out plan that asked for it, if
// it does not exist yet (a collection created meanwhile is left as is).
func (d *DB) createTarget(ctx context.Context, p *Plan) error {
	if !p.CreateTarget {
		return nil
	}
	err := d.db.CreateCollection(ctx, p.Collection)
	var ce mongo.CommandError
	if errors.As(err, &ce) && ce.Code == 48 { // NamespaceExists
		return nil
	}
	if err != nil {
		return wrapErr(d.target, "create the collection in", err)
	}
	p.createdTarget = true
	return nil
}

// CheckTarget refuses a collection omgdb does not write through plans
// (omgdb.*, system.*, an empty name), before anything is sent.
func CheckTarget(coll string) error { return writable(coll) }
