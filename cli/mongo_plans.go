package cli

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// mongoPlans lists the plans of the deployment as plans lists a store
// file's.
func (e *env) mongoPlans(ctx context.Context, opts *plansOptions) error {
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		plans, err := db.Plans(ctx, opts.all)
		if err != nil {
			return err
		}
		for _, p := range plans {
			if err := e.printJSON(filePlan(p), false); err != nil {
				return err
			}
		}
		return nil
	})
}

// mongoPlansShow prints a plan's documents, or with --diff a readable
// diff, as on a store file. A plan applied over MongoDB keeps its
// documents: they are its change's before- and after-images.
func (e *env) mongoPlansShow(ctx context.Context, opts *plansOptions) error {
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		mp, err := db.ShowPlan(ctx, opts.token)
		if err != nil {
			return err
		}
		p, docs := filePlan(mp), planDocs(mp)
		switch p.Status {
		case changes.StatusPending:
		case mongoengine.StatusApplied, mongoengine.StatusApplying:
			fmt.Fprintf(e.stderr, "plan %s is %s as change %s: these are its documents as planned; `omgdb history %s` says what was written\n",
				p.Token, p.Status, p.Token, db.Target().Redacted)
		default:
			fmt.Fprintf(e.stderr, "plan %s is %s; it no longer holds its documents\n", p.Token, p.Status)
			docs = nil
		}
		return e.printPlanDocs(p, docs, opts.diff)
	})
}

// mongoPlansDiscard drops a pending plan of the deployment.
func (e *env) mongoPlansDiscard(ctx context.Context, opts *plansOptions) error {
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		p, err := db.DiscardPlan(ctx, opts.token)
		if err != nil {
			return err
		}
		return e.printJSON(filePlan(p), false)
	})
}

// filePlan is a plan of the deployment as a store file's plans show it
// (base_lsn is 0: there are no lsns over MongoDB).
func filePlan(p *mongoengine.Plan) *changes.Plan {
	doc := func(v value.Value) *changes.Doc {
		if v.IsMissing() {
			return nil
		}
		return &changes.Doc{Value: v}
	}
	out := &changes.Plan{Token: p.Token, Kind: p.Kind, Collection: p.Collection, Filter: doc(p.Filter), Update: doc(p.Update),
		Upsert: p.Upsert, First: p.First, Source: p.Source, Pipeline: doc(p.Pipeline), CreateTarget: p.CreateTarget,
		Matched: p.Matched, Modified: p.Modified, Created: p.Created, Expires: p.Expires, Actor: p.Actor,
		Status: p.Status, StatusTime: p.StatusTime}
	for _, f := range p.ArrayFilters {
		out.ArrayFilters = append(out.ArrayFilters, changes.Doc{Value: f})
	}
	return out
}

// planDocs are a plan's documents as plans show prints them.
func planDocs(p *mongoengine.Plan) []changes.PlanDoc {
	docs := []changes.PlanDoc{}
	for _, it := range p.Items {
		d := changes.PlanDoc{Collection: p.Collection, ID: changes.Doc{Value: it.ID}, Op: it.Op,
			Before: changes.Doc{Value: it.Before}, After: changes.Doc{Value: it.After}}
		if it.Op == mongoengine.OpUpdate {
			d.Fields = changes.FieldDiffs(it.Before, it.After)
		}
		docs = append(docs, d)
	}
	return docs
}

// mongoPlanAggregate plans the writes of a pipeline ending in $out or
// $merge on the deployment.
func (e *env) mongoPlanAggregate(ctx context.Context, opts *planAggregateOptions) error {
	pipeline, err := e.parseArg(opts.pipeline, "pipeline")
	if err != nil {
		return err
	}
	spec := &mongoengine.PlanSpec{Expiry: opts.expiry, Actor: "cli"}
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		p, err := planAggregateOn(ctx, db, opts.coll, pipeline, spec)
		if err != nil {
			return err
		}
		return e.printJSON(planResult(p, opts.sample), opts.pretty)
	})
}

// planAggregateOn plans a pipeline's $out or $merge on the deployment, for
// the CLI, the shell and the MCP server: omgdb's compiler checks the
// stages before the write stage and the write stage itself (as on a
// store file) before anything is sent; the stages run on the server; the
// target is read in _id order; and the writes are computed with the
// store file's $out and $merge semantics (changes.WriteStage), then
// stored as a plan on the target (spec.Collection, Source and Pipeline
// are set here).
func planAggregateOn(ctx context.Context, db *mongoengine.DB, source string, pipeline value.Value, spec *mongoengine.PlanSpec) (*mongoengine.Plan, error) {
	ws, rest, err := changes.ParseWriteStage(ctx, pipeline, time.Now().UTC().Truncate(time.Millisecond))
	if err != nil {
		return nil, err
	}
	if _, err := engine.CheckPipeline(rest, &agg.PipelineOptions{}); err != nil {
		return nil, err
	}
	if err := mongoengine.CheckTarget(ws.Target()); err != nil {
		return nil, err
	}
	var results []value.Value
	if err := db.Aggregate(ctx, source, rest, func(v value.Value) error {
		results = append(results, v)
		return nil
	}); err != nil {
		return nil, err
	}
	t, err := mongoTarget(ctx, db, ws)
	if err != nil {
		return nil, err
	}
	writes, matched, err := ws.Plan(t, results)
	if err != nil {
		return nil, err
	}
	items := make([]mongoengine.Item, len(writes))
	for i, w := range writes {
		items[i] = mongoengine.Item{ID: w.ID, Op: w.Op, Before: w.Before, After: w.After}
	}
	spec.Collection, spec.Source, spec.Pipeline = ws.Target(), source, pipeline
	return db.PlanWrites(ctx, mongoengine.KindAggregate, spec, matched, items, ws.Out() && !t.Exists)
}

// mongoTarget reads a write stage's target: whether it exists, its
// documents in _id order, and (for a $merge on other fields than _id)
// its unique indexes.
func mongoTarget(ctx context.Context, db *mongoengine.DB, ws *changes.WriteStage) (*changes.Target, error) {
	t := &changes.Target{Exists: true}
	err := db.Find(ctx, ws.Target(), &engine.Find{}, func(v value.Value) error {
		t.Docs = append(t.Docs, v)
		return nil
	})
	if errs.KindOf(err) == errs.NotFound {
		return &changes.Target{}, nil
	}
	if err != nil || ws.Out() {
		return t, err
	}
	ixs, err := db.Indexes(ctx, ws.Target())
	if err != nil {
		return nil, err
	}
	t.UniqueOn = func(fields []string) bool {
		for _, ix := range ixs {
			var keys []string
			for _, f := range ix.Key.Fields() {
				keys = append(keys, f.Key)
			}
			if ix.Unique && len(keys) == len(fields) && !slices.ContainsFunc(fields, func(f string) bool { return !slices.Contains(keys, f) }) {
				return true
			}
		}
		return false
	}
	return t, nil
}
