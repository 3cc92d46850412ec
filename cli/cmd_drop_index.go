package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"drop-index", newDropIndexCmd}) }

type dropIndexOptions struct {
	storeFlags
	path, coll, name string
}

func newDropIndexCmd(e *env) *cobra.Command {
	opts := &dropIndexOptions{}
	cmd := &cobra.Command{
		Use:   "drop-index <store> <collection> <name|fields>",
		Short: "Remove an index and its data",
		Long: `Remove an index, named by its name (see omgdb indexes) or by its fields
as create-index takes them (age,name:-1). The definition goes into the
journal. Prints "dropped index ` + "`<name>` on `<collection>`" + `".`,
		Example: `  omgdb drop-index app.omgdb users age_1
  omgdb drop-index app.omgdb users address.city,age:-1`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.name = args[0], args[1], args[2]
			return e.runDropIndex(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	return cmd
}

func (e *env) runDropIndex(ctx context.Context, opts *dropIndexOptions) error {
	if isMongo(opts.path) {
		return e.mongoDropIndex(ctx, opts)
	}
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	name := opts.name
	err = db.Update(store.Change{Kind: "drop_index"}, func(tx *store.Tx) error {
		c, err := tx.Collection(opts.coll)
		if err != nil {
			return err
		}
		if _, err := c.Index(name); err != nil {
			if fields, perr := store.ParseKeyPattern(name); perr == nil {
				if byFields := c.FindBTreeIndex(fields); byFields != "" {
					name = byFields
				}
			}
		}
		return c.DropIndex(name)
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "dropped index `%s` on `%s`\n", name, opts.coll)
	return err
}
