package cli

import (
	"context"

	"github.com/omgdb/omgdb/query/value"
)

// Insert inserts docs into coll for the MCP server's insert and
// insert_many (mcpserver.EngineInserter): one journaled change, all or
// none, as `omgdb insert` over MongoDB.
func (w mcpWriter) Insert(ctx context.Context, coll string, docs []value.Value, actor string) ([]value.Value, string, error) {
	return insertChange(ctx, w.db, coll, actor, w.db.Target().Redacted, docs)
}
