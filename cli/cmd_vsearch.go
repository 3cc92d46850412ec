package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
	"github.com/omgdb/omgdb/vector"
)

func init() { commands = append(commands, command{"vsearch", newVsearchCmd}) }

// searchFlags are the flags vsearch and search share.
type searchFlags struct {
	k                int
	filter, project  string
	minScore         float64
	hybrid           bool
	out              formatFlags
	index, textIndex string
	minScoreSet      bool
	projection       *query.Projection
	compiledFilter   *query.Filter
	filterSpec       value.Value // the parsed filter, for a MongoDB store
	scan             scanFlags   // over MongoDB only
}

func (f *searchFlags) register(cmd *cobra.Command) {
	cmd.Flags().IntVar(&f.k, "k", vector.DefaultK, "number of hits")
	cmd.Flags().StringVar(&f.filter, "filter", "", "a filter document: only matching documents are ranked")
	cmd.Flags().Float64Var(&f.minScore, "min-score", 0, "drop hits scoring below this (default: vector hits must score above 0)")
	cmd.Flags().StringVar(&f.project, "project", "", `a projection of the documents printed, such as '{"title":1}'`)
	cmd.Flags().BoolVar(&f.hybrid, "hybrid", false, "fuse BM25 and vector rankings (reciprocal rank fusion)")
	f.out.register(cmd)
	f.scan.register(cmd)
}

// prepare validates and compiles the flags.
func (e *env) prepareSearch(cmd *cobra.Command, f *searchFlags) error {
	if f.k < 1 || f.k > vector.MaxK {
		return usage("--k must be between 1 and %d", vector.MaxK)
	}
	f.minScoreSet = cmd.Flags().Changed("min-score")
	if f.filter != "" {
		spec, filter, err := e.compileFilterSpec(f.filter, "")
		if err != nil {
			return err
		}
		f.filterSpec, f.compiledFilter = spec, filter
	}
	if f.project != "" {
		spec, err := e.parseArg(f.project, "projection")
		if err != nil {
			return err
		}
		if f.projection, err = query.CompileProjection(spec); err != nil {
			return err
		}
	}
	return nil
}

func (f *searchFlags) options() *vector.SearchOptions {
	o := &vector.SearchOptions{K: f.k, Filter: f.compiledFilter, Index: f.index, TextIndex: f.textIndex}
	if f.minScoreSet {
		o.MinScore = &f.minScore
	}
	return o
}

// printHits writes one line per hit: {"_id","score","doc"} (and
// "highlights" when present).
func (e *env) printHits(res *vector.Result, f *searchFlags) error {
	if res.Note != "" {
		fmt.Fprintf(e.stderr, "note: %s\n", res.Note)
	}
	out, err := e.docOutput(&f.out)
	if err != nil {
		return err
	}
	return out.close(e.writeHits(out, res, f))
}

func (e *env) writeHits(out *output, res *vector.Result, f *searchFlags) error {
	for _, h := range res.Hits {
		doc := h.Doc
		if f.projection != nil {
			var err error
			if doc, err = f.projection.Apply(doc); err != nil {
				return err
			}
		}
		fields := []value.Field{
			{Key: "_id", Value: h.ID},
			{Key: "score", Value: value.DoubleValue(h.Score)},
			{Key: "doc", Value: doc},
		}
		if !h.Highlights.IsMissing() {
			fields = append(fields, value.Field{Key: "highlights", Value: h.Highlights})
		}
		if err := out.doc(value.ObjectValue(fields)); err != nil {
			return err
		}
	}
	return nil
}

type vsearchOptions struct {
	storeFlags
	searchFlags
	path, coll, field, text string
}

func newVsearchCmd(e *env) *cobra.Command {
	opts := &vsearchOptions{}
	cmd := &cobra.Command{
		Use:   "vsearch <store> <collection> <field> <query>",
		Short: "Rank documents by similarity of a text field to a query (exact cosine)",
		Long: `Rank the documents of a collection by the cosine similarity between the
embedding of a text field and that of the query, exactly (no approximate
index), and print the best --k as {"_id","score","doc"} lines, best first;
ties go to the smaller _id. The field's vector index is used when there is
one (create it with create-vector-index); otherwise every document is
embedded during the search, which says so on stderr. --filter is applied
before ranking, so filtered results are exact. --hybrid fuses the ranking
with the collection's BM25 search index by reciprocal rank fusion; scores
are then fusion scores. Over MongoDB (a mongodb:// store) it ranks a bounded
exact scan, the first --max-scan documents in _id order after --filter,
and says so on stderr; --hybrid there ranks BM25 over --fields (omgdb docs
mongodb). See omgdb docs retrieval.`,
		Example: `  omgdb vsearch app.omgdb notes body "how do I rotate the logs" --k 5
  omgdb vsearch app.omgdb notes body "backup schedule" --filter '{"team":"ops"}' --project '{"title":1}'`,
		Args: cobra.ExactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.field, opts.text = args[0], args[1], args[2], args[3]
			if err := e.prepareSearch(cmd, &opts.searchFlags); err != nil {
				return err
			}
			return e.runVsearch(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.storeFlags.register(cmd)
	opts.searchFlags.register(cmd)
	cmd.Flags().StringVar(&opts.index, "index", "", "the vector index to use (default: the field's)")
	opts.scan.registerText(cmd)
	return cmd
}

func (e *env) runVsearch(ctx context.Context, opts *vsearchOptions) error {
	if isMongo(opts.path) {
		return e.mongoVsearch(ctx, opts)
	}
	if err := opts.scan.onFile(); err != nil {
		return err
	}
	return e.viewCollection(opts.path, opts.coll, opts.storeFlags, func(c *store.Collection) error {
		var err error
		var res *vector.Result
		if opts.hybrid {
			res, err = vector.HybridSearch(ctx, c, opts.field, opts.text, opts.options())
		} else {
			res, err = vector.VectorSearch(ctx, c, opts.field, opts.text, opts.options())
		}
		if err != nil {
			return err
		}
		return e.printHits(res, &opts.searchFlags)
	})
}
