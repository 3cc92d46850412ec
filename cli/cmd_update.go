package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/store"
)

func init() {
	commands = append(commands, command{"update", newUpdateCmd})
}

type updateOptions struct {
	writeFlags
	path, coll, filter, update string
	one, upsert                bool
	arrayFilters               string
}

func newUpdateCmd(e *env) *cobra.Command {
	opts := &updateOptions{}
	cmd := &cobra.Command{
		Use:   "update <store> <collection> <filter> <update>",
		Short: "Update the matching documents in one journaled change (updateMany, or updateOne with --one)",
		Long: `Apply update operators ({"$set":…}) or a pipeline-style update
([{"$set":…}]) to every document that matches a filter (the first in _id
order with --one), in one transaction that is one change in
the journal: MongoDB's updateMany and updateOne. A replacement document is
refused: use omgdb replace. Indexes and validation rules are enforced; if any
document is refused, nothing is written. Use plan-update and apply instead
when someone should review the change before it is written. ` + writeOutput + overMongoWrites,
		Example: `  omgdb update app.omgdb users '{"tier":"trial"}' '{"$set":{"tier":"free"}}'
  omgdb update app.omgdb users '{"email":"a@x.io"}' '{"$inc":{"logins":1}}' --one --upsert
  omgdb update app.omgdb users '{}' '{"$set":{"tags.$[t]":"vip"}}' --array-filters '[{"t":"gold"}]'
  omgdb update app.omgdb users '{"age":{"$lt":18}}' '{"$set":{"minor":true}}' --dry-run`,
		Args: cobra.ExactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.filter, opts.update = args[0], args[1], args[2], args[3]
			return e.runUpdate(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.writeFlags.register(cmd)
	cmd.Flags().BoolVar(&opts.one, "one", false, "update only the first match in _id order (updateOne)")
	cmd.Flags().BoolVar(&opts.upsert, "upsert", false, "insert a document when the filter matches none")
	cmd.Flags().StringVar(&opts.arrayFilters, "array-filters", "", `filters for $[<identifier>] paths, e.g. '[{"t":"gold"}]'`)
	return cmd
}

func (e *env) runUpdate(ctx context.Context, opts *updateOptions) error {
	if isMongo(opts.path) {
		af, err := e.parseArrayFilters(opts.arrayFilters)
		if err != nil {
			return err
		}
		spec := &mongoengine.PlanSpec{ArrayFilters: af, Upsert: opts.upsert, First: opts.one}
		return e.mongoUpdate(ctx, changes.KindUpdate, opts.path, opts.coll, opts.filter, opts.update, &opts.writeFlags, spec)
	}
	filter, update, err := e.parseFilterAnd(opts.filter, opts.update, "update")
	if err != nil {
		return err
	}
	wo := &changes.WriteOptions{One: opts.one, Upsert: opts.upsert, DryRun: opts.dryRun, Actor: "cli"}
	if wo.ArrayFilters, err = e.parseArrayFilters(opts.arrayFilters); err != nil {
		return err
	}
	return e.writing(opts.path, opts.storeFlags, opts.pretty, func(db *store.DB) (any, error) {
		return changes.Update(ctx, db, opts.coll, filter, update, wo)
	})
}
