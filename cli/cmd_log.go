package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"log", newLogCmd}) }

type logOptions struct {
	storeFlags
	path  string
	since uint64
	limit int
	out   formatFlags
}

func newLogCmd(e *env) *cobra.Command {
	opts := &logOptions{}
	cmd := &cobra.Command{
		Use:   "log <store>",
		Short: "Print the journal, oldest first",
		Long: `Print the journal, one record per committed write transaction, oldest
first: {"lsn","ts","change","kind","actor","note","ops":[{"op","coll","id","before"}]}.
An insert names the new document's id; an update or delete carries the
document as it was before. Into a pipe each record is a line of canonical
JSON; on a terminal it is shown as find shows documents (see --format).

Over MongoDB (mongodb://…/DB) the journal is omgdb.changes, in journal
order: {"seq","ts","change","kind","actor","status","ops":[{"op","coll","id","before","after"}]},
one record per change made through omgdb, with seq (the journal's
order) where a file has an lsn; --since takes a seq.`,
		Example: `  omgdb log app.omgdb --since 100`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return e.runLog(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().Uint64Var(&opts.since, "since", 0, "start at this log sequence number")
	cmd.Flags().IntVar(&opts.limit, "limit", 0, "print at most this many records (0: all)")
	opts.out.register(cmd)
	return cmd
}

func (e *env) runLog(ctx context.Context, opts *logOptions) error {
	if isMongo(opts.path) {
		return e.mongoLog(ctx, opts)
	}
	out, err := e.docOutput(&opts.out)
	if err != nil {
		return err
	}
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	n := 0
	return out.close(db.View(func(tx *store.Tx) error {
		return tx.Journal(opts.since, func(r *store.Record) (bool, error) {
			if err := ctx.Err(); err != nil {
				return false, err
			}
			n++
			return opts.limit == 0 || n < opts.limit, out.doc(r.Value())
		})
	}))
}
