package cli

import (
	"context"

	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/mongoengine"
)

// mongoPrune is compact --history-before over MongoDB (--yes was
// checked): nothing is rewritten there (the server reclaims its own
// space); the journal, its plans and images, the collections drops kept
// aside and the snapshots before the revision are removed, for good. It
// prints {"path","changes_pruned","plans_pruned","items_pruned",
// "collections_dropped","snapshots_deleted","history_starts_at_seq",
// "unapplied_plans_removed","unapplied_items_removed"}.
func (e *env) mongoPrune(ctx context.Context, opts *compactOptions) error {
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		res, err := db.PruneHistory(ctx, opts.historyBefore)
		if res == nil {
			return err
		}
		out := struct {
			Path string `json:"path"`
			*mcpserver.EnginePruned
		}{db.Target().Redacted, prunedOf(res)}
		if perr := e.printJSON(out, false); perr != nil {
			return perr
		}
		return err
	})
}
