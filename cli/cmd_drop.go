package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/store"
)

func init() {
	commands = append(commands, command{"drop", newDropCmd})
}

type dropOptions struct {
	storeFlags
	path, coll string
	pretty     bool
}

func newDropCmd(e *env) *cobra.Command {
	opts := &dropOptions{}
	cmd := &cobra.Command{
		Use:   "drop <store> <collection>",
		Short: "Drop a collection, its indexes and rules, in one journaled change",
		Long: `Drop a collection with its documents, indexes and validation rules, in one
transaction that is one change in the journal (MongoDB's drop). Every document
stays in the journal, so omgdb rollback <store> <change_id> brings the
collection back whole. A missing collection is an error (exit 66). Prints
{"change_id","kind","collection","documents","indexes","lsn","next_valid_actions"}.
Over MongoDB the collection is renamed aside (omgdb_dropped_<change id>),
so rollback can rename it back, and there is no lsn (see omgdb docs mongodb).`,
		Example: `  omgdb drop app.omgdb sessions`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll = args[0], args[1]
			return e.runDrop(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().BoolVar(&opts.pretty, "pretty", false, "indent the JSON")
	return cmd
}

func (e *env) runDrop(ctx context.Context, opts *dropOptions) error {
	if isMongo(opts.path) {
		return e.mongoDrop(ctx, opts)
	}
	return e.writing(opts.path, opts.storeFlags, opts.pretty, func(db *store.DB) (any, error) {
		return changes.DropCollection(ctx, db, opts.coll, &changes.CollectionOptions{Actor: "cli"})
	})
}
