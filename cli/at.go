package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/store"
)

// registerAt adds the --at flag of the commands that read the past.
func registerAt(cmd *cobra.Command, at *string) {
	cmd.Flags().StringVar(at, "at", "", "read the store as it was at this revision: a journal lsn, snapshot name, change id or ISO time")
}

// findIn returns the documents of coll that q selects: now, or with at
// as they were at that revision.
func findIn(ctx context.Context, tx *store.Tx, coll, at string, q store.Query) (agg.Source, error) {
	if at == "" {
		c, err := tx.Collection(coll)
		if err != nil {
			return nil, err
		}
		return c.Find(ctx, q), nil
	}
	rev, err := changes.ResolveRevision(tx, at)
	if err != nil {
		return nil, err
	}
	return changes.FindAt(ctx, tx, coll, rev, q)
}

// countIn counts the documents of coll that match filter, now or at a
// revision.
func countIn(ctx context.Context, tx *store.Tx, coll, at string, filter *query.Filter) (int64, error) {
	if at == "" {
		c, err := tx.Collection(coll)
		if err != nil {
			return 0, err
		}
		return c.CountMatching(ctx, filter)
	}
	rev, err := changes.ResolveRevision(tx, at)
	if err != nil {
		return 0, err
	}
	return changes.CountAt(ctx, tx, coll, rev, filter)
}

// aggregateIn runs a pipeline over coll, now or at a revision.
func aggregateIn(ctx context.Context, tx *store.Tx, coll, at string, p *agg.Pipeline) (agg.Source, error) {
	if at == "" {
		c, err := tx.Collection(coll)
		if err != nil {
			return nil, err
		}
		return c.Aggregate(ctx, p, nil), nil
	}
	rev, err := changes.ResolveRevision(tx, at)
	if err != nil {
		return nil, err
	}
	return changes.AggregateAt(ctx, tx, coll, rev, p)
}
