package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
)

func init() { commands = append(commands, command{"revert", newRevertCmd}) }

type revertOptions struct {
	planFlags
	path, rev, coll string
}

func newRevertCmd(e *env) *cobra.Command {
	opts := &revertOptions{}
	cmd := &cobra.Command{
		Use:   "revert <store> <revision>",
		Short: "Plan the change that brings the store back to a revision",
		Long: `Plan the change that brings every document touched since a revision back to
its state then, across every collection: documents inserted since are deleted,
deleted ones come back, updated ones are restored. A revision is a journal
lsn, a snapshot name, a change id (the state right after it) or an ISO time.
It is a plan like any other and writes no document: review it, then apply it
by its token (and roll it back like any change). Index definitions are not
reverted. Over MongoDB a plan writes one collection: --coll names it when
the changes since the revision wrote several. ` + planOutput,
		Example: `  omgdb revert app.omgdb before-migration
  omgdb revert app.omgdb 2024-05-01T12:00:00Z`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.rev = args[0], args[1]
			if err := opts.check(); err != nil {
				return err
			}
			return e.runRevert(cmd.Context(), opts)
		},
	}
	opts.planFlags.register(cmd)
	cmd.Flags().StringVar(&opts.coll, "coll", "", "over MongoDB: the collection to revert (a plan there writes one collection)")
	return cmd
}

func (e *env) runRevert(ctx context.Context, opts *revertOptions) error {
	if isMongo(opts.path) {
		return e.mongoRevert(ctx, opts)
	}
	if opts.coll != "" {
		return usage("--coll of revert works over MongoDB only: on a store file a revert plans every collection at once").
			WithHint("leave --coll out")
	}
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := changes.PlanRevert(ctx, db, opts.rev, opts.options())
	if err != nil {
		return err
	}
	return e.printJSON(res, opts.pretty)
}
