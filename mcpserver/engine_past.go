package mcpserver

import (
	"context"
	"slices"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/engine"
)

// Time travel over an engine. With Config.Past (the engine's journal, read
// only: a read-scope server may hold it), find, count and aggregate take
// `at` and read the engine as it was then, through the same redaction,
// policy, caps and cursors as a read of the present, and `diff` compares
// two revisions. A Writer that is also an EnginePastWriter serves
// create_snapshot and plan_revert (read-write) and delete_snapshot
// (dangerous scope: listed only when that scope is served).

// EnginePastWriter is the snapshot and revert half of an engine's writer.
type EnginePastWriter interface {
	// CreateSnapshot names the revision at (empty: now); name empty gives
	// snap-<seq>. The caller checks the name.
	CreateSnapshot(ctx context.Context, name, at, actor string) (any, error)
	// DeleteSnapshot removes a snapshot name.
	DeleteSnapshot(ctx context.Context, name string) (any, error)
	// PlanRevert plans the writes that bring the documents written
	// through omgdb since a revision back, in coll (empty: the one
	// collection those changes wrote).
	PlanRevert(ctx context.Context, revision, coll, actor string, sample int) (*changes.PlanResult, error)
}

func init() {
	engineRuns["diff"] = runDiffEngine
	engineWriteRuns["create_snapshot"] = runCreateSnapshotEngine
	engineWriteRuns["plan_revert"] = runPlanRevertEngine
	engineWriteRuns["delete_snapshot"] = runDeleteSnapshotEngine
}

const engineRevisions = "seq (the journal's order), snapshot name, change id or ISO time"

// usePast fits the time-travel tools to the engine: without Past, diff is
// not served and at is not offered; without an EnginePastWriter, neither
// are the snapshot and revert tools.
func (s *Server) usePast(t *tool) {
	if s.cfg.Past == nil {
		if t.Name == "diff" {
			t.Run = nil
		}
		t.Params = slices.DeleteFunc(t.Params, func(p param) bool { return p.Name == "at" })
	}
	for i, p := range t.Params {
		if p.Name == "at" {
			t.Params[i].Description = "Past revision: " + engineRevisions + "."
		}
	}
	if _, ok := s.cfg.Writer.(EnginePastWriter); !ok && engineWriteRuns[t.Name] != nil && (t.Name == "create_snapshot" || t.Name == "plan_revert" || t.Name == "delete_snapshot") {
		t.Run = nil
	}
	switch t.Name {
	case "diff":
		t.Description = sentence("Documents written through omgdb that differ between two revisions ("+engineRevisions+"),",
			"with field-level changes; writes made around omgdb are not in its journal. Example:", s.example("from", "before-import", "collection", "users"))
	case "create_snapshot", "delete_snapshot":
		if t.Name == "create_snapshot" {
			t.Description = sentence("Name a revision (default: after the newest applied change) so at, diff and plan_revert",
				"can refer to it later; without a name, snap-<seq>. Example:", s.example("name", "before-import"))
		}
		t.Output = outputSchema([]string{"name"}, "name", tStr(), "change", tStr(), "seq", tInt(), "created", tStr())
	case "plan_revert":
		t.Description = sentence("Plan bringing the documents of one collection written through omgdb since a revision",
			"("+engineRevisions+") back to their state then; returns a token to apply. Example:",
			s.example("revision", "before-import", "collection", "users"))
		t.Params = append(slices.Clone(t.Params), param{Name: "collection", Type: "string",
			Description: "The collection to revert; needed when the changes since the revision wrote several."})
	}
}

// engineReader is the reader of a read call: the engine now, with the
// call's collation argument (checked by omgdb's collation parser, a bad
// one INVALID_ARGUMENT naming it, before anything is sent; then sent with
// the read, the redaction still its first stage; a server without
// collations, FerretDB v1, refuses it and the engine says so), or with at
// the engine as it was then, seen through the redactions, the collation
// compared by omgdb's own collator there.
func (c *call) engineReader(ctx context.Context) (engine.Reader, error) {
	if _, err := c.collation(); err != nil {
		return nil, err
	}
	if c.str("at") == "" || c.srv.cfg.Past == nil {
		return engine.Collated(c.srv.reader, c.value("collation"))
	}
	r, _, err := c.pastReader(ctx)
	return r, err
}

// pastReader is engineReader's reader at the call's at, and the revision
// it resolved to.
func (c *call) pastReader(ctx context.Context) (engine.Reader, engine.Revision, error) {
	if _, err := c.collation(); err != nil {
		return nil, engine.Revision{}, err
	}
	r, rev, err := c.srv.cfg.Past.At(ctx, c.str("at"))
	if err != nil {
		return nil, rev, err
	}
	r, err = engine.Collated(engine.Redacting(r, c.srv.policy.redactedPaths), c.value("collation"))
	return r, rev, err
}

// DiffOf is an engine's diff with each document's field-level diff, as a
// store file's diff gives it.
func DiffOf(d *engine.Diff) *changes.EngineDiff[engine.Revision] {
	res := &changes.EngineDiff[engine.Revision]{From: d.From, To: d.To, Documents: []changes.DocDiff{}}
	for _, dc := range d.Documents {
		res.Add(dc.Collection, dc.ID, dc.Before, dc.After)
	}
	return res
}

func runDiffEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	if err := c.enginePath(); err != nil {
		return nil, err
	}
	if coll != "" && !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	d, err := c.srv.cfg.Past.Diff(ctx, c.str("from"), c.str("to"), coll)
	if err != nil {
		return nil, err
	}
	res := DiffOf(d)
	return c.diffOutput(res.Documents, &res.Inserted, &res.Deleted, &res.Updated, func(docs []shownDiff) any {
		res.Documents = nil
		return struct {
			*changes.EngineDiff[engine.Revision]
			Documents []shownDiff `json:"documents"`
		}{res, docs}
	})
}

func runCreateSnapshotEngine(ctx context.Context, c *call) (*output, error) {
	if err := c.enginePath(); err != nil {
		return nil, err
	}
	if name := c.str("name"); name != "" {
		if err := changes.ValidateSnapshotName(name); err != nil {
			return nil, argError(err, "name")
		}
	}
	snap, err := c.srv.cfg.Writer.(EnginePastWriter).CreateSnapshot(ctx, c.str("name"), c.str("revision"), c.actor())
	if err != nil {
		return nil, err
	}
	return c.resultOf(snap, "")
}

func runDeleteSnapshotEngine(ctx context.Context, c *call) (*output, error) {
	if err := c.enginePath(); err != nil {
		return nil, err
	}
	snap, err := c.srv.cfg.Writer.(EnginePastWriter).DeleteSnapshot(ctx, c.str("name"))
	if err != nil {
		return nil, err
	}
	return c.resultOf(snap, "")
}

// runPlanRevertEngine plans a revert of one collection, which the policy
// must allow (checked again on the plan's collection: a plan made for a
// denied one is refused here and by apply, and expires unapplied). Its
// samples are redacted with every redaction, as a file's revert's.
func runPlanRevertEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	if err := c.enginePath(); err != nil {
		return nil, err
	}
	if coll != "" && !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	res, err := c.srv.cfg.Writer.(EnginePastWriter).PlanRevert(ctx, c.str("revision"), coll, c.actor(), int(c.int("sample", changes.DefaultSample)))
	if err != nil {
		return nil, c.engineWriteError(coll, planError(err))
	}
	if err := c.collectionsAllowed(res.Collections); err != nil {
		return nil, err
	}
	return c.planOutput(res)
}
