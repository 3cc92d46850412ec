package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/store"
)

func init() {
	commands = append(commands, command{"delete", newDeleteCmd})
}

type deleteOptions struct {
	writeFlags
	path, coll, filter string
	one                bool
}

func newDeleteCmd(e *env) *cobra.Command {
	opts := &deleteOptions{}
	cmd := &cobra.Command{
		Use:     "delete <store> <collection> <filter>",
		Aliases: []string{"remove"},
		Short:   "Delete the matching documents in one journaled change (deleteMany, or deleteOne with --one)",
		Long: `Delete every document that matches a filter (the first in _id order with
--one), in one transaction that is one change in the journal: MongoDB's
deleteMany and deleteOne. The filter is required: '{}' deletes every document
of the collection (omgdb drop removes the collection itself). The deleted
documents stay in the journal, so rollback brings them back. ` + writeOutput + overMongoWrites,
		Example: `  omgdb delete app.omgdb sessions '{"expired":true}'
  omgdb delete app.omgdb users '{"_id":7}' --one
  omgdb remove app.omgdb sessions '{}' --dry-run`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.filter = args[0], args[1], args[2]
			return e.runDelete(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.writeFlags.register(cmd)
	cmd.Flags().BoolVar(&opts.one, "one", false, "delete only the first match in _id order (deleteOne)")
	return cmd
}

func (e *env) runDelete(ctx context.Context, opts *deleteOptions) error {
	if isMongo(opts.path) {
		return e.mongoDelete(ctx, opts)
	}
	filter, err := e.parseArg(opts.filter, "filter")
	if err != nil {
		return err
	}
	wo := &changes.WriteOptions{One: opts.one, DryRun: opts.dryRun, Actor: "cli"}
	return e.writing(opts.path, opts.storeFlags, opts.pretty, func(db *store.DB) (any, error) {
		return changes.Delete(ctx, db, opts.coll, filter, wo)
	})
}
