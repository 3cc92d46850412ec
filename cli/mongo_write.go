package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// overMongoWrites ends the help of the commands that write over MongoDB.
const overMongoWrites = `

Over a MongoDB deployment (mongodb://…/DB) plans and the journal are kept
in the database's omgdb.plans, omgdb.plan_items and omgdb.changes; apply
writes in one transaction on a replica set or sharded cluster, and
elsewhere document by document, each only if it still equals its planned
before-image, listing every other as a conflict (exit 69). See omgdb docs
mongodb.`

// mongoPlanUpdate plans an update on the deployment: omgdb's compiler
// checks the filter and update, its update engine computes the
// after-images, and the plan is stored in omgdb.plans.
func (e *env) mongoPlanUpdate(ctx context.Context, opts *planUpdateOptions) error {
	cv, _, err := e.parseCollation(opts.collation)
	if err != nil {
		return err
	}
	spec, err := e.mongoPlanSpec(&opts.planFlags, opts.coll, opts.filter)
	if err != nil {
		return err
	}
	if spec.Update, err = e.parseDocArg(opts.update, "update"); err != nil {
		return err
	}
	if spec.ArrayFilters, err = e.parseArrayFilters(opts.arrayFilters); err != nil {
		return err
	}
	spec.Upsert, spec.First = opts.upsert, !opts.multi
	if spec.Compiled, err = changes.CompileUpdate(spec.Update, &query.UpdateOptions{ArrayFilters: spec.ArrayFilters}); err != nil {
		return err
	}
	return e.withMongoCollated(ctx, opts.path, cv, func(db *mongoengine.DB) error {
		p, err := db.PlanUpdate(ctx, spec)
		if err != nil {
			return err
		}
		return e.printJSON(planResult(p, opts.sample), opts.pretty)
	})
}

// mongoPlanDelete plans a deletion on the deployment.
func (e *env) mongoPlanDelete(ctx context.Context, opts *planDeleteOptions) error {
	cv, _, err := e.parseCollation(opts.collation)
	if err != nil {
		return err
	}
	spec, err := e.mongoPlanSpec(&opts.planFlags, opts.coll, opts.filter)
	if err != nil {
		return err
	}
	spec.First = !opts.multi
	return e.withMongoCollated(ctx, opts.path, cv, func(db *mongoengine.DB) error {
		p, err := db.PlanDelete(ctx, spec)
		if err != nil {
			return err
		}
		return e.printJSON(planResult(p, opts.sample), opts.pretty)
	})
}

// mongoPlanSpec parses and checks a plan's filter.
func (e *env) mongoPlanSpec(f *planFlags, coll, filterArg string) (*mongoengine.PlanSpec, error) {
	filter, err := e.parseDocArg(filterArg, "filter") // an upsert stores its values
	if err != nil {
		return nil, err
	}
	if _, err := engine.CheckFilter(filter); err != nil {
		return nil, err
	}
	return &mongoengine.PlanSpec{Collection: coll, Filter: filter, Expiry: f.expiry, Actor: "cli"}, nil
}

// planResult is a plan as plan-update and plan-delete print it on a
// store file.
func planResult(p *mongoengine.Plan, sample int) *changes.PlanResult {
	r := &changes.PlanResult{Token: p.Token, Matched: p.Matched, Modified: p.Modified, SampleBeforeAfter: []changes.BeforeAfter{},
		Kind: p.Kind, Collection: p.Collection, Expires: p.Expires, CreatesCollection: p.CreateTarget,
		NextValidActions: []string{changes.ActionApply, changes.ActionShow, changes.ActionDiscard}}
	for _, it := range p.Items {
		if len(r.SampleBeforeAfter) == sample {
			break
		}
		r.SampleBeforeAfter = append(r.SampleBeforeAfter, changes.BeforeAfter{Before: changes.Doc{Value: it.Before}, After: changes.Doc{Value: it.After}})
	}
	if !p.UpsertedID.IsMissing() {
		r.UpsertedID = &changes.Doc{Value: p.UpsertedID}
	}
	switch {
	case p.CreateTarget && p.Modified == 0:
		r.Message = fmt.Sprintf("the pipeline returns no document: applying this plan creates `%s`, empty", p.Collection)
	case p.NewCollection:
		r.Message = "collection `" + p.Collection + "` does not exist: applying this plan creates it with the upserted document"
	case p.Matched == 0 && p.Modified == 0:
		r.Message = fmt.Sprintf("the filter matches no document in `%s`: applying this plan changes nothing", p.Collection)
	case p.Modified == 0:
		r.Message = "no matched document would change: applying this plan changes nothing"
	}
	return r
}

// mongoApplyResult is what apply and rollback print over MongoDB: the
// keys of a store file's, with the documents not written (conflicts) and
// whether one transaction wrote them all.
type mongoApplyResult struct {
	Token            string          `json:"token,omitempty"`
	ChangeID         string          `json:"change_id"`
	RolledBack       string          `json:"rolled_back,omitempty"`
	Kind             string          `json:"kind,omitempty"`
	Inserted         int64           `json:"inserted"`
	Updated          int64           `json:"updated"`
	Deleted          int64           `json:"deleted"`
	Conflicts        []mongoConflict `json:"conflicts"`
	Transaction      bool            `json:"transaction"`
	Unwritten        int64           `json:"unwritten,omitempty"` // stopped at its deadline: documents not written
	Message          string          `json:"message,omitempty"`
	NextValidActions []string        `json:"next_valid_actions"`
}

type mongoConflict struct {
	ID     changes.Doc `json:"_id"`
	Reason string      `json:"reason"`
}

func applyOutput(res *mongoengine.ApplyResult) *mongoApplyResult {
	out := &mongoApplyResult{Token: res.Token, ChangeID: res.ChangeID, Kind: res.Kind, Inserted: res.Inserted,
		Updated: res.Updated, Deleted: res.Deleted, Conflicts: []mongoConflict{}, Transaction: res.Transaction,
		Unwritten: res.Unwritten, NextValidActions: []string{changes.ActionRollback, changes.ActionShow}}
	for _, c := range res.Conflicts {
		out.Conflicts = append(out.Conflicts, mongoConflict{ID: changes.Doc{Value: c.ID}, Reason: c.Reason})
	}
	switch {
	case res.Written() == 0 && len(res.Conflicts) == 0:
		out.Message = "the plan changes nothing: no document was written"
		out.NextValidActions = []string{changes.ActionShow}
	case res.Written() == 0:
		out.Message = "no document was written"
		out.NextValidActions = []string{changes.ActionShow}
	}
	return out
}

// conflictError is the error of an apply or rollback that left documents
// unwritten, after its result was printed: exit 69.
func conflictError(res *mongoengine.ApplyResult, what string) error {
	if len(res.Conflicts) == 0 {
		return nil
	}
	ids := make([]string, 0, len(res.Conflicts))
	for _, c := range res.Conflicts {
		ids = append(ids, fmt.Sprintf("_id %s (%s)", c.ID, c.Reason))
		if len(ids) == 10 && len(res.Conflicts) > 10 {
			ids = append(ids, fmt.Sprintf("and %d more", len(res.Conflicts)-10))
			break
		}
	}
	written := fmt.Sprintf("the other %d were written", res.Written())
	if res.Transaction {
		written = "nothing was written (one transaction)"
	}
	return errs.Errorf(errs.Conflict, "%s: %d document(s) in `%s` changed since the plan and were not written, %s: %s",
		what, len(res.Conflicts), res.Collection, written, strings.Join(ids, ", ")).
		WithHint("read them again and plan again for them; the conflicts are listed in the output and in the journal (omgdb history)")
}

// mongoApply applies a plan on the deployment.
func (e *env) mongoApply(ctx context.Context, opts *applyOptions) error {
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		apply := db.Apply
		if opts.resume {
			apply = db.Resume // mongo_resume.go
		}
		res, err := apply(ctx, opts.token, &mongoengine.ApplyOptions{Actor: "cli"})
		if res == nil {
			return err
		}
		if perr := e.printJSON(applyOutput(res), opts.pretty); perr != nil {
			return perr
		}
		if err != nil { // stopped between documents: the output says what was written
			return stoppedByCtrlC(ctx, err)
		}
		return conflictError(res, "apply "+opts.token)
	})
}

// mongoRollback rolls back a change made through omgdb on the deployment.
func (e *env) mongoRollback(ctx context.Context, opts *rollbackOptions) error {
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		res, err := db.Rollback(ctx, opts.change, &mongoengine.ApplyOptions{Actor: "cli", Force: opts.force})
		if res == nil {
			return err
		}
		out := applyOutput(&res.ApplyResult)
		out.Token, out.Kind, out.RolledBack = "", "", res.RolledBack
		schemaRollback(out, res)
		if perr := e.printJSON(out, opts.pretty); perr != nil {
			return perr
		}
		if err != nil {
			return stoppedByCtrlC(ctx, err)
		}
		return conflictError(&res.ApplyResult, "rollback "+opts.change)
	})
}

// stoppedByCtrlC makes the error of an apply or rollback that Ctrl-C
// stopped between documents an interrupted one (exit 130), keeping its
// message (what was written) and hint.
func stoppedByCtrlC(ctx context.Context, err error) error {
	var e *errs.Error
	if !errors.Is(context.Cause(ctx), errInterrupted) || !errors.As(err, &e) {
		return err
	}
	return &interruptedError{errs.Errorf(errs.IO, "interrupted: %s", e.Message).WithHint("%s", e.Hint)}
}

// mongoChange is a line of `omgdb history` over MongoDB, as the MCP
// server's history tool shows it too.
type mongoChange = mcpserver.EngineChange

// mongoHistory lists the changes made through omgdb on the deployment.
func (e *env) mongoHistory(ctx context.Context, opts *historyOptions) error {
	out, err := e.docOutput(&opts.out)
	if err != nil {
		return err
	}
	if opts.id != "" {
		return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
			vs, err := historyOnly{db}.Versions(ctx, opts.coll, value.ParseIDArg(opts.id)) // the MCP server's history gives the same
			for i, v := range vs {
				if opts.limit > 0 && i == opts.limit {
					break
				}
				if err := out.encode(v); err != nil {
					return out.close(err)
				}
			}
			return out.close(err)
		})
	}
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		hist, err := db.History(ctx, opts.coll, opts.limit)
		if err != nil {
			return out.close(err)
		}
		for _, c := range hist {
			if err := out.encode(historyRow(c)); err != nil {
				return out.close(err)
			}
		}
		return out.close(nil)
	})
}

// mongoChangeNote is a change's note in history: the plan it applied
// (none for an insert or import, as on a store file).
func mongoChangeNote(c mongoengine.Change) string {
	if c.Note != "" || c.Carried {
		return c.Note // a schema change: what it did; a carried change: its own
	}
	if c.Kind == mongoengine.KindInsert || c.Kind == mongoengine.KindImport {
		return ""
	}
	return "plan-" + c.PlanKind + " " + c.Collection
}
