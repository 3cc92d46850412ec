package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"suggest-indexes", newSuggestIndexesCmd}) }

type suggestOptions struct {
	findOptions
}

func newSuggestIndexesCmd(e *env) *cobra.Command {
	opts := &suggestOptions{}
	cmd := &cobra.Command{
		Use:   "suggest-indexes <store> <collection> <filter> [--sort S]",
		Short: "Propose the indexes that would speed up a query, with the command to create each",
		Long: `Read a filter and sort and propose B-tree indexes for them, each with the
command that creates it, the documents the query would read with it (counted
from the collection) against what it reads today, whether the sort would
still be done in memory, and the reason for the order of its fields: ESR,
fields compared for equality first (the most selective first), then the
sort's fields in its directions, then fields compared by range. An index that
already serves the query is named. Prints JSON
{"collection","filter","sort","documents","current":{"plan","docs_examined","sort_in_memory"},
"suggestions":[{"key","command","docs_examined","sort_in_memory","gain","reason","existing"}],"notes"}.
Over a MongoDB store the estimates are counts on the server, "current" is the
server's plan, and each command is the mongosh statement that creates the
index.`,
		Example: `  omgdb suggest-indexes app.omgdb users '{"city":"Paris","age":{"$gte":30}}' --sort '{"name":1}' --pretty`,
		Args:    cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.filter = args[0], args[1], args[2]
			return e.runSuggestIndexes(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.sort, "sort", "", `sort specification, e.g. '{"age":-1,"name":1}'`)
	cmd.Flags().BoolVar(&opts.out.pretty, "pretty", false, "indent the JSON")
	return cmd
}

func (e *env) runSuggestIndexes(ctx context.Context, opts *suggestOptions) error {
	q, err := e.compileFind(&opts.findOptions)
	if err != nil {
		return err
	}
	var s *store.Suggestions
	if isMongo(opts.path) {
		s, err = e.mongoSuggestIndexes(ctx, opts, q)
	} else {
		err = e.viewCollection(opts.path, opts.coll, opts.storeFlags, func(c *store.Collection) error {
			var err error
			s, err = c.SuggestIndexes(ctx, q)
			return err
		})
	}
	if err != nil {
		return err
	}
	out := e.output(opts.out.pretty)
	defer out.flush()
	return out.json(marshalJSON(s))
}
