package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
)

func init() { commands = append(commands, command{"snapshot", newSnapshotCmd}) }

type snapshotOptions struct {
	storeFlags
	path, name, at string
}

func newSnapshotCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Name revisions: snapshot create|list|delete",
		Long: `A snapshot is a name for a revision (a journal lsn), usable wherever a
revision is: find --at, diff, revert. It costs nothing: the journal already
holds what is needed to go back. Deleting a snapshot deletes only the name.
Over MongoDB a snapshot names the newest applied change (omgdb.snapshots)
and prints {"name","change","seq","created","actor"}.`,
		Example: `  omgdb snapshot create app.omgdb before-migration
  omgdb snapshot list app.omgdb
  omgdb find app.omgdb users --at before-migration`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newSnapshotCreateCmd(e), newSnapshotListCmd(e), newSnapshotDeleteCmd(e))
	return cmd
}

func newSnapshotCreateCmd(e *env) *cobra.Command {
	opts := &snapshotOptions{}
	cmd := &cobra.Command{
		Use:   "create <store> [name]",
		Short: "Name the current revision (or --at REV)",
		Long: `Name the current revision, or the one --at gives. A name is 1 to 64 letters,
digits, '_', '-' or '.', starting with a letter; without one it is snap-<lsn>.
Prints {"name","lsn","created","actor"}.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			if len(args) == 2 {
				opts.name = args[1]
			}
			if isMongo(opts.path) {
				return e.mongoSnapshotCreate(cmd.Context(), opts)
			}
			db, err := e.open(opts.path, readWrite, opts.storeFlags)
			if err != nil {
				return err
			}
			defer db.Close()
			s, err := changes.CreateSnapshot(cmd.Context(), db, opts.name, &changes.SnapshotOptions{At: opts.at, Actor: "cli"})
			if err != nil {
				return err
			}
			return e.printJSON(s, false)
		},
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.at, "at", "", "the revision to name (default: now)")
	return cmd
}

func newSnapshotListCmd(e *env) *cobra.Command {
	opts := &snapshotOptions{}
	cmd := &cobra.Command{
		Use:   "list <store>",
		Short: "List snapshots, oldest revision first",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.runSnapshotList(cmd.Context(), args[0], opts)
		},
	}
	opts.register(cmd)
	return cmd
}

func (e *env) runSnapshotList(ctx context.Context, path string, opts *snapshotOptions) error {
	if isMongo(path) {
		return e.mongoSnapshotList(ctx, path)
	}
	db, err := e.open(path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	snaps, err := changes.Snapshots(ctx, db)
	if err != nil {
		return err
	}
	for _, s := range snaps {
		if err := e.printJSON(s, false); err != nil {
			return err
		}
	}
	return nil
}

func newSnapshotDeleteCmd(e *env) *cobra.Command {
	opts := &snapshotOptions{}
	cmd := &cobra.Command{
		Use:   "delete <store> <name>",
		Short: "Delete a snapshot name (the history stays)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if isMongo(args[0]) {
				return e.mongoSnapshotDelete(cmd.Context(), args[0], args[1])
			}
			db, err := e.open(args[0], readWrite, opts.storeFlags)
			if err != nil {
				return err
			}
			defer db.Close()
			s, err := changes.DeleteSnapshot(cmd.Context(), db, args[1])
			if err != nil {
				return err
			}
			return e.printJSON(s, false)
		},
	}
	opts.register(cmd)
	return cmd
}
