package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
	"github.com/omgdb/omgdb/vector"
)

func init() { commands = append(commands, command{"context", newContextCmd}) }

type contextOptions struct {
	storeFlags
	path, coll, field, text, filter string
	budget                          int
	hybrid, pretty                  bool
	scan                            scanFlags // over MongoDB only
}

func newContextCmd(e *env) *cobra.Command {
	opts := &contextOptions{}
	cmd := &cobra.Command{
		Use:   "context <store> <collection> <field> <query>",
		Short: "Build a token-budgeted, cited context pack for an agent",
		Long: `Rank the documents for the query (by the field's vectors, or --hybrid with
BM25), split their text into chunks (by Markdown headings, then paragraphs,
then sentences), and pack the best chunks until the token budget is used.
Prints one JSON document:
{"query","budget","used_tokens","chunks":[{"ref","_id","score","tokens","text","source":{"heading","offsets"}}],
 "citations":["[1] <_id> § <heading path>"],"omitted":[{"_id","score","tokens","source","reason"}]}.
Tokens are estimated as characters/4. The budget holds the whole pack as
printed, omitted list included (used_tokens is its estimate), near-duplicate
chunks are left out, a chunk cut to fit ends at a sentence and is marked
"cut", and "omitted" lists what was left out and why while it fits, then
{"more":N} for the rest. Over MongoDB (a mongodb:// store) the documents
ranked are a bounded exact scan, the first --max-scan in _id order after
--filter; the pack then says so in "note" and "scan", and --hybrid ranks
BM25 over --fields (omgdb docs mongodb).`,
		Example: `  omgdb context app.omgdb manual body "how do I undo a change" --budget 800`,
		Args:    cobra.ExactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.field, opts.text = args[0], args[1], args[2], args[3]
			if opts.budget < 1 || opts.budget > vector.MaxBudget {
				return usage("--budget must be between 1 and %d tokens", vector.MaxBudget)
			}
			return e.runContext(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().IntVar(&opts.budget, "budget", vector.DefaultBudget, "the token budget")
	cmd.Flags().StringVar(&opts.filter, "filter", "", "a filter document: only matching documents are used")
	cmd.Flags().BoolVar(&opts.hybrid, "hybrid", false, "rank documents by BM25 and vectors fused")
	cmd.Flags().BoolVar(&opts.pretty, "pretty", false, "indent the JSON")
	opts.scan.register(cmd)
	opts.scan.registerText(cmd)
	return cmd
}

func (e *env) runContext(ctx context.Context, opts *contextOptions) error {
	if isMongo(opts.path) {
		return e.mongoContext(ctx, opts)
	}
	if err := opts.scan.onFile(); err != nil {
		return err
	}
	popts := &vector.PackOptions{Budget: opts.budget, Hybrid: opts.hybrid}
	if opts.filter != "" {
		f, err := e.compileFilter(opts.filter)
		if err != nil {
			return err
		}
		popts.Filter = f
	}
	return e.viewCollection(opts.path, opts.coll, opts.storeFlags, func(c *store.Collection) error {
		pack, err := vector.Pack(ctx, c, opts.field, opts.text, popts)
		if err != nil {
			return err
		}
		if note := pack.Get("note").Str(); note != "" {
			fmt.Fprintf(e.stderr, "note: %s\n", note)
		}
		out := e.output(opts.pretty)
		defer out.flush()
		return out.doc(pack)
	})
}
