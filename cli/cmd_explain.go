package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"explain", newExplainCmd}) }

type explainOptions struct {
	findOptions
	count, execute bool
}

func newExplainCmd(e *env) *cobra.Command {
	opts := &explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain <store> <collection> <filter> [--sort S]",
		Short: "Print the plan a find (or count) would use, as JSON",
		Long: `Print how omgdb would run a find with this filter, sort and page (or a
count, with --count): the winning plan as a tree of stages (COLLSCAN, or FETCH
over IXSCAN with the index name and bounds, SORT in memory, SKIP, LIMIT; COUNT
over COUNT_SCAN when the index alone answers a count), whether the sort comes
from the index or from memory, the index entries estimated in bounds, and the
other plans considered with why they lost. --execute runs the plan and adds
executionStats: documents returned, index keys and documents examined, time.
The shape is described in omgdb docs explain. Over a MongoDB store the plan
is the server's own explain, in this shape ("planner": "server", the server's
answer under serverExplain; see omgdb docs mongodb).`,
		Example: `  omgdb explain app.omgdb users '{"age":{"$gte":30}}' --sort '{"name":1}'
  omgdb explain app.omgdb users '{"email":"ada@x"}' --execute --pretty
  omgdb explain app.omgdb users '{"age":30}' --count`,
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.setArgs(args); err != nil {
				return err
			}
			return e.runExplain(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	f := cmd.Flags()
	f.StringVar(&opts.sort, "sort", "", `sort specification, e.g. '{"age":-1,"name":1}'`)
	f.Int64Var(&opts.skip, "skip", 0, "skip this many matching documents")
	f.Int64Var(&opts.limit, "limit", 0, "return at most this many documents (0: all)")
	f.StringVar(&opts.hint, "hint", "", "explain the plan of this index (or $natural)")
	f.BoolVar(&opts.count, "count", false, "explain a count rather than a find")
	f.BoolVar(&opts.execute, "execute", false, "run the plan and report what it read")
	f.BoolVar(&opts.out.pretty, "pretty", false, "indent the JSON")
	registerCollation(cmd, &opts.collation)
	return cmd
}

func (e *env) runExplain(ctx context.Context, opts *explainOptions) error {
	var plan value.Value
	var err error
	if isMongo(opts.path) {
		plan, err = e.mongoExplain(ctx, opts)
	} else {
		plan, err = e.fileExplain(ctx, opts)
	}
	if err != nil {
		return err
	}
	out := e.output(opts.out.pretty)
	defer out.flush()
	return out.doc(plan)
}

// fileExplain is the plan of omgdb's planner on a store file.
func (e *env) fileExplain(ctx context.Context, opts *explainOptions) (plan value.Value, err error) {
	q, err := e.compileFind(&opts.findOptions)
	if err != nil {
		return plan, err
	}
	err = e.viewCollection(opts.path, opts.coll, opts.storeFlags, func(c *store.Collection) error {
		if dc := c.DefaultCollation(); dc != nil && opts.collation == "" {
			f, err := compileFilterColl(opts.filterSpec, dc)
			if err != nil {
				return err
			}
			q.Filter, q.Sort = f, q.Sort.WithCollation(dc)
		}
		var err error
		plan, err = c.Explain(ctx, q, &store.ExplainOptions{Count: opts.count, Execute: opts.execute})
		return err
	})
	return plan, err
}
