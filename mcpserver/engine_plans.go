package mcpserver

import (
	"context"
)

// The plans tool over an engine (Config.Plans, at every scope: it only
// reads, through EnginePlans, which has no method that writes) and
// plan_aggregate at read-write scope (Config.Writer). Both answer as on
// a store file, with the same policy: plansResult and aggregatePolicy.

func init() {
	engineRuns["plans"] = runPlansEngine
	engineWriteRuns["plan_aggregate"] = runPlanAggregateEngine
}

func runPlansEngine(ctx context.Context, c *call) (*output, error) {
	if err := c.enginePath(); err != nil {
		return nil, err
	}
	return c.plansResult(ctx, c.srv.cfg.Plans)
}

func runPlanAggregateEngine(ctx context.Context, c *call) (*output, error) {
	coll, pipeline := c.str("collection"), c.value("pipeline")
	if err := c.aggregatePolicy(coll, pipeline); err != nil {
		return nil, err
	}
	if err := c.engineCollection(ctx, coll); err != nil {
		return nil, err // not found, with a did-you-mean among the visible collections only
	}
	spec := &EnginePlan{Collection: coll, Pipeline: pipeline, Sample: int(c.int("sample", 3)), Actor: c.actor()}
	res, err := c.srv.cfg.Writer.PlanAggregate(ctx, spec)
	if err != nil {
		return nil, c.engineWriteError(coll, argError(err, "pipeline"))
	}
	return c.planOutput(res)
}
