package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
)

func init() {
	commands = append(commands, command{"plan-update", newPlanUpdateCmd}, command{"plan-delete", newPlanDeleteCmd},
		command{"plan-aggregate", newPlanAggregateCmd})
}

// planFlags are the flags every planning command shares.
type planFlags struct {
	storeFlags
	sample    int
	expiry    time.Duration
	pretty    bool
	collation string // --collation of plan-update and plan-delete
}

func (f *planFlags) register(cmd *cobra.Command) {
	f.storeFlags.register(cmd)
	cmd.Flags().IntVar(&f.sample, "sample", changes.DefaultSample, "before/after pairs to print in the summary")
	cmd.Flags().DurationVar(&f.expiry, "expiry", changes.DefaultExpiry, "how long the plan stays pending")
	cmd.Flags().BoolVar(&f.pretty, "pretty", false, "indent the JSON")
}

func (f *planFlags) options() *changes.PlanOptions {
	sample := f.sample
	if sample == 0 {
		sample = -1 // --sample 0: none
	}
	return &changes.PlanOptions{Sample: sample, Expiry: f.expiry, Actor: "cli"}
}

func (f *planFlags) check() error {
	if f.sample < 0 || f.expiry <= 0 {
		return usage("--sample must not be negative and --expiry must be positive")
	}
	return nil
}

const planOutput = `Prints {"token","matched","modified","sampleBeforeAfter":[{"before","after"}],
"kind","collection","expires","message","next_valid_actions"}: matched counts
the documents the filter selects, modified those that change. Review it (omgdb
plans show <store> <token> --diff), then apply it by its token within the
expiry (omgdb apply), or discard it (omgdb plans discard).`

type planUpdateOptions struct {
	planFlags
	path, coll, filter, update string
	upsert, multi              bool
	arrayFilters               string
}

func newPlanUpdateCmd(e *env) *cobra.Command {
	opts := &planUpdateOptions{}
	cmd := &cobra.Command{
		Use:   "plan-update <store> <collection> <filter> <update>",
		Short: "Plan an update as a reviewable dry run; writes no document",
		Long: `Plan an update of the documents that match a filter, with update operators
({"$set":…}), a replacement document or an update pipeline ([{"$set":…}]),
without writing any document. The plan
(every matched document with its before and after image and a digest of its
bytes) is stored in the store file under a token. ` + planOutput + overMongoWrites,
		Example: `  omgdb plan-update app.omgdb users '{"tier":"trial"}' '{"$set":{"tier":"free"}}'
  omgdb plan-update app.omgdb users '{"email":"a@x.io"}' '{"$inc":{"logins":1}}' --upsert
  omgdb plan-update app.omgdb users '{}' '{"$set":{"tags.$[t]":"vip"}}' --array-filters '[{"t":"gold"}]'
  omgdb plan-update app.omgdb orders '{}' '[{"$set":{"total":{"$add":["$price","$tax"]}}}]'`,
		Args: cobra.ExactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.filter, opts.update = args[0], args[1], args[2], args[3]
			if err := opts.check(); err != nil {
				return err
			}
			return e.runPlanUpdate(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.planFlags.register(cmd)
	cmd.Flags().BoolVar(&opts.upsert, "upsert", false, "insert a document when the filter matches none")
	cmd.Flags().BoolVar(&opts.multi, "multi", true, "update every match; --multi=false updates the first in _id order")
	cmd.Flags().StringVar(&opts.arrayFilters, "array-filters", "", `filters for $[<identifier>] paths, e.g. '[{"t":"gold"}]'`)
	registerCollation(cmd, &opts.collation)
	return cmd
}

func (e *env) runPlanUpdate(ctx context.Context, opts *planUpdateOptions) error {
	if isMongo(opts.path) {
		return e.mongoPlanUpdate(ctx, opts)
	}
	filter, err := e.parseDocArg(opts.filter, "filter") // an upsert stores its values
	if err != nil {
		return err
	}
	update, err := e.parseDocArg(opts.update, "update")
	if err != nil {
		return err
	}
	po := opts.options()
	po.Upsert, po.First = opts.upsert, !opts.multi
	if po.Collation, _, err = e.parseCollation(opts.collation); err != nil {
		return err
	}
	if po.ArrayFilters, err = e.parseArrayFilters(opts.arrayFilters); err != nil {
		return err
	}
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := changes.PlanUpdate(ctx, db, opts.coll, filter, update, po)
	if err != nil {
		return err
	}
	return e.printJSON(res, opts.pretty)
}

type planDeleteOptions struct {
	planFlags
	path, coll, filter string
	multi              bool
}

func newPlanDeleteCmd(e *env) *cobra.Command {
	opts := &planDeleteOptions{}
	cmd := &cobra.Command{
		Use:   "plan-delete <store> <collection> <filter>",
		Short: "Plan a deletion as a reviewable dry run; writes no document",
		Long: `Plan the deletion of the documents that match a filter, without deleting
anything. The plan (every matched document and a digest of its bytes) is
stored in the store file under a token. ` + planOutput + overMongoWrites,
		Example: `  omgdb plan-delete app.omgdb sessions '{"expired":true}'
  omgdb plan-delete app.omgdb users '{"_id":7}' --multi=false`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.filter = args[0], args[1], args[2]
			if err := opts.check(); err != nil {
				return err
			}
			return e.runPlanDelete(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.planFlags.register(cmd)
	cmd.Flags().BoolVar(&opts.multi, "multi", true, "delete every match; --multi=false deletes the first in _id order")
	registerCollation(cmd, &opts.collation)
	return cmd
}

func (e *env) runPlanDelete(ctx context.Context, opts *planDeleteOptions) error {
	if isMongo(opts.path) {
		return e.mongoPlanDelete(ctx, opts)
	}
	filter, err := e.parseArg(opts.filter, "filter")
	if err != nil {
		return err
	}
	po := opts.options()
	po.First = !opts.multi
	if po.Collation, _, err = e.parseCollation(opts.collation); err != nil {
		return err
	}
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := changes.PlanDelete(ctx, db, opts.coll, filter, po)
	if err != nil {
		return err
	}
	return e.printJSON(res, opts.pretty)
}

type planAggregateOptions struct {
	planFlags
	path, coll, pipeline string
}

func newPlanAggregateCmd(e *env) *cobra.Command {
	opts := &planAggregateOptions{}
	cmd := &cobra.Command{
		Use:   "plan-aggregate <store> <collection> <pipeline>",
		Short: "Plan the writes of a pipeline ending in $out or $merge; writes no document",
		Long: `Run an aggregation pipeline that ends in $out or $merge up to its last stage,
and plan the writes that stage would make in its target collection, without
writing them: $out replaces the target's documents with the results; $merge
matches each result to a target document on its "on" fields (_id by default)
and merges, replaces, keeps or fails (whenMatched), or inserts, discards or
fails (whenNotMatched). Apply the plan with apply; rollback undoes it. ` + planOutput + `

Over a MongoDB deployment the stages before $out or $merge run on the
server, and omgdb computes the writes with the same $out and $merge
semantics as on a store file.` + overMongoWrites,
		Example: `  omgdb plan-aggregate app.omgdb orders '[{"$group":{"_id":"$customer","total":{"$sum":"$amount"}}},{"$out":"totals"}]'
  omgdb plan-aggregate app.omgdb orders '[{"$project":{"status":1}},{"$merge":{"into":"archive","whenMatched":"replace"}}]'`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.pipeline = args[0], args[1], args[2]
			if err := opts.check(); err != nil {
				return err
			}
			return e.runPlanAggregate(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.planFlags.register(cmd)
	return cmd
}

func (e *env) runPlanAggregate(ctx context.Context, opts *planAggregateOptions) error {
	if isMongo(opts.path) {
		return e.mongoPlanAggregate(ctx, opts)
	}
	pipeline, err := e.parseArg(opts.pipeline, "pipeline")
	if err != nil {
		return err
	}
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := changes.PlanAggregate(ctx, db, opts.coll, pipeline, opts.options())
	if err != nil {
		return err
	}
	return e.printJSON(res, opts.pretty)
}
