package cli

import (
	"context"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/mongoengine"
)

// planReader is the part of the MongoDB engine that mcpPlans may call:
// it reads plans, nothing else.
type planReader interface {
	Plans(ctx context.Context, all bool) ([]*mongoengine.Plan, error)
	ShowPlan(ctx context.Context, token string) (*mongoengine.Plan, error)
}

// mcpPlans serves the MCP plans tool over MongoDB
// (mcpserver.EnginePlans), at every scope: it holds the engine as a
// planReader only, so a read-scope server handed it cannot write.
type mcpPlans struct{ r planReader }

var _ mcpserver.EnginePlans = mcpPlans{}

func (m mcpPlans) Plans(ctx context.Context, all bool) ([]*changes.Plan, error) {
	ps, err := m.r.Plans(ctx, all)
	if err != nil {
		return nil, err
	}
	out := make([]*changes.Plan, len(ps))
	for i, p := range ps {
		out[i] = filePlan(p)
	}
	return out, nil
}

func (m mcpPlans) ShowPlan(ctx context.Context, token string) (*changes.Plan, []changes.PlanDoc, error) {
	p, err := m.r.ShowPlan(ctx, token)
	if err != nil {
		return nil, nil, err
	}
	return filePlan(p), planDocs(p), nil
}

// PlanAggregate plans a pipeline's $out or $merge for the MCP server, as
// plan-aggregate does.
func (w mcpWriter) PlanAggregate(ctx context.Context, s *mcpserver.EnginePlan) (*changes.PlanResult, error) {
	p, err := planAggregateOn(ctx, w.db, s.Collection, s.Pipeline, &mongoengine.PlanSpec{Actor: s.Actor})
	if err != nil {
		return nil, err
	}
	return planResult(p, s.Sample), nil
}
