package cli

import (
	"bufio"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
)

func init() { commands = append(commands, command{"diff", newDiffCmd}) }

type diffOptions struct {
	storeFlags
	path, from, to, coll string
	asJSON, text         bool
	out                  formatFlags
}

func newDiffCmd(e *env) *cobra.Command {
	opts := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff <store> <from> [<to>]",
		Short: "Show every document that differs between two revisions",
		Long: `Compare two revisions (<to> defaults to now). A revision is a journal lsn
(omgdb log), a snapshot name, a change id (the state right after it) or an ISO
time (2024-05-01T12:00:00Z). Prints one JSON object per document that differs:
{"collection","_id","change","before","after","fields":[{"path","op","before","after"}]}
where change is inserted, deleted or updated and fields is the field-level
diff of an update; the counts go to stderr. --json prints one object with
from, to, the counts and the documents; --text a readable diff.

Over MongoDB a revision is a seq (omgdb log), a snapshot name, a change id
or an ISO time, and only documents written through omgdb are compared
(see omgdb docs mongodb).`,
		Example: `  omgdb diff app.omgdb before-migration
  omgdb diff app.omgdb 120 135 --coll users --text`,
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.from = args[0], args[1]
			if len(args) == 3 {
				opts.to = args[2]
			}
			if opts.asJSON && opts.text {
				return usage("--json and --text exclude each other")
			}
			return e.runDiff(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.coll, "coll", "", "only this collection")
	cmd.Flags().BoolVar(&opts.asJSON, "json", false, "print one JSON object with the counts and the documents")
	cmd.Flags().BoolVar(&opts.text, "text", false, "print a readable diff")
	opts.out.register(cmd)
	return cmd
}

func (e *env) runDiff(ctx context.Context, opts *diffOptions) error {
	if isMongo(opts.path) {
		return e.mongoDiff(ctx, opts)
	}
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := changes.Diff(ctx, db, opts.from, opts.to, &changes.DiffOptions{Coll: opts.coll})
	if err != nil {
		return err
	}
	summary := fmt.Sprintf("lsn %d -> %d: %d inserted, %d deleted, %d updated", res.From.LSN, res.To.LSN, res.Inserted, res.Deleted, res.Updated)
	return e.printDiff(opts, summary, res, res.Documents)
}

// printDiff prints a diff as opts asks: res whole (--json), a readable
// diff (--text), or one document per line with the summary on stderr.
func (e *env) printDiff(opts *diffOptions, summary string, res any, docs []changes.DocDiff) error {
	switch {
	case opts.asJSON:
		return e.printJSON(res, false)
	case opts.text:
		w := bufio.NewWriter(e.stdout)
		defer w.Flush()
		fmt.Fprintln(w, summary)
		for _, d := range docs {
			writeDocDiff(w, d.Collection, d.ID.Value, d.Before.Value, d.After.Value, d.Fields)
		}
		return nil
	}
	out, err := e.docOutput(&opts.out)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := out.encode(d); err != nil {
			return out.close(err)
		}
	}
	if err := out.close(nil); err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, summary)
	return nil
}
