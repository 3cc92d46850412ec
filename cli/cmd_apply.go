package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
)

func init() {
	commands = append(commands, command{"apply", newApplyCmd}, command{"rollback", newRollbackCmd})
}

type applyOptions struct {
	storeFlags
	path, token    string
	pretty, resume bool
}

func newApplyCmd(e *env) *cobra.Command {
	opts := &applyOptions{}
	cmd := &cobra.Command{
		Use:   "apply <store> <token>",
		Short: "Apply a plan in one transaction; refuses if a planned document changed",
		Long: `Apply a pending plan by its token, in one transaction. Every planned document
must still be exactly as planned (the digest of its bytes); if any changed,
nothing is written and the command fails with a conflict (exit 69) that lists
them: plan again. Otherwise every after image is written, the plan is marked
applied, and the token becomes the change id (roll it back with omgdb
rollback). A plan applies once. Prints
{"token","change_id","kind","inserted","updated","deleted","lsn","next_valid_actions"}.` + overMongoWrites + resumeHelp,
		Example: `  omgdb apply app.omgdb 665f1c2e9b1d4a0c8e7f6a5b
  omgdb apply mongodb://localhost:27017/app 665f1c2e9b1d4a0c8e7f6a5b --resume`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.token = args[0], args[1]
			return e.runApply(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().BoolVar(&opts.pretty, "pretty", false, "indent the JSON")
	cmd.Flags().BoolVar(&opts.resume, "resume", false, "over MongoDB: finish an apply that was killed (once its lease expired) or stopped at its deadline")
	return cmd
}

func (e *env) runApply(ctx context.Context, opts *applyOptions) error {
	if isMongo(opts.path) {
		return e.mongoApply(ctx, opts)
	}
	if opts.resume {
		return errResumeOnFile(opts.path, opts.token)
	}
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := changes.Apply(ctx, db, opts.token, nil)
	if err != nil {
		return err
	}
	return e.printJSON(res, opts.pretty)
}

type rollbackOptions struct {
	storeFlags
	path, change  string
	force, pretty bool
}

func newRollbackCmd(e *env) *cobra.Command {
	opts := &rollbackOptions{}
	cmd := &cobra.Command{
		Use:   "rollback <store> <change_id>",
		Short: "Undo a change in one transaction; refuses on conflict unless --force",
		Long: `Restore every document a change wrote to its state before the change, in one
transaction: deleted documents come back, inserted ones go, updated ones get
their before image; a collection the change created is dropped if it is left
empty. Any change can be rolled back: an applied plan (its token), an insert
or an import (see omgdb history), or a rollback. If a document changed after
the change, nothing is written and the command fails with a conflict (exit 69)
that lists them, unless --force. The rollback is a change of its own: roll it
back to redo. Prints
{"change_id","rolled_back","inserted","updated","deleted","overwritten","lsn","next_valid_actions"}.` + overMongoWrites,
		Example: `  omgdb rollback app.omgdb 665f1c2e9b1d4a0c8e7f6a5b`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.change = args[0], args[1]
			return e.runRollback(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().BoolVar(&opts.force, "force", false, "restore the before images even over later changes")
	cmd.Flags().BoolVar(&opts.pretty, "pretty", false, "indent the JSON")
	return cmd
}

func (e *env) runRollback(ctx context.Context, opts *rollbackOptions) error {
	if isMongo(opts.path) {
		return e.mongoRollback(ctx, opts)
	}
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := changes.Rollback(ctx, db, opts.change, &changes.RollbackOptions{Force: opts.force})
	if err != nil {
		return err
	}
	return e.printJSON(res, opts.pretty)
}
