package cli

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
	"github.com/omgdb/omgdb/vector"
)

func init() { commands = append(commands, command{"search", newSearchCmd}) }

type searchOptions struct {
	storeFlags
	searchFlags
	path, coll, text string
	highlight        bool
	field            string
}

func newSearchCmd(e *env) *cobra.Command {
	opts := &searchOptions{}
	cmd := &cobra.Command{
		Use:   "search <store> <collection> <query>",
		Short: "Full-text search (BM25) over the collection's search index",
		Long: `Search the collection's full-text index (create it with create-search-index)
with a query in bleve's query-string syntax and print the best --k hits as
{"_id","score","doc"} lines, best first by BM25 score; ties go to the
smaller _id. Syntax: words (any may match), "a phrase", +required,
-excluded, field:word, field:"a phrase", prefix*, wild?ard, /regexp/,
fuzzy~1 (edit distance), word^2 (boost). --highlight adds
"highlights":{field:[fragments with <mark>matches</mark>]}. --filter is
applied before ranking. --hybrid fuses BM25 with the vector ranking of
--field (default: the field of the collection's vector index) by
reciprocal rank fusion. Over MongoDB (a mongodb:// store) it ranks a bounded
exact scan, the first --max-scan documents in _id order after --filter, by
BM25 over --fields, and says so on stderr; --hybrid there needs --field
(omgdb docs mongodb). See omgdb docs retrieval.`,
		Example: `  omgdb search app.omgdb notes 'backup +nightly -test' --highlight
  omgdb search app.omgdb notes 'title:"release notes" deploy*' --k 3`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.text = args[0], args[1], args[2]
			if err := e.prepareSearch(cmd, &opts.searchFlags); err != nil {
				return err
			}
			return e.runSearch(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.storeFlags.register(cmd)
	opts.searchFlags.register(cmd)
	cmd.Flags().BoolVar(&opts.highlight, "highlight", false, "add fragments with the matched words marked")
	cmd.Flags().StringVar(&opts.textIndex, "index", "", "the search index to use (default: the collection's only one)")
	cmd.Flags().StringVar(&opts.field, "field", "", "with --hybrid: the text field whose vectors are fused")
	opts.scan.registerText(cmd)
	return cmd
}

func (e *env) runSearch(ctx context.Context, opts *searchOptions) error {
	if isMongo(opts.path) {
		return e.mongoSearch(ctx, opts)
	}
	if err := opts.scan.onFile(); err != nil {
		return err
	}
	return e.viewCollection(opts.path, opts.coll, opts.storeFlags, func(c *store.Collection) error {
		var err error
		o := opts.options()
		var res *vector.Result
		if opts.hybrid {
			field := opts.field
			if field == "" {
				if field, err = hybridField(c); err != nil {
					return err
				}
			}
			res, err = vector.HybridQuerySearch(ctx, c, field, opts.text, o)
		} else {
			o.Highlight = opts.highlight
			res, err = vector.TextSearch(ctx, c, opts.text, o)
		}
		if err != nil {
			return err
		}
		return e.printHits(res, &opts.searchFlags)
	})
}

// hybridField returns the field of the collection's only vector index.
func hybridField(c *store.Collection) (string, error) {
	var fields []string
	for _, def := range c.Indexes() {
		if def.Kind == vector.KindVector {
			var spec vector.VectorSpec
			json.Unmarshal(def.Spec, &spec)
			fields = append(fields, spec.Field)
		}
	}
	if len(fields) != 1 {
		return "", usage("--hybrid needs --field: collection `%s` has %d vector indexes", c.Name(), len(fields)).
			WithHint("name the text field whose vectors to fuse, e.g. --field body")
	}
	return fields[0], nil
}
