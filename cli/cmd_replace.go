package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/store"
)

func init() {
	commands = append(commands, command{"replace", newReplaceCmd})
}

type replaceOptions struct {
	writeFlags
	path, coll, filter, doc string
	upsert                  bool
}

func newReplaceCmd(e *env) *cobra.Command {
	opts := &replaceOptions{}
	cmd := &cobra.Command{
		Use:   "replace <store> <collection> <filter> <document>",
		Short: "Replace the first matching document in one journaled change (replaceOne)",
		Long: `Replace the first document (in _id order) that matches a filter with a new
document, keeping its _id, in one transaction that is one change in the
journal: MongoDB's replaceOne. The document must not contain update operators
(use omgdb update); it may repeat the _id but not change it. With --upsert and
no match, the document is inserted. ` + writeOutput + overMongoWrites,
		Example: `  omgdb replace app.omgdb users '{"_id":7}' '{"name":"ada","age":37}'
  omgdb replace app.omgdb users '{"email":"a@x.io"}' '{"email":"a@x.io","tier":"pro"}' --upsert`,
		Args: cobra.ExactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.filter, opts.doc = args[0], args[1], args[2], args[3]
			return e.runReplace(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.writeFlags.register(cmd)
	cmd.Flags().BoolVar(&opts.upsert, "upsert", false, "insert the document when the filter matches none")
	return cmd
}

func (e *env) runReplace(ctx context.Context, opts *replaceOptions) error {
	if isMongo(opts.path) {
		spec := &mongoengine.PlanSpec{Upsert: opts.upsert, First: true}
		return e.mongoUpdate(ctx, changes.KindReplace, opts.path, opts.coll, opts.filter, opts.doc, &opts.writeFlags, spec)
	}
	filter, doc, err := e.parseFilterAnd(opts.filter, opts.doc, "document")
	if err != nil {
		return err
	}
	wo := &changes.WriteOptions{Upsert: opts.upsert, DryRun: opts.dryRun, Actor: "cli"}
	return e.writing(opts.path, opts.storeFlags, opts.pretty, func(db *store.DB) (any, error) {
		return changes.Replace(ctx, db, opts.coll, filter, doc, wo)
	})
}
