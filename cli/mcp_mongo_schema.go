package cli

import (
	"context"

	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// The MCP server's collection and index tools over MongoDB: mcpWriter
// creates and renames (read-write scope); mcpDangerousWriter, which
// mongoMCP builds only for --scope dangerous, also drops.

func (w mcpWriter) CreateCollection(ctx context.Context, coll, actor string) (string, error) {
	res, err := w.db.Create(ctx, coll, actor)
	if err != nil {
		return "", err
	}
	return res.ChangeID, nil
}

func (w mcpWriter) CreateIndex(ctx context.Context, coll string, def store.IndexDef, actor string) (string, string, error) {
	spec, err := indexToMongo(coll, def)
	if err != nil {
		return "", "", err
	}
	res, err := w.db.CreateIndexes(ctx, coll, []value.Value{spec}, actor)
	if err != nil {
		return "", "", err
	}
	return res.IndexNames[0], res.ChangeID, nil
}

func (w mcpWriter) RenameCollection(ctx context.Context, from, to, actor string) (*mcpserver.EngineCollectionResult, error) {
	res, err := w.db.Rename(ctx, from, to, false, actor)
	if err != nil {
		return nil, err
	}
	return &mcpserver.EngineCollectionResult{ChangeID: res.ChangeID, Documents: res.Documents, Indexes: res.Indexes}, nil
}

// mcpDangerousWriter is the writer of a dangerous-scope server.
type mcpDangerousWriter struct{ mcpWriter }

func (w mcpDangerousWriter) DropCollection(ctx context.Context, coll, actor string) (*mcpserver.EngineCollectionResult, error) {
	res, err := w.db.Drop(ctx, coll, actor)
	if err != nil {
		return nil, err
	}
	return &mcpserver.EngineCollectionResult{ChangeID: res.ChangeID, Documents: res.Documents, Indexes: res.Indexes}, nil
}

func (w mcpDangerousWriter) DropIndex(ctx context.Context, coll, name string, fields []store.IndexField, actor string) (string, string, error) {
	res, err := w.db.DropIndex(ctx, coll, name, keyOf(coll, fields), actor)
	if err != nil {
		return "", "", err
	}
	return res.IndexNames[0], res.ChangeID, nil
}

// keyOf is the key pattern of fields as MongoDB takes it, Missing when
// there are none.
func keyOf(coll string, fields []store.IndexField) value.Value {
	if len(fields) == 0 {
		return value.Value{}
	}
	spec, err := indexToMongo(coll, store.BTreeIndex("", store.BTreeSpec{Fields: fields}))
	if err != nil {
		return value.Value{}
	}
	return spec.Get("key")
}

var (
	_ mcpserver.EngineSchemaWriter    = mcpWriter{}
	_ mcpserver.EngineDangerousWriter = mcpDangerousWriter{}
)

// PruneHistory is prune_history over MongoDB: only the dangerous-scope
// server's writer has it.
func (w mcpDangerousWriter) PruneHistory(ctx context.Context, before string) (*mcpserver.EnginePruned, error) {
	res, err := w.db.PruneHistory(ctx, before)
	if res == nil {
		return nil, err
	}
	return prunedOf(res), err
}

// prunedOf is what a prune removed, as the CLI and the MCP server print it.
func prunedOf(res *mongoengine.PruneResult) *mcpserver.EnginePruned {
	return &mcpserver.EnginePruned{ChangesPruned: res.Changes, PlansPruned: res.Plans, ItemsPruned: res.Items,
		CollectionsDropped: append([]string{}, res.Collections...), SnapshotsDeleted: append([]string{}, res.Snapshots...),
		HistoryStartsAtSeq: res.Revision.Seq, UnappliedPlansRemoved: res.UnappliedPlans, UnappliedItemsRemoved: res.UnappliedItems}
}
