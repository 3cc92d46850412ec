package cli

import (
	"cmp"
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"find", newFindCmd}, command{"count", newCountCmd}) }

type findOptions struct {
	storeFlags
	path, coll, filter string
	sort, project      string
	hint, at           string
	skip, limit        int64
	maxMemory          int64
	out                formatFlags
	collation          string      // --collation, "" when not given
	filterSpec         value.Value // the parsed filter, set by compileFind
}

func newFindCmd(e *env) *cobra.Command {
	opts := &findOptions{}
	cmd := &cobra.Command{
		Use:   "find <store> <collection> [filter]",
		Short: "Print the documents that match a filter",
		Long: `Print the documents of a collection that match a MongoDB filter (default {}),
in _id order unless --sort says otherwise: into a pipe or file one JSON
document per line (Extended JSON v2 relaxed mode unless --ejson says
otherwise), on a terminal indented as mongosh prints them;
--format json, ndjson, table or csv chooses. The filter may be JSON,
@file.json, or - for standard input. See omgdb docs filters and omgdb docs
projection-and-sort.`,
		Example: `  omgdb find app.omgdb users '{"age":{"$gte":30}}' --sort '{"age":-1}' --limit 10
  omgdb find app.omgdb users '{"address.city":"Paris"}' --project '{"name":1,"_id":0}'`,
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.setArgs(args); err != nil {
				return err
			}
			return e.runFind(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.sort, "sort", "", `sort specification, e.g. '{"age":-1,"name":1}'`)
	cmd.Flags().StringVar(&opts.project, "project", "", `projection, e.g. '{"name":1,"_id":0}'`)
	cmd.Flags().Int64Var(&opts.skip, "skip", 0, "skip this many matching documents")
	cmd.Flags().Int64Var(&opts.limit, "limit", 0, "print at most this many documents (0: all)")
	opts.out.register(cmd)
	cmd.Flags().Int64Var(&opts.maxMemory, "max-memory", sortMemory, "bytes a sort without --limit holds in memory before it goes on in temporary files in $TMPDIR (0: the default)")
	cmd.Flags().StringVar(&opts.hint, "hint", "", "use this index (a name that omgdb indexes lists, _id_, or $natural for a collection scan)")
	registerAt(cmd, &opts.at)
	registerCollation(cmd, &opts.collation)
	return cmd
}

// setArgs takes a find's positional arguments (store, collection and an
// optional filter) and checks the paging flags.
func (o *findOptions) setArgs(args []string) error {
	o.path, o.coll, o.filter = args[0], args[1], "{}"
	if len(args) == 3 {
		o.filter = args[2]
	}
	if o.skip < 0 || o.limit < 0 {
		return usage("--skip and --limit must not be negative")
	}
	if o.maxMemory < 0 {
		return usage("--max-memory must not be negative")
	}
	return nil
}

func (e *env) compileFilter(arg string) (*query.Filter, error) {
	_, f, err := e.compileFilterSpec(arg, "")
	return f, err
}

// compileFilterSpec parses a filter argument and compiles it with the
// collation of --collation (flag); it returns the parsed filter too, for
// recollate. {} compiles to nil, which matches everything.
func (e *env) compileFilterSpec(arg, flag string) (value.Value, *query.Filter, error) {
	spec, err := e.parseArg(arg, "filter")
	if err != nil {
		return spec, nil, err
	}
	_, coll, err := e.parseCollation(flag)
	if err != nil {
		return spec, nil, err
	}
	f, err := compileFilterColl(spec, coll)
	return spec, f, err
}

// sortMemory is what a find's sort holds in memory, by default, before it
// goes on in temporary files in os.TempDir() ($TMPDIR), as MongoDB's
// allowDiskUse.
const sortMemory = 64 << 20

// compileFind compiles the parts of a find.
func (e *env) compileFind(opts *findOptions) (store.Query, error) {
	q := store.Query{Skip: opts.skip, Limit: opts.limit, Hint: opts.hint, MaxSortBytes: cmp.Or(opts.maxMemory, sortMemory), SpillDir: os.TempDir()}
	var err error
	if opts.filterSpec, q.Filter, err = e.compileFilterSpec(opts.filter, opts.collation); err != nil {
		return q, err
	}
	if opts.sort != "" {
		spec, err := e.parseArg(opts.sort, "--sort")
		if err != nil {
			return q, err
		}
		_, coll, _ := e.parseCollation(opts.collation) // checked with the filter
		if q.Sort, err = query.CompileSortCollation(spec, coll); err != nil {
			return q, err
		}
	}
	if opts.project != "" {
		spec, err := e.parseArg(opts.project, "--project")
		if err != nil {
			return q, err
		}
		if q.Projection, err = query.CompileProjection(spec); err != nil {
			return q, err
		}
	}
	return q, nil
}

func (e *env) runFind(ctx context.Context, opts *findOptions) error {
	if isMongo(opts.path) {
		return e.mongoFind(ctx, opts)
	}
	q, err := e.compileFind(opts)
	if err != nil {
		return err
	}
	return e.printStream(opts.path, opts.storeFlags, &opts.out, func(tx *store.Tx) (agg.Source, error) {
		if err := recollate(tx, opts.coll, opts.collation, opts.filterSpec, &q); err != nil {
			return nil, err
		}
		return findIn(ctx, tx, opts.coll, opts.at, q)
	})
}

// printStream opens a store read-only and prints, in the format of ff,
// the documents of the stream that open returns in a read transaction.
func (e *env) printStream(path string, f storeFlags, ff *formatFlags, open func(*store.Tx) (agg.Source, error)) error {
	out, err := e.docOutput(ff)
	if err != nil {
		return err
	}
	db, err := e.open(path, readOnly, f)
	if err != nil {
		return err
	}
	defer db.Close()
	return out.close(db.View(func(tx *store.Tx) error {
		src, err := open(tx)
		if err != nil {
			return err
		}
		defer src.Close()
		raw, _ := src.(store.RawSource)
		for src.Next() {
			if err := out.from(src, raw); err != nil {
				return err
			}
		}
		return src.Err()
	}))
}

type countOptions struct {
	storeFlags
	path, coll, filter, at string
	hint                   string
	collation              string
}

func newCountCmd(e *env) *cobra.Command {
	opts := &countOptions{}
	cmd := &cobra.Command{
		Use:     "count <store> <collection> [filter]",
		Short:   "Print how many documents match a filter",
		Example: `  omgdb count app.omgdb users '{"age":{"$gte":30}}'`,
		Args:    cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.filter = args[0], args[1], "{}"
			if len(args) == 3 {
				opts.filter = args[2]
			}
			return e.runCount(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.hint, "hint", "", "use this index (a name that omgdb indexes lists, _id_, or $natural for a collection scan)")
	registerAt(cmd, &opts.at)
	registerCollation(cmd, &opts.collation)
	return cmd
}

func (e *env) runCount(ctx context.Context, opts *countOptions) error {
	if isMongo(opts.path) {
		return e.mongoCount(ctx, opts)
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
	return db.View(func(tx *store.Tx) error {
		q := store.Query{Filter: filter}
		if err := recollate(tx, opts.coll, opts.collation, spec, &q); err != nil {
			return err
		}
		filter := q.Filter
		var n int64
		if opts.hint != "" && opts.at == "" {
			n, err = hintedCount(ctx, tx, opts.coll, filter, opts.hint)
		} else {
			n, err = countIn(ctx, tx, opts.coll, opts.at, filter)
		}
		if err != nil {
			return err
		}
		out := e.output(false)
		defer out.flush()
		return out.doc(value.LongValue(n))
	})
}

// hintedCount counts with an index (or $natural) named by --hint.
func hintedCount(ctx context.Context, tx *store.Tx, coll string, filter *query.Filter, hint string) (int64, error) {
	c, err := tx.Collection(coll)
	if err != nil {
		return 0, err
	}
	return c.CountQuery(ctx, store.Query{Filter: filter, Hint: hint})
}
