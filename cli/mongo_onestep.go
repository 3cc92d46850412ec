package cli

import (
	"context"
	"fmt"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query"
)

// mongoWriteResult is what update, replace and delete print over
// MongoDB: the keys of a store file's, with the documents not written
// (conflicts) and whether one transaction wrote them all.
type mongoWriteResult struct {
	ChangeID         string          `json:"change_id,omitempty"`
	Kind             string          `json:"kind"`
	Collection       string          `json:"collection"`
	Matched          int64           `json:"matched"`
	Modified         int64           `json:"modified"`
	Deleted          int64           `json:"deleted"`
	Upserted         int64           `json:"upserted"`
	UpsertedID       *changes.Doc    `json:"upsertedId,omitempty"`
	Conflicts        []mongoConflict `json:"conflicts"`
	Transaction      bool            `json:"transaction"`
	Message          string          `json:"message,omitempty"`
	NextValidActions []string        `json:"next_valid_actions"`
}

// mongoUpdate is update (kind changes.KindUpdate) or replace
// (changes.KindReplace) over MongoDB: a plan applied at once.
func (e *env) mongoUpdate(ctx context.Context, kind, path, coll, filterArg, updateArg string, f *writeFlags, spec *mongoengine.PlanSpec) error {
	what := "update"
	if kind == changes.KindReplace {
		what = "document"
	}
	filter, update, err := e.parseFilterAnd(filterArg, updateArg, what)
	if err != nil {
		return err
	}
	spec.Collection, spec.Filter, spec.Update, spec.Actor = coll, filter, update, "cli"
	if spec.Compiled, err = changes.CompileUpdate(update, &query.UpdateOptions{ArrayFilters: spec.ArrayFilters}); err != nil {
		return err
	}
	if err := changes.CheckUpdateKind(kind, update, spec.Compiled); err != nil {
		return err
	}
	return e.mongoWrite(ctx, kind, path, f, func(db *mongoengine.DB) (*mongoengine.Plan, error) { return db.PlanUpdate(ctx, spec) })
}

// mongoDelete is delete over MongoDB: a plan applied at once.
func (e *env) mongoDelete(ctx context.Context, opts *deleteOptions) error {
	filter, err := e.parseArg(opts.filter, "filter")
	if err != nil {
		return err
	}
	spec := &mongoengine.PlanSpec{Collection: opts.coll, Filter: filter, First: opts.one, Actor: "cli"}
	return e.mongoWrite(ctx, changes.KindDelete, opts.path, &opts.writeFlags, func(db *mongoengine.DB) (*mongoengine.Plan, error) {
		return db.PlanDelete(ctx, spec)
	})
}

// mongoWrite plans with plan and applies the plan at once (or prints it,
// with --dry-run); a plan that writes nothing is discarded.
func (e *env) mongoWrite(ctx context.Context, kind, path string, f *writeFlags, plan func(*mongoengine.DB) (*mongoengine.Plan, error)) error {
	return e.withMongo(ctx, path, func(db *mongoengine.DB) error {
		p, err := plan(db)
		if err != nil {
			return err
		}
		if f.dryRun {
			return e.printJSON(planResult(p, changes.DefaultSample), f.pretty)
		}
		out, res, err := applyNow(ctx, db, kind, p, "cli")
		if err != nil {
			return err
		}
		if err := e.printJSON(out, f.pretty); err != nil {
			return err
		}
		if res == nil {
			return nil
		}
		return conflictError(res, kind)
	})
}

// applyNow applies a plan at once, by actor, and says what it did; a plan
// that writes nothing is discarded (and res is nil).
func applyNow(ctx context.Context, db *mongoengine.DB, kind string, p *mongoengine.Plan, actor string) (out *mongoWriteResult, res *mongoengine.ApplyResult, err error) {
	out = &mongoWriteResult{Kind: kind, Collection: p.Collection, Matched: p.Matched, Conflicts: []mongoConflict{}, NextValidActions: []string{}}
	if p.Modified == 0 {
		out.Message = "no matched document changed: nothing was written"
		if p.Matched == 0 {
			out.Message = fmt.Sprintf("the filter matches no document in `%s`: nothing was written", p.Collection)
		}
		return out, nil, db.Discard(ctx, p.Token)
	}
	res, err = db.Apply(ctx, p.Token, &mongoengine.ApplyOptions{Actor: actor})
	if err != nil {
		return nil, nil, err
	}
	out.Modified, out.Deleted, out.Upserted, out.Transaction = res.Updated, res.Deleted, res.Inserted, res.Transaction
	if res.Inserted > 0 {
		out.UpsertedID = &changes.Doc{Value: p.UpsertedID}
	}
	out.Conflicts = applyOutput(res).Conflicts
	if res.Written() > 0 {
		out.ChangeID, out.NextValidActions = res.ChangeID, []string{changes.ActionRollback, changes.ActionShow}
	}
	return out, res, nil
}
