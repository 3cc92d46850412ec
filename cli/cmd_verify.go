package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"verify", newVerifyCmd}) }

type verifyOptions struct {
	storeFlags
	path string
	json bool
}

func newVerifyCmd(e *env) *cobra.Command {
	opts := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify <store>",
		Short: "Check a store's pages, documents, counts and journal",
		Long: `Check the store without changing it: every page of the file, every
document's checksum and key, every collection's count, every journal
record, and that undoing the whole journal from the current state leaves an
empty store (so the journal accounts for every document). Exits 0 when all
is well and 74 with the list of problems otherwise. --json prints
{"path","collections","documents","journal_records","problems":[…],"ok"}.
Over MongoDB it checks omgdb's journal (changes stuck applying, items that
do not account for a change, dropped collections no longer kept) and runs
the server's validate on each collection.`,
		Example: `  omgdb verify app.omgdb`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return e.runVerify(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func (e *env) runVerify(ctx context.Context, opts *verifyOptions) error {
	if isMongo(opts.path) {
		return e.mongoVerify(ctx, opts)
	}
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, bar := e.withProgress(ctx, "verifying")
	rep, err := db.Verify(ctx)
	bar.done()
	if err != nil {
		return err
	}
	if !e.printVerify(rep, opts.json) {
		return errs.Errorf(errs.IO, "store %s failed verification with %d problem(s)", rep.Path, len(rep.Problems)).
			WithHint("restore from a backup, or copy out what is readable with `omgdb dump`")
	}
	return nil
}

// printVerify prints a verify report, as JSON or as lines, and says
// whether it found no problem. A MongoDB store's report has the same
// fields.
func (e *env) printVerify(rep *store.VerifyReport, asJSON bool) bool {
	if asJSON {
		js, _ := json.Marshal(rep)
		e.stdout.Write(append(js, '\n'))
		return rep.OK
	}
	fmt.Fprintf(e.stdout, "%s: %d collection(s), %d document(s), %d journal record(s)\n", rep.Path, rep.Collections, rep.Documents, rep.JournalRecords)
	for _, p := range rep.Problems {
		fmt.Fprintf(e.stdout, "problem: %s\n", p)
	}
	if rep.OK {
		fmt.Fprintln(e.stdout, "ok")
	}
	return rep.OK
}
