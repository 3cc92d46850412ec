package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/store"
)

func init() {
	commands = append(commands, command{"rename", newRenameCmd})
}

type renameOptions struct {
	storeFlags
	path, from, to     string
	dropTarget, pretty bool
}

func newRenameCmd(e *env) *cobra.Command {
	opts := &renameOptions{}
	cmd := &cobra.Command{
		Use:   "rename <store> <collection> <new-name>",
		Short: "Rename a collection, with its indexes and rules, in one journaled change",
		Long: `Rename a collection (MongoDB's renameCollection): its documents keep their
_ids, and its indexes and validation rules move with it. The new name must not
be taken unless --drop-target, which drops that collection first in the same
change. It is one change in the journal: omgdb rollback <store> <change_id>
brings back the old name (and a dropped target). The rename copies the
documents, so it takes time and journal space in proportion to the collection.
Prints {"change_id","kind","collection","renamed_to","documents","indexes",
"dropped_target","lsn","next_valid_actions"}.`,
		Example: `  omgdb rename app.omgdb users people
  omgdb rename app.omgdb users_v2 users --drop-target`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.from, opts.to = args[0], args[1], args[2]
			return e.runRename(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().BoolVar(&opts.dropTarget, "drop-target", false, "drop an existing collection of the new name first")
	cmd.Flags().BoolVar(&opts.pretty, "pretty", false, "indent the JSON")
	return cmd
}

func (e *env) runRename(ctx context.Context, opts *renameOptions) error {
	if isMongo(opts.path) {
		return e.mongoRename(ctx, opts)
	}
	co := &changes.CollectionOptions{DropTarget: opts.dropTarget, Actor: "cli"}
	return e.writing(opts.path, opts.storeFlags, opts.pretty, func(db *store.DB) (any, error) {
		return changes.RenameCollection(ctx, db, opts.from, opts.to, co)
	})
}
