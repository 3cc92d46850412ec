package cli

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"aggregate", newAggregateCmd}) }

type aggregateOptions struct {
	storeFlags
	path, coll, pipeline string
	maxMemory            int64
	seed                 uint64
	out                  formatFlags
	at                   string
	collation            string
}

func newAggregateCmd(e *env) *cobra.Command {
	opts := &aggregateOptions{}
	cmd := &cobra.Command{
		Use:   "aggregate <store> <collection> <pipeline>",
		Short: "Run an aggregation pipeline and print its results",
		Long: `Run a MongoDB aggregation pipeline (a JSON array of stages) over a
collection and print the resulting documents, as find prints them (see
--format). The pipeline may
be JSON, @file.json, or - for standard input. $lookup and $unionWith read
other collections of the same store. Aggregation never writes: $out and
$merge are refused (plan a change instead). See omgdb docs aggregation.`,
		Example: `  omgdb aggregate app.omgdb orders '[{"$match":{"status":"paid"}},{"$group":{"_id":"$customer","total":{"$sum":"$amount"}}},{"$sort":{"total":-1}}]'
  omgdb aggregate app.omgdb users @pipeline.json`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.pipeline = args[0], args[1], args[2]
			if opts.maxMemory < 0 {
				return usage("--max-memory must not be negative")
			}
			return e.runAggregate(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().Int64Var(&opts.maxMemory, "max-memory", agg.DefaultMaxMemory, "bytes that $group, $sort, $setWindowFields, $facet, $bucketAuto and $lookup may hold in memory ($sort, $group, $setWindowFields and $facet then go on in temporary files in $TMPDIR)")
	cmd.Flags().Uint64Var(&opts.seed, "seed", 0, "seed for $sample (the same seed picks the same documents)")
	opts.out.register(cmd)
	registerAt(cmd, &opts.at)
	registerCollation(cmd, &opts.collation)
	return cmd
}

func (e *env) runAggregate(ctx context.Context, opts *aggregateOptions) error {
	spec, err := e.parseArg(opts.pipeline, "pipeline")
	if err != nil {
		return err
	}
	if isMongo(opts.path) {
		return e.mongoAggregate(ctx, opts, spec)
	}
	_, coll, err := e.parseCollation(opts.collation)
	if err != nil {
		return err
	}
	po := &agg.PipelineOptions{MaxMemory: opts.maxMemory, Seed: opts.seed, SpillDir: os.TempDir(), Collation: coll}
	p, err := agg.CompilePipeline(spec, po)
	if err != nil {
		return err
	}
	return e.printStream(opts.path, opts.storeFlags, &opts.out, func(tx *store.Tx) (agg.Source, error) {
		if dc := defaultCollation(tx, opts.coll, opts.collation); dc != nil {
			po.Collation = dc
			if p, err = agg.CompilePipeline(spec, po); err != nil {
				return nil, err
			}
		}
		return aggregateIn(ctx, tx, opts.coll, opts.at, p)
	})
}
