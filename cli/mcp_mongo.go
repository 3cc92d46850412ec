package cli

import (
	"context"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/mongoengine"
)

// mcpWriter is the MongoDB engine's write half as the MCP server takes it
// (mcpserver.EngineWriter). runMCP builds one only for --scope
// read-write: a read-scope server is handed the engine as an
// engine.Reader alone.
type mcpWriter struct{ db *mongoengine.DB }

func (w mcpWriter) spec(s *mcpserver.EnginePlan) *mongoengine.PlanSpec {
	return &mongoengine.PlanSpec{Collection: s.Collection, Filter: s.Filter, Update: s.Update, Compiled: s.Compiled,
		ArrayFilters: s.ArrayFilters, Upsert: s.Upsert, First: s.First, Actor: s.Actor}
}

func (w mcpWriter) PlanUpdate(ctx context.Context, s *mcpserver.EnginePlan) (*changes.PlanResult, error) {
	db, err := w.db.Collated(s.Collation)
	if err != nil {
		return nil, err
	}
	p, err := db.PlanUpdate(ctx, w.spec(s))
	if err != nil {
		return nil, err
	}
	return planResult(p, s.Sample), nil
}

func (w mcpWriter) PlanDelete(ctx context.Context, s *mcpserver.EnginePlan) (*changes.PlanResult, error) {
	db, err := w.db.Collated(s.Collation)
	if err != nil {
		return nil, err
	}
	p, err := db.PlanDelete(ctx, w.spec(s))
	if err != nil {
		return nil, err
	}
	return planResult(p, s.Sample), nil
}

func (w mcpWriter) PlanCollection(ctx context.Context, token string) (string, error) {
	p, err := w.db.LoadPlan(ctx, token)
	if err != nil {
		return "", err
	}
	return p.Collection, nil
}

func (w mcpWriter) Apply(ctx context.Context, token, actor string) (*mcpserver.EngineApplied, error) {
	return engineAppliedOf(w.db.Apply(ctx, token, &mongoengine.ApplyOptions{Actor: actor})) // mongo_resume.go
}

func (w mcpWriter) Rollback(ctx context.Context, changeID, actor string, force bool) (*mcpserver.EngineApplied, error) {
	res, err := w.db.Rollback(ctx, changeID, &mongoengine.ApplyOptions{Actor: actor, Force: force})
	if res == nil {
		return nil, err
	}
	out := engineApplied(&res.ApplyResult)
	out.Token, out.Kind, out.RolledBack = "", "", res.RolledBack
	if res.Undid != "" { // a schema change: no document, its steps undone
		out.Message, out.NextValidActions = "undid "+res.Undid, []string{changes.ActionRollback}
	}
	return out, err
}

// engineApplied is an apply's result as apply prints it (applyOutput),
// for the MCP server.
func engineApplied(res *mongoengine.ApplyResult) *mcpserver.EngineApplied {
	o := applyOutput(res)
	out := &mcpserver.EngineApplied{Token: o.Token, ChangeID: o.ChangeID, Kind: o.Kind, Collection: res.Collection,
		Inserted: o.Inserted, Updated: o.Updated, Deleted: o.Deleted, Conflicts: []mcpserver.EngineConflict{},
		Transaction: o.Transaction, Unwritten: o.Unwritten, Message: o.Message, NextValidActions: o.NextValidActions}
	for _, c := range o.Conflicts {
		out.Conflicts = append(out.Conflicts, mcpserver.EngineConflict{ID: c.ID, Reason: c.Reason})
	}
	return out
}

func (w mcpWriter) History(ctx context.Context, coll string, limit int) ([]mcpserver.EngineChange, error) {
	hist, err := w.db.History(ctx, coll, limit)
	if err != nil {
		return nil, err
	}
	out := make([]mcpserver.EngineChange, 0, len(hist))
	for _, c := range hist {
		out = append(out, historyRow(c))
	}
	return out, nil
}

// historyRow is a change as `omgdb history` prints it over MongoDB.
func historyRow(c mongoengine.Change) mongoChange {
	row := mongoChange{ID: c.ID, Kind: c.Kind, Collections: []string{c.Collection}, Inserted: c.Inserted,
		Updated: c.Updated, Deleted: c.Deleted, Conflicts: c.Conflicts, Time: c.Time, Actor: c.Actor,
		Note: mongoChangeNote(c), Status: c.Status, RolledBackBy: c.RolledBackBy, RollbackOf: c.RollbackOf}
	if c.RolledBackBy != "" {
		row.Status = "rolled back by " + c.RolledBackBy
	}
	if c.RenamedTo != "" {
		row.Collections = append(row.Collections, c.RenamedTo)
	}
	return row
}
