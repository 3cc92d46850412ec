package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
	"github.com/omgdb/omgdb/vector"
)

func init() {
	commands = append(commands, command{"create-vector-index", newCreateVectorIndexCmd}, command{"create-search-index", newCreateSearchIndexCmd}, command{"reindex", newReindexCmd})
}

type createVectorIndexOptions struct {
	storeFlags
	path, coll, field, name, model string
	dim                            int
}

func newCreateVectorIndexCmd(e *env) *cobra.Command {
	opts := &createVectorIndexOptions{}
	cmd := &cobra.Command{
		Use:   "create-vector-index <store> <collection> <field>",
		Short: "Create a vector index on a text field, kept up to date on every write",
		Long: `Embed the text field (a dotted path; strings in arrays are joined) of every
document with omgdb's hashing embedder and store the vectors in the store
file. From then on every insert, update, delete, apply and rollback updates
the vectors in the same transaction, so vsearch never reads stale vectors.
The model id (such as hashing-fnv1a-v2-d256) is recorded with the index;
--model hashing-fnv1a-v1-d<dim> selects OMGDB's baseline embedder.`,
		Example: `  omgdb create-vector-index app.omgdb notes body
  omgdb create-vector-index app.omgdb notes summary --dim 512 --name summary_vec`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.field = args[0], args[1], args[2]
			if isMongo(opts.path) {
				return e.noIndexOverMongo()
			}
			if opts.dim < 0 || opts.dim > vector.MaxDim {
				return usage("--dim must be between 1 and %d", vector.MaxDim)
			}
			return e.runCreateVectorIndex(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().IntVar(&opts.dim, "dim", vector.DefaultDim, "dimensions of the vectors")
	cmd.Flags().StringVar(&opts.name, "name", "", "the index name (default vector_<field>)")
	cmd.Flags().StringVar(&opts.model, "model", "", "the embedding model id (default hashing-fnv1a-v2-d<dim>)")
	return cmd
}

func (e *env) runCreateVectorIndex(ctx context.Context, opts *createVectorIndexOptions) error {
	def := vector.NewVectorIndexDef(opts.name, opts.field, opts.dim)
	if opts.model != "" {
		def.Spec = []byte(fmt.Sprintf(`{"field":%q,"dim":%d,"model":%q}`, opts.field, opts.dim, opts.model))
	}
	return e.createIndex(ctx, opts.path, opts.coll, opts.storeFlags, def)
}

// createIndex creates an index in an existing collection and reports it.
func (e *env) createIndex(ctx context.Context, path, coll string, f storeFlags, def store.IndexDef) error {
	db, err := e.open(path, readWrite, f)
	if err != nil {
		return err
	}
	defer db.Close()
	var created store.IndexDef
	var bar *progress
	err = db.Update(store.Change{Kind: "create-index"}, func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		bar = e.indexBar(c)
		ix, err := c.CreateIndex(def)
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err // Ctrl-C during the build: commit nothing
		}
		created = ix.Def
		return nil
	})
	bar.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "created %s index `%s` on `%s`: %s\n", created.Kind, created.Name, coll, created.Spec)
	return nil
}

type createSearchIndexOptions struct {
	storeFlags
	path, coll, name, analyzer string
	fields                     []string
}

func newCreateSearchIndexCmd(e *env) *cobra.Command {
	opts := &createSearchIndexOptions{}
	cmd := &cobra.Command{
		Use:   "create-search-index <store> <collection> <field>[,<field>…]",
		Short: "Create a full-text (BM25) index on text fields, kept up to date on every write",
		Long: `Index the words of one or more text fields (dotted paths) of every document
for full-text search with BM25 ranking. The index lives in the store file
and every write updates it in the same transaction, so search is never
stale, and any number of processes can search while others read. The
analyzer is bleve's: standard (Unicode words, lowercased, English stop
words removed; the default) or en (also possessives removed and Porter
stemming, so "running" finds "runs").`,
		Example: `  omgdb create-search-index app.omgdb notes title,body
  omgdb create-search-index app.omgdb notes body --analyzer en`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll = args[0], args[1]
			if isMongo(opts.path) {
				return e.noIndexOverMongo()
			}
			for _, f := range strings.Split(args[2], ",") {
				if f = strings.TrimSpace(f); f != "" {
					opts.fields = append(opts.fields, f)
				}
			}
			return e.createIndex(cmd.Context(), opts.path, opts.coll, opts.storeFlags, vector.NewSearchIndexDef(opts.name, opts.fields, opts.analyzer))
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.analyzer, "analyzer", vector.DefaultAnalyzer, "the text analyzer: standard or en")
	cmd.Flags().StringVar(&opts.name, "name", "", "the index name (default search_<field>_<field>…)")
	return cmd
}

type reindexOptions struct {
	storeFlags
	path, coll string
	names      []string
}

func newReindexCmd(e *env) *cobra.Command {
	opts := &reindexOptions{}
	cmd := &cobra.Command{
		Use:   "reindex <store> <collection> [index]",
		Short: "Rebuild a collection's vector and search indexes from its documents",
		Long: `Drop and rebuild the named index, or every vector and search index of the
collection, from the documents, in one transaction. Indexes are kept up to
date on every write, so this is needed only after the embedder changed
(vsearch then says so and embeds on the fly) or when verify reports damage.`,
		Example: `  omgdb reindex app.omgdb notes
  omgdb reindex app.omgdb notes vector_body`,
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll = args[0], args[1]
			if isMongo(opts.path) {
				return e.noIndexOverMongo()
			}
			opts.names = args[2:]
			return e.runReindex(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	return cmd
}

func (e *env) runReindex(ctx context.Context, opts *reindexOptions) error {
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	var defs []store.IndexDef
	var bar *progress
	err = db.Update(store.Change{Kind: "reindex"}, func(tx *store.Tx) error {
		c, err := tx.Collection(opts.coll)
		if err != nil {
			return err
		}
		bar = e.indexBar(c)
		if defs, err = vector.Reindex(c, opts.names...); err != nil {
			return err
		}
		return ctx.Err() // Ctrl-C during the build: commit nothing
	})
	bar.done()
	if err != nil {
		return err
	}
	if len(defs) == 0 {
		fmt.Fprintf(e.stdout, "collection `%s` has no vector or search index\n", opts.coll)
	}
	for _, d := range defs {
		fmt.Fprintf(e.stdout, "rebuilt %s index `%s` on `%s`\n", d.Kind, d.Name, opts.coll)
	}
	return nil
}
