package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/value"
)

func init() { commands = append(commands, command{"history", newHistoryCmd}) }

type historyOptions struct {
	storeFlags
	path, coll, id string
	limit          int
	out            formatFlags
}

func newHistoryCmd(e *env) *cobra.Command {
	opts := &historyOptions{}
	cmd := &cobra.Command{
		Use:   "history <store>",
		Short: "List changes newest first, or one document's versions",
		Long: `List the store's changes, newest first, one JSON object per line:
{"change","kind","collections","inserted","updated","deleted","first_lsn",
"last_lsn","time","actor","note","status"} where status is "applied" or
"rolled back by <change id>". An import is one change however many batches it
took. With --id, the versions of one document instead, newest first:
{"lsn","change","kind","time","actor","collection","op","doc"} where doc is the
document as that operation left it (null after a delete).` + overMongoWrites,
		Example: `  omgdb history app.omgdb --limit 10
  omgdb history app.omgdb --coll users --id 7`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			if opts.limit < 0 {
				return usage("--limit must not be negative")
			}
			return e.runHistory(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.coll, "coll", "", "only changes to this collection")
	cmd.Flags().StringVar(&opts.id, "id", "", "the versions of the document with this _id (JSON or a bare string)")
	cmd.Flags().IntVar(&opts.limit, "limit", 0, "print at most this many entries (0: all)")
	opts.out.register(cmd)
	return cmd
}

func (e *env) runHistory(ctx context.Context, opts *historyOptions) error {
	if isMongo(opts.path) {
		return e.mongoHistory(ctx, opts)
	}
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	var rows []any
	if opts.id != "" {
		vs, err := changes.Versions(ctx, db, opts.coll, value.ParseIDArg(opts.id), opts.limit)
		if err != nil {
			return err
		}
		for _, v := range vs {
			rows = append(rows, v)
		}
	} else {
		hist, err := changes.History(ctx, db, &changes.HistoryOptions{Coll: opts.coll, Limit: opts.limit})
		if err != nil {
			return err
		}
		for _, c := range hist {
			rows = append(rows, c)
		}
	}
	out, err := e.docOutput(&opts.out)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := out.encode(r); err != nil {
			return out.close(err)
		}
	}
	return out.close(nil)
}
