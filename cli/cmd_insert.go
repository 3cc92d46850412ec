package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"insert", newInsertCmd}) }

type insertOptions struct {
	storeFlags
	path, coll, doc string
}

func newInsertCmd(e *env) *cobra.Command {
	opts := &insertOptions{}
	cmd := &cobra.Command{
		Use:   "insert <store> <collection> <json|->",
		Short: "Insert a document, or NDJSON documents from stdin, and print each new _id",
		Long: `Insert one document given as JSON, or with "-" one document per line of
standard input (NDJSON), all in one transaction. Prints the _id of each
inserted document as canonical JSON, one per line. A missing store or
collection is created (the store's creation is reported on stderr).`,
		Example: `  omgdb insert app.omgdb users '{"name":"ada","age":36}'
  printf '{"name":"bob"}\n{"name":"cy"}\n' | omgdb insert app.omgdb users -`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.doc = args[0], args[1], args[2]
			return e.runInsert(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	return cmd
}

func (e *env) runInsert(ctx context.Context, opts *insertOptions) error {
	if isMongo(opts.path) {
		return e.mongoInsert(ctx, opts)
	}
	var doc value.Value
	if opts.doc != "-" {
		var err error
		if doc, err = e.parseDocArg(opts.doc, "document"); err != nil {
			return err
		}
	}
	db, err := e.open(opts.path, createIfNone, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	out := e.output(false)
	defer out.flush()
	if opts.doc == "-" {
		_, err := db.Import(ctx, opts.coll, e.stdin, &store.ImportOptions{Atomic: true, Kind: "insert", OnInsert: out.doc, Int32: true})
		return err
	}
	var id value.Value
	err = db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(opts.coll)
		if err != nil {
			return err
		}
		id, err = c.Insert(doc)
		return err
	})
	if err != nil {
		return err
	}
	return out.doc(id)
}
