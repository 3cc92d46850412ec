package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"compact", newCompactCmd}) }

type compactOptions struct {
	storeFlags
	path, historyBefore string
	yes                 bool
}

func newCompactCmd(e *env) *cobra.Command {
	opts := &compactOptions{}
	cmd := &cobra.Command{
		Use:   "compact <store>",
		Short: "Rewrite the store file without free pages; optionally drop old history",
		Long: `Rewrite the store into a new file with no free pages and rename it over the
old one, holding the store's lock throughout (other processes wait, then
open the new file). A crash leaves the old file or the new one, never a mix.

--history-before <revision> also drops the journal up to that revision (an
lsn, snapshot name, change id or ISO time): the state at that revision and
every later one stay reachable; earlier ones, and rollback of the changes
made before it, are gone for good. This cannot be undone, so it needs --yes.

Over a MongoDB deployment (mongodb://…/DB) only --history-before runs: it
prunes omgdb's journal there (the changes, plans and images up to the
revision, the collections drops kept aside, the snapshots before it, and
the plans never applied: discarded, or expired) and rewrites nothing; see
omgdb docs mongodb, "Pruning the journal".
A cut never splits a change (an import's batches are kept or dropped
together). Prints {"path","bytes_before","bytes_after","records_pruned","history_starts_at_lsn"}.`,
		Example: `  omgdb compact app.omgdb
  omgdb backup app.omgdb before-prune.omgdb.zst && omgdb compact app.omgdb --history-before 2026-01-01 --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			if opts.historyBefore != "" && !opts.yes {
				return usage("--history-before drops history for good and cannot be undone; add --yes to confirm").
					WithHint("take a backup first: omgdb backup %s backup.omgdb.zst", opts.path)
			}
			return e.runCompact(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.historyBefore, "history-before", "", "also drop the journal up to this revision (irreversible)")
	cmd.Flags().BoolVar(&opts.yes, "yes", false, "confirm dropping history")
	return cmd
}

func (e *env) runCompact(ctx context.Context, opts *compactOptions) error {
	if isMongo(opts.path) && opts.historyBefore != "" {
		return e.mongoPrune(ctx, opts)
	}
	if err := fileOnly("compact", opts.path); err != nil {
		return err
	}
	var cut uint64
	if opts.historyBefore != "" {
		db, err := e.open(opts.path, readOnly, opts.storeFlags)
		if err != nil {
			return err
		}
		err = db.View(func(tx *store.Tx) error {
			rev, err := changes.ResolveRevision(tx, opts.historyBefore)
			cut = rev.LSN
			return err
		})
		db.Close()
		if err != nil {
			return err
		}
		if cut == 0 {
			return errs.Errorf(errs.Invalid, "revision %s is the empty store before any change: there is no history before it to drop", opts.historyBefore)
		}
	}
	bar := e.progress("compacting", 0)
	res, err := store.Compact(ctx, opts.path, &store.CompactOptions{
		HistoryBefore: cut,
		Timeout:       opts.lockTimeout,
		Progress:      func(keys int64) { bar.update(keys, 0) },
	})
	bar.done()
	err = interrupted(ctx, err, "the store is as it was (the partial copy was removed)")
	if err != nil {
		return err
	}
	if res.RecordsPruned > 0 {
		fmt.Fprintf(e.stderr, "dropped %d journal record(s) for good; history now starts at lsn %d\n", res.RecordsPruned, res.HistoryStartsAt)
	}
	js, _ := json.Marshal(res)
	_, err = e.stdout.Write(append(js, '\n'))
	return err
}
