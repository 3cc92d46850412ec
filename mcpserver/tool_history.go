package mcpserver

import (
	"context"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// History, diff, snapshots, and the dangerous tools that drop data or
// history for good.

func (s *Server) historyTool() *tool {
	return &tool{
		Name: "history", Title: "List changes", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("Changes newest first (change id, kind, counts, time, status), or with id one document's",
			"versions; change ids feed rollback, diff and at."),
		Params: []param{s.pathParam(),
			{Name: "collection", Type: "string", Description: "Only this collection."},
			{Name: "id", Type: "string", Description: "A document's _id (JSON, or a bare string): its versions."},
			{Name: "limit", Type: "integer", Min: i64(1), Max: i64(MaxLimit), Default: value.LongValue(20), Description: "Max entries."}, maxBytesParam},
		Output: outputSchema([]string{"returned"}, "changes", tList(), "versions", tList(), "returned", tInt(),
			"applied_limits", tObj()),
		Run: runHistory,
	}
}

func runHistory(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	limit := int(min(c.int("limit", 20), int64(c.srv.cfg.MaxDocs)))
	db, err := c.openFor(coll, false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if c.has("id") {
		vs, err := changes.Versions(ctx, db, coll, value.ParseIDArg(c.str("id")), 0)
		if err != nil {
			return nil, err
		}
		return versionsOutput(c, vs, limit, func(v *changes.Version) (string, *value.Value) { return v.Collection, &v.Doc.Value })
	}
	hist, err := changes.History(ctx, db, &changes.HistoryOptions{Coll: coll})
	if err != nil {
		return nil, err
	}
	shown, k := []changes.Change{}, &capper{c: c}
	for _, ch := range hist {
		if len(shown) < limit && c.collectionsAllowed(ch.Collections) == nil {
			c.redactNote(&ch)
			if !k.fits(ch) {
				break
			}
			shown = append(shown, ch)
		}
	}
	out, err := c.resultOf(struct {
		Changes  []changes.Change `json:"changes"`
		Returned int              `json:"returned"`
	}{shown, len(shown)}, "change notes")
	if out != nil {
		out.returned = int64(len(shown))
	}
	return withLimits(out, k), err
}

// versionsOutput is history's answer with id, for a store file's
// versions and an engine's alike: at most limit versions of the
// collections the policy shows, each document (doc gives its collection
// and the document) redacted and capped.
func versionsOutput[V any](c *call, vs []V, limit int, doc func(*V) (string, *value.Value)) (*output, error) {
	k := &capper{c: c}
	shown := []V{}
	for _, v := range vs {
		if len(shown) == limit {
			break
		}
		coll, d := doc(&v)
		if c.srv.policy.collectionAllowed(coll) {
			*d = k.doc(c.redactDoc(coll, *d))
			if !k.fits(v) {
				break
			}
			shown = append(shown, v)
		}
	}
	out, err := c.resultOf(struct {
		Versions []V `json:"versions"`
		Returned int `json:"returned"`
	}{shown, len(shown)}, "document versions")
	if out != nil {
		out.returned = int64(len(shown))
	}
	return withLimits(out, k), err
}

func (s *Server) diffTool() *tool {
	return &tool{
		Name: "diff", Title: "Compare two revisions", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("Documents that differ between two revisions (lsn, snapshot, change id or time),",
			"with field-level changes. Example:", s.example("from", "before-import", "collection", "users")),
		Params: []param{s.pathParam(),
			{Name: "from", Type: "string", Required: true, Description: "The earlier revision."},
			{Name: "to", Type: "string", Description: "The later revision; default now."},
			{Name: "collection", Type: "string", Description: "Only this collection."}, maxBytesParam},
		Output: outputSchema([]string{"documents"}, "from", tObj(), "to", tObj(), "inserted", tInt(), "deleted", tInt(),
			"updated", tInt(), "documents", tList(), "applied_limits", tObj()),
		Run: runDiff,
	}
}

func runDiff(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	db, err := c.openFor(coll, false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	res, err := changes.Diff(ctx, db, c.str("from"), c.str("to"), &changes.DiffOptions{Coll: coll})
	if err != nil {
		return nil, err
	}
	return c.diffOutput(res.Documents, &res.Inserted, &res.Deleted, &res.Updated, func(docs []shownDiff) any {
		res.Documents = nil
		return struct {
			*changes.DiffResult
			Documents []shownDiff `json:"documents"`
		}{res, docs}
	})
}

// diffOutput is a diff's result: head (built by wrap around the shown
// documents, which replace the diff's own) with the shown documents.
func (c *call) diffOutput(all []changes.DocDiff, inserted, deleted, updated *int, wrap func([]shownDiff) any) (*output, error) {
	docs, k := c.shownDiffs(all, inserted, deleted, updated)
	out, err := c.resultOf(wrap(docs), "documents that differ")
	if out != nil {
		out.returned = int64(len(docs))
	}
	return withLimits(out, k), err
}

// shownDiffs is a diff's documents as the agent may see them: those of
// hidden collections left out (and not counted in the totals, which it
// sets), redacted, cut and capped.
func (c *call) shownDiffs(all []changes.DocDiff, inserted, deleted, updated *int) ([]shownDiff, *capper) {
	k := &capper{c: c}
	docs := []shownDiff{}
	*inserted, *deleted, *updated = 0, 0, 0
	for _, d := range all {
		if !c.srv.policy.collectionAllowed(d.Collection) {
			continue // neither listed nor counted
		}
		changes.Tally(d.Change, inserted, deleted, updated)
		if k.full {
			continue
		}
		sd := shownDiff{DocDiff: d}
		sd.Before.Value = k.doc(c.redactDoc(d.Collection, d.Before.Value))
		sd.After.Value = k.doc(c.redactDoc(d.Collection, d.After.Value))
		if c.redactor(d.Collection) != nil || k.cut {
			sd.Fields = nil // they would show redacted or cut values
		}
		sd.OnlyRedacted = c.redactor(d.Collection) != nil && onlyRedacted(sd.Before.Value, sd.After.Value)
		if k.fits(sd) {
			docs = append(docs, sd)
		}
	}
	return docs, k
}

var snapshotOutput = func() value.Value {
	return outputSchema([]string{"name"}, "name", tStr(), "lsn", tInt(), "created", tStr())
}

func (s *Server) createSnapshotTool() *tool {
	return &tool{
		Name: "create_snapshot", Title: "Name a revision", Scope: ScopeReadWrite,
		Description: sentence("Name a revision (default now) so at, diff and plan_revert can refer to it later;",
			"without a name, snap-<lsn>. Example:", s.example("name", "before-import")),
		Params: []param{s.pathParam(),
			{Name: "name", Type: "string", MaxLength: 64, Description: "Letters, digits, _ - . ; starts with a letter."},
			{Name: "revision", Type: "string", Description: "The revision to name; default now."}},
		Output: snapshotOutput(),
		Run:    runCreateSnapshot,
	}
}

func runCreateSnapshot(ctx context.Context, c *call) (*output, error) {
	if name := c.str("name"); name != "" {
		if err := changes.ValidateSnapshotName(name); err != nil {
			return nil, argError(err, "name")
		}
	}
	db, err := c.openStore(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	snap, err := changes.CreateSnapshot(ctx, db, c.str("name"), &changes.SnapshotOptions{At: c.str("revision"), Actor: c.actor()})
	if err != nil {
		return nil, err
	}
	return c.resultOf(snap, "")
}

func (s *Server) deleteSnapshotTool() *tool {
	return &tool{
		Name: "delete_snapshot", Title: "Delete a snapshot name", Scope: ScopeDangerous, Destructive: true, Idempotent: true,
		Description: sentence("Remove a snapshot name; the history it named stays. Example:", s.example("name", "before-import")),
		Params:      []param{s.pathParam(), {Name: "name", Type: "string", Required: true, MaxLength: 64, Description: "The snapshot."}},
		Output:      snapshotOutput(),
		Run: func(ctx context.Context, c *call) (*output, error) {
			db, err := c.openStore(true)
			if err != nil {
				return nil, err
			}
			defer db.Close()
			snap, err := changes.DeleteSnapshot(ctx, db, c.str("name"))
			if err != nil {
				return nil, err
			}
			return c.resultOf(snap, "")
		},
	}
}

func (s *Server) dropCollectionTool() *tool {
	return &tool{
		Name: "drop_collection", Title: "Drop a collection", Scope: ScopeDangerous, Destructive: true,
		Description: sentence("Drop a collection and its documents, in one journaled change (rollback by its change_id",
			"brings it back). Only on the user's explicit request. Example:", s.example("collection", "tmp")),
		Params: []param{s.pathParam(), collectionParam},
		Output: outputSchema([]string{"change_id"}, "collection", tStr(), "dropped", tInt(), "change_id", tStr(),
			"next_valid_actions", tArr(tStr())),
		Run: runDropCollection,
	}
}

func runDropCollection(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	db, err := c.openFor(coll, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	// The policy's view of the collections first, so that a missing one
	// gets a did-you-mean among the collections the policy shows.
	err = db.View(func(tx *store.Tx) error {
		_, err := c.collection(tx, coll)
		return err
	})
	if err != nil {
		return nil, err
	}
	res, err := changes.DropCollection(ctx, db, coll, &changes.CollectionOptions{Actor: c.actor()})
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", coll, "dropped", res.Documents, "change_id", res.ChangeID,
		"next_valid_actions", c.next([]string{changes.ActionRollback, "history"}, ""))), nil
}

func (s *Server) pruneHistoryTool() *tool {
	return &tool{
		Name: "prune_history", Title: "Drop old history", Scope: ScopeDangerous, Destructive: true,
		Description: sentence("Compact the store and drop the journal up to a revision, for good: earlier states and",
			"rollback of earlier changes are lost. Only on the user's explicit request. Example:",
			s.example("history_before", "2026-01-01")),
		Params: []param{s.pathParam(),
			{Name: "history_before", Type: "string", Required: true, Description: "Lsn, snapshot, change id or ISO time."}},
		Output: outputSchema([]string{"records_pruned"}, "bytes_before", tInt(), "bytes_after", tInt(),
			"records_pruned", tInt(), "history_starts_at_lsn", tInt()),
		Run: runPruneHistory,
	}
}

func runPruneHistory(ctx context.Context, c *call) (*output, error) {
	var cut uint64
	db, err := c.openStore(false)
	if err != nil {
		return nil, err
	}
	err = db.View(func(tx *store.Tx) error {
		rev, err := changes.ResolveRevision(tx, c.str("history_before"))
		cut = rev.LSN
		return err
	})
	db.Close()
	if err != nil {
		return nil, err
	}
	if cut == 0 {
		return nil, errorf(CodeInvalidArgument, "revision %s is the empty store before any change: there is no history before it to drop",
			truncate(c.str("history_before"), 60)).withContext("argument", "history_before")
	}
	path := c.srv.cfg.Store
	if path == "" {
		loc, err := c.srv.locate(c.pathArg(), false)
		if err != nil {
			return nil, err
		}
		loc.file.Close()
		path = loc.real
		c.rewrites = append(c.rewrites, loc.real, loc.display)
	}
	res, err := store.Compact(ctx, path, &store.CompactOptions{HistoryBefore: cut, Timeout: c.srv.cfg.LockTimeout})
	if err != nil {
		return nil, err
	}
	return newOutput(obj("bytes_before", res.BytesBefore, "bytes_after", res.BytesAfter,
		"records_pruned", res.RecordsPruned, "history_starts_at_lsn", int64(res.HistoryStartsAt))), nil
}

// shownDiff is a diff entry as the agent sees it: only_redacted marks an
// update whose every change was to redacted fields, which the entry
// cannot show.
type shownDiff struct {
	changes.DocDiff
	OnlyRedacted bool `json:"only_redacted,omitempty"`
}
