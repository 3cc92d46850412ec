package mongoengine

import (
	"context"

	"github.com/omgdb/omgdb/engine"
)

// HadCollection reports whether the name coll held a collection at rev
// (as ResolveRevision or At returns it), as a read at rev (ScanAt) finds
// it, without reading its documents: followed through the drops and
// renames made through omgdb since, a collection that an omgdb change
// after rev created, or whose name a rename after rev took while it was
// free, did not; a name that holds no collection now and that no change
// after rev wrote did not either; omgdb's and the server's own
// collections (omgdb., omgdb_dropped_, system.) never do for a reader. A
// collection that a drop after rev kept aside did, even when the aside
// collection is gone (the read says so). It is the existence check of a
// read-scope MCP server, which must not learn of other collections from
// a read's not-found error: it says yes or no, and names nothing. It
// does not call the fence (SetFence); the read does.
func (d *DB) HadCollection(ctx context.Context, coll string, rev engine.Revision) (bool, error) {
	if hidden(coll) || coll == "" {
		return false, nil
	}
	chs, err := d.readAfter(ctx, rev, coll)
	if err != nil {
		return false, err
	}
	l, err := follow(chs, coll, d.target.Redacted)
	switch {
	case err != nil:
		return false, err
	case l.absent:
		return false, nil
	case l.loc == "" || l.dropped != "":
		return true, nil
	}
	ok, err := d.HasCollection(ctx, l.loc)
	if ok || err != nil || len(l.changes) == 0 {
		return ok, err
	}
	// Gone now (dropped around omgdb), but written through omgdb since:
	// the read rebuilds it from the journal when a change wrote documents.
	u, err := d.undoAfter(ctx, rev, coll)
	if err != nil {
		return false, err
	}
	return len(u.order) > 0, nil
}
