package cli

import (
	"context"

	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/shell"
)

var _ shell.AggregateWriter = mongoShellWriter{}

// AggregateWrite plans an aggregate's $out or $merge as plan-aggregate
// does and applies it at once, one journaled change by actor "shell"; a
// plan that writes nothing (and creates no collection) is discarded.
// Documents that conflicted are an error, after the others are written.
func (w mongoShellWriter) AggregateWrite(ctx context.Context, coll string, pipeline value.Value) (string, error) {
	p, err := planAggregateOn(ctx, w.db, coll, pipeline, &mongoengine.PlanSpec{Actor: "shell"})
	if err != nil {
		return "", err
	}
	if p.Modified == 0 && !p.CreateTarget {
		return "", w.db.Discard(ctx, p.Token)
	}
	res, err := w.db.Apply(ctx, p.Token, &mongoengine.ApplyOptions{Actor: "shell"})
	if err != nil {
		return "", err
	}
	change := ""
	if res.Written() > 0 {
		change = res.ChangeID
	}
	return change, conflictError(res, "aggregate")
}
