package cli

import (
	"context"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// mongoExplain checks the query with omgdb's compiler, runs the server's
// explain of it and prints it in the file's explain shape, the server's
// own answer under serverExplain.
func (e *env) mongoExplain(ctx context.Context, opts *explainOptions) (value.Value, error) {
	if err := refuseOverMongo("--hint", opts.hint != ""); err != nil {
		return value.Value{}, err
	}
	q, err := e.mongoFindSpec(&opts.findOptions)
	if err != nil {
		return value.Value{}, err
	}
	cv, _, err := e.parseCollation(opts.collation)
	if err != nil {
		return value.Value{}, err
	}
	eq := &engine.ExplainQuery{Find: *q, Count: opts.count, Execute: opts.execute, Collation: cv}
	if opts.count {
		eq.Find = engine.Find{Filter: q.Filter}
	}
	var plan value.Value
	err = e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		raw, err := db.Explain(ctx, opts.coll, eq)
		plan = engine.ServerPlan(opts.coll, eq, raw)
		return err
	})
	return plan, err
}

// mongoDiagnose diagnoses a filter on the deployment: every count is a
// pipeline the server runs, among the first --limit documents in _id
// order (engine.DefaultDiagnoseBound when 0), and the output says the
// bound.
func (e *env) mongoDiagnose(ctx context.Context, opts *diagnoseOptions, filter *query.Filter) (d *store.Diagnosis, err error) {
	err = e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		d, err = engine.Diagnose(ctx, db, opts.coll, filter, opts.limit)
		return err
	})
	return d, err
}

// mongoSuggestIndexes proposes indexes on the deployment: today's plan
// from the server's explain, each estimate a count on the server.
func (e *env) mongoSuggestIndexes(ctx context.Context, opts *suggestOptions, q store.Query) (s *store.Suggestions, err error) {
	spec, err := e.mongoFindSpec(&opts.findOptions)
	if err != nil {
		return nil, err
	}
	err = e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		s, err = engine.SuggestIndexes(ctx, db, db, opts.coll, spec, q, 0, nil)
		return err
	})
	return s, err
}
