package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func init() {
	commands = append(commands, command{"distinct", newDistinctCmd})
}

type distinctOptions struct {
	storeFlags
	path, coll, field, filter, at string
	array, pretty                 bool
	ejson                         ejsonFlag
	collation                     string
}

func newDistinctCmd(e *env) *cobra.Command {
	opts := &distinctOptions{}
	cmd := &cobra.Command{
		Use:   "distinct <store> <collection> <field> [filter]",
		Short: "Print the distinct values of a field among the matching documents",
		Long: `Print the distinct values of a field (a dotted path) among the documents that
match a filter (default {}), one JSON value per line (Extended JSON v2
relaxed unless --ejson says otherwise), in BSON order; --array prints them
as one JSON array. MongoDB's distinct semantics: an array
value gives its elements (one level: a nested array is one value), a missing
field gives nothing, null is a value, and values equal as BSON (1 and 1.0) are
one value. More than 100,000 distinct values is an error (narrow the filter).`,
		Example: `  omgdb distinct app.omgdb users tier
  omgdb distinct app.omgdb users tags '{"age":{"$gte":30}}'
  omgdb distinct app.omgdb users address.city --array`,
		Args: cobra.RangeArgs(3, 4),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.field, opts.filter = args[0], args[1], args[2], "{}"
			if len(args) == 4 {
				opts.filter = args[3]
			}
			return e.runDistinct(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().BoolVar(&opts.array, "array", false, "print one JSON array instead of one value per line")
	cmd.Flags().BoolVar(&opts.pretty, "pretty", false, "indent the JSON")
	registerEJSON(cmd, &opts.ejson, value.EJSONRelaxed)
	registerAt(cmd, &opts.at)
	registerCollation(cmd, &opts.collation)
	return cmd
}

func (e *env) runDistinct(ctx context.Context, opts *distinctOptions) error {
	if isMongo(opts.path) {
		return e.mongoDistinct(ctx, opts)
	}
	spec, filter, err := e.compileFilterSpec(opts.filter, opts.collation)
	if err != nil {
		return err
	}
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	var vals []value.Value
	err = db.View(func(tx *store.Tx) error {
		q := store.Query{Filter: filter}
		if err := recollate(tx, opts.coll, opts.collation, spec, &q); err != nil {
			return err
		}
		if q.Filter == nil { // {}: the collation still compares the values
			_, coll, _ := e.parseCollation(opts.collation)
			if coll == nil {
				coll = defaultCollation(tx, opts.coll, opts.collation)
			}
			q.Filter, _ = query.CompileFilterCollation(value.ObjectValue(nil), coll)
		}
		src, err := findIn(ctx, tx, opts.coll, opts.at, q)
		if err != nil {
			return err
		}
		defer src.Close()
		vals, err = store.DistinctValuesCollation(src, opts.field, 0, q.Filter.Collation())
		return err
	})
	if err != nil {
		return err
	}
	return e.printValues(vals, opts.array, opts.pretty, opts.ejson.mode)
}

// printValues prints distinct values, one per line or as one array.
func (e *env) printValues(vals []value.Value, array, pretty bool, mode value.EJSONMode) error {
	out := e.output(pretty)
	out.ejson = mode
	if array {
		vals = []value.Value{value.ArrayValue(vals)}
	}
	for _, v := range vals {
		if err := out.doc(v); err != nil {
			return err
		}
	}
	return out.flush()
}
