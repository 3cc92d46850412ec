package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/engine"
)

func init() { commands = append(commands, command{"collections", newCollectionsCmd}) }

type collectionsOptions struct {
	storeFlags
	path string
	json bool
}

func newCollectionsCmd(e *env) *cobra.Command {
	opts := &collectionsOptions{}
	cmd := &cobra.Command{
		Use:   "collections <store>",
		Short: "List the collections of a store file or a MongoDB database",
		Long: `List the names of the collections, sorted, one per line (--json: one JSON
array), as mongosh's show collections. The store may be a file or a MongoDB
URI (mongodb://host/DB, mongodb+srv://host/DB, or mongodb:[DB] to take the
URI from $OMGDB_MONGODB_URI); over MongoDB, collections whose names start
with system. or omgdb. are not listed. See omgdb docs mongodb.`,
		Example: `  omgdb collections app.omgdb
  omgdb collections mongodb://localhost:27017/app --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return e.runCollections(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON array of names")
	return cmd
}

// runCollections reads the names through the engine interface, over a
// file or a deployment alike.
func (e *env) runCollections(ctx context.Context, opts *collectionsOptions) error {
	var r engine.Reader
	if isMongo(opts.path) {
		db, err := e.openMongo(ctx, opts.path)
		if err != nil {
			return err
		}
		r = db
	} else {
		db, err := e.open(opts.path, readOnly, opts.storeFlags)
		if err != nil {
			return err
		}
		defer db.Close()
		r = engine.NewFile(db)
	}
	defer r.Close()
	names, err := r.Collections(ctx)
	if err != nil {
		return err
	}
	if opts.json {
		if names == nil {
			names = []string{}
		}
		js, _ := json.Marshal(names)
		_, err = fmt.Fprintf(e.stdout, "%s\n", js)
		return err
	}
	for _, n := range names {
		if _, err := fmt.Fprintln(e.stdout, n); err != nil {
			return err
		}
	}
	return nil
}
