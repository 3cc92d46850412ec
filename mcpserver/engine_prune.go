package mcpserver

import (
	"context"
	"slices"
)

// prune_history over an engine, at dangerous scope: the deployment's
// journal up to a revision removed for good (mongoengine.PruneHistory),
// through EnginePruner, which the CLI gives only the dangerous-scope
// server's writer, as the drops.

// EnginePruner removes an engine's journal up to a revision.
type EnginePruner interface {
	PruneHistory(ctx context.Context, before string) (*EnginePruned, error)
}

// EnginePruned is what a prune removed.
type EnginePruned struct {
	ChangesPruned      int64    `json:"changes_pruned"`
	PlansPruned        int64    `json:"plans_pruned"`
	ItemsPruned        int64    `json:"items_pruned"`
	CollectionsDropped []string `json:"collections_dropped"`
	SnapshotsDeleted   []string `json:"snapshots_deleted"`
	HistoryStartsAtSeq int64    `json:"history_starts_at_seq"`
	// UnappliedPlansRemoved counts the plans never applied (discarded or
	// expired) removed with the journal, UnappliedItemsRemoved their
	// documents.
	UnappliedPlansRemoved int64 `json:"unapplied_plans_removed"`
	UnappliedItemsRemoved int64 `json:"unapplied_items_removed"`
}

func init() { engineWriteRuns["prune_history"] = runPruneHistoryEngine }

// usePrune describes prune_history over an engine, and leaves it
// unserved unless the writer prunes.
func (s *Server) usePrune(t *tool) {
	if t.Name != "prune_history" || s.cfg.Engine == nil {
		return
	}
	if _, ok := s.cfg.Writer.(EnginePruner); !ok {
		t.Run = nil
		return
	}
	t.Description = sentence("Drop the journal of changes made through omgdb up to a revision, for good: earlier states, their",
		"snapshots, rollback of those changes and the collections drops kept aside for it are lost; discarded and expired plans are removed too.",
		"Only on the user's explicit request. Example:",
		s.example("history_before", "before-migration"))
	for i, p := range t.Params {
		if p.Name == "history_before" {
			t.Params = slices.Clone(t.Params)
			t.Params[i].Description = "Seq, snapshot name, change id or ISO time."
		}
	}
	t.Output = outputSchema([]string{"changes_pruned"}, "changes_pruned", tInt(), "plans_pruned", tInt(), "items_pruned", tInt(),
		"collections_dropped", tArr(tStr()), "snapshots_deleted", tArr(tStr()), "history_starts_at_seq", tInt(),
		"unapplied_plans_removed", tInt(), "unapplied_items_removed", tInt())
}

func runPruneHistoryEngine(ctx context.Context, c *call) (*output, error) {
	if err := c.enginePath(); err != nil {
		return nil, err
	}
	p, ok := c.srv.cfg.Writer.(EnginePruner)
	if !ok || c.srv.cfg.Scope < ScopeDangerous {
		return nil, errorf(CodeScopeDenied, "tool `%s` needs --scope dangerous", c.tool.Name).
			withHint("ask the user to run it, or to serve with --scope dangerous").withContext("tool", c.tool.Name)
	}
	res, err := p.PruneHistory(ctx, c.str("history_before"))
	if err != nil {
		return nil, err
	}
	return c.resultOf(res, "")
}
