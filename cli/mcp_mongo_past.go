package cli

import (
	"context"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/value"
)

// pastOnly is the MongoDB engine's journal as the MCP server reads it at
// any scope (engine.Past): time travel and diff, and no other method (the
// engine is in an unexported field).
type pastOnly struct{ db *mongoengine.DB }

func (p pastOnly) At(ctx context.Context, spec string) (engine.Reader, engine.Revision, error) {
	return p.db.At(ctx, spec)
}

func (p pastOnly) Diff(ctx context.Context, from, to, coll string) (*engine.Diff, error) {
	return p.db.Diff(ctx, from, to, coll)
}

var _ mcpserver.EnginePastCollections = pastOnly{}

// HadCollection tells the MCP server whether a name held a collection at
// a revision, so that a read at a revision finds a collection dropped or
// renamed since (mcpserver.EnginePastCollections).
func (p pastOnly) HadCollection(ctx context.Context, coll string, rev engine.Revision) (bool, error) {
	return p.db.HadCollection(ctx, coll, rev)
}

// SetFence sets the MCP server's policy on every read at a revision of
// the engine (its writer's revert included: they share the DB).
func (p pastOnly) SetFence(check func(coll string, via []string) error) { p.db.SetFence(check) }

// The snapshot and revert tools of the read-write (and dangerous) scope
// (mcpserver.EnginePastWriter).

func (w mcpWriter) CreateSnapshot(ctx context.Context, name, at, actor string) (any, error) {
	return w.db.CreateSnapshot(ctx, name, at, actor)
}

func (w mcpWriter) DeleteSnapshot(ctx context.Context, name string) (any, error) {
	return w.db.DeleteSnapshot(ctx, name)
}

func (w mcpWriter) PlanRevert(ctx context.Context, revision, coll, actor string, sample int) (*changes.PlanResult, error) {
	p, err := w.db.PlanRevert(ctx, revision, coll, &mongoengine.PlanSpec{Actor: actor})
	if err != nil {
		return nil, err
	}
	return revertResult(p, sample), nil
}

// historyOnly is the journal as the history tool reads it, at every
// scope: it has no write method.
type historyOnly struct{ db *mongoengine.DB }

var _ mcpserver.EngineHistory = historyOnly{}

func (h historyOnly) History(ctx context.Context, coll string, limit int) ([]mcpserver.EngineChange, error) {
	return mcpWriter(h).History(ctx, coll, limit)
}

func (h historyOnly) Versions(ctx context.Context, coll string, id value.Value) ([]mcpserver.EngineVersion, error) {
	vs, err := h.db.Versions(ctx, coll, id, 0)
	if err != nil {
		return nil, err
	}
	out := make([]mcpserver.EngineVersion, len(vs))
	for i, v := range vs {
		out[i] = mcpserver.EngineVersion{Seq: v.Seq, Change: v.Change, Kind: v.Kind, Time: v.Time, Actor: v.Actor,
			Collection: v.Collection, Op: v.Op, Doc: changes.Doc{Value: v.Doc}}
	}
	return out, nil
}
