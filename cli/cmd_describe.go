package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"describe", newDescribeCmd}) }

type describeOptions struct {
	storeFlags
	path   string
	sample int
}

func newDescribeCmd(e *env) *cobra.Command {
	opts := &describeOptions{}
	cmd := &cobra.Command{
		Use:   "describe <store>",
		Short: "Print a Markdown manual of the store: collections, fields, samples, indexes, rules",
		Long: `Print the store as Markdown, in OMGDB's format: for each collection its
document count, a table of its fields (top-level and one level down, _id left
out) with their types and in how many documents each is present, and a sample
document; then its indexes, other kinds of index and validation rules. Field
inference reads the first --sample documents of each collection and says so
when there are more. Over a MongoDB store the sample is read from the server
in _id order, and rules and other kinds of index are left out.`,
		Example: `  omgdb describe app.omgdb
  omgdb describe app.omgdb --sample 0   # read every document`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			if opts.sample < 0 {
				return usage("--sample must not be negative")
			}
			return e.runDescribe(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().IntVar(&opts.sample, "sample", store.DefaultSchemaSample, "documents per collection to infer fields from (0: all)")
	return cmd
}

func (e *env) runDescribe(ctx context.Context, opts *describeOptions) error {
	if isMongo(opts.path) {
		return e.mongoDescribe(ctx, opts)
	}
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	sample := opts.sample
	if sample == 0 {
		sample = -1
	}
	return db.Describe(ctx, e.stdout, &store.DescribeOptions{Sample: sample})
}
