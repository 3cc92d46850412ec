package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
)

func init() {
	commands = append(commands, command{"backup", newBackupCmd}, command{"restore", newRestoreCmd})
}

type backupOptions struct {
	storeFlags
	path, out string
}

func newBackupCmd(e *env) *cobra.Command {
	opts := &backupOptions{}
	cmd := &cobra.Command{
		Use:   "backup <store> <out>",
		Short: "Write a consistent copy of the store (zstd-compressed for .zst), then verify it",
		Long: `Write a consistent copy of the store as of one read transaction, to a new
file (zstd-compressed when <out> ends in .zst), written as a hidden
.<out>.backup-<id> beside it and synced before it gets its name; an existing
file is never overwritten, and hidden files that killed backups to the same
name left (over a minute old, unlocked) are removed. The copy is then opened and
verified. Only a shared lock is taken, so other readers go on; writers wait
for the copy. Prints {"path","output","bytes","compressed","last_lsn","verified"}.
Restore with "omgdb restore".`,
		Example: `  omgdb backup app.omgdb app-2026-11-22.omgdb.zst`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.out = args[0], args[1]
			return e.runBackup(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	return cmd
}

func (e *env) runBackup(ctx context.Context, opts *backupOptions) error {
	if err := fileOnly("backup", opts.path); err != nil {
		return err
	}
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, bar := e.withProgress(ctx, "backing up")
	res, err := db.Backup(ctx, opts.out)
	bar.done()
	err = interrupted(ctx, err, "no backup was written (the partial copy was removed)")
	if res != nil {
		js, _ := json.Marshal(res)
		e.stdout.Write(append(js, '\n'))
	}
	return err
}

func newRestoreCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "restore <backup> <store>",
		Short: "Restore a backup (plain or .zst) to a new store file, verified first",
		Long: `Copy a backup written by "omgdb backup" (decompressing a .zst one) to a new
store file, verify it, and only then give it its name. An existing file is
never overwritten: restore to a new name and swap it in yourself.`,
		Example: `  omgdb restore app-2026-11-22.omgdb.zst restored.omgdb`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if isMongo(args[1]) {
				return usage("`omgdb restore` writes a store file and does not run over MongoDB").
					WithHint("restore a store file's backup to a file, then `omgdb copy` it into the deployment; restore a `mongodump` with `mongorestore`")
			}
			ctx, bar := e.withProgress(cmd.Context(), "restoring")
			err := store.Restore(ctx, args[0], args[1])
			bar.done()
			err = interrupted(ctx, err, "no store was written (the partial copy was removed)")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "restored %s to %s\n", args[0], args[1])
			return err
		},
	}
}
