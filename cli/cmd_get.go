package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"get", newGetCmd}) }

type getOptions struct {
	storeFlags
	path, coll, id string
	out            formatFlags
}

func newGetCmd(e *env) *cobra.Command {
	opts := &getOptions{}
	cmd := &cobra.Command{
		Use:   "get <store> <collection> <id>",
		Short: "Print the document with the given _id",
		Long: `Print one document by _id. The id is JSON ('{"$oid":"…"}', 7, '"ada"'),
a bare 24-hex ObjectId, or else taken as a string.`,
		Example: `  omgdb get app.omgdb users 665f1c2e9b1d4a3f5e6d7c8b
  omgdb get app.omgdb users 7`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.id = args[0], args[1], args[2]
			return e.runGet(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	opts.out.register(cmd)
	return cmd
}

func (e *env) runGet(_ context.Context, opts *getOptions) error {
	out, err := e.docOutput(&opts.out)
	if err != nil {
		return err
	}
	return out.close(e.viewCollection(opts.path, opts.coll, opts.storeFlags, func(c *store.Collection) error {
		js, err := c.GetJSON(value.ParseIDArg(opts.id))
		if err != nil {
			return err
		}
		return out.stored(js)
	}))
}
