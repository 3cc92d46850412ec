package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"create-index", newCreateIndexCmd}) }

type createIndexOptions struct {
	storeFlags
	path, coll     string
	fields         []string // one key pattern per index
	name           string
	unique, sparse bool
	collation      string
	text           textIndexFlags
}

func newCreateIndexCmd(e *env) *cobra.Command {
	opts := &createIndexOptions{}
	cmd := &cobra.Command{
		Use:   "create-index <store> <collection> <field>[,<field>…] [<field>[,<field>…]…]",
		Short: "Create B-tree and 2dsphere indexes on one or more fields, or the text index, and build them",
		Long: `Create a secondary index on one field or, comma-separated, several (a
compound index). A field is a dotted path (address.city) with an optional
direction: age:-1 is descending, age and age:1 ascending. The key pattern may
also be written as MongoDB's createIndex takes it: '{"city":1,"age":-1}'. An array yields one
entry per element (multikey); a compound index may draw on one array per
document. A missing field is indexed as null unless --sparse.

A field may be "2dsphere" instead of a direction ('{"loc":"2dsphere"}',
loc:2dsphere): its entries are the S2 cells covering the GeoJSON geometry or
legacy [lng, lat] pair at the field, for $geoWithin, $geoIntersects, $near,
$nearSphere and $geoNear. Documents without the field have no entry; a value
that is not geometry is refused (exit 65, "Can't extract geo keys"). "2d"
indexes are not supported. With --unique,
no two documents may have the same key: the build, and every later insert,
update, import or apply that would break this, fails with a conflict (exit
69) naming the index, the key and both _ids, and writes nothing.

Several key patterns, separated by spaces, create several indexes in one
command, as MongoDB's createIndexes does: they are built together in one
scan that decodes each document once (one process, one commit), --unique
and --sparse apply to each, and --name needs a single index. Either every
index is created or, when one cannot be built, none.

The indexes are built over the existing documents in the same transaction,
with a progress bar on a terminal, and recorded in the journal. Prints
"created index on ` + "`<collection>.<fields>`" + `" for each.

A key pattern whose values are "text" ('{"title":"text","body":"text"}', or
'{"$**":"text"}' for every string field) creates the collection's text index,
which $text queries need (one per collection), with MongoDB's options
--weights, --default-language and --language-override (see: omgdb docs filters).`,
		Example: `  omgdb create-index app.omgdb users age
  omgdb create-index app.omgdb posts '{"title":"text","body":"text"}' --weights '{"title":10}'  # for $text
  omgdb create-index app.omgdb users '{"city":1,"age":-1}'
  omgdb create-index app.omgdb places '{"loc":"2dsphere"}'
  omgdb create-index app.omgdb users email --unique
  omgdb create-index app.omgdb users address.city,age:-1 --name city_age
  omgdb create-index app.omgdb users email age   # two indexes, one scan`,
		Args: cobra.MinimumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.fields = args[0], args[1], args[2:]
			return e.runCreateIndex(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().BoolVar(&opts.unique, "unique", false, "refuse two documents with the same key")
	cmd.Flags().BoolVar(&opts.sparse, "sparse", false, "leave out documents that have none of the fields")
	cmd.Flags().StringVar(&opts.name, "name", "", "the index's name (default: MongoDB's, such as age_1_name_-1)")
	cmd.Flags().StringVar(&opts.collation, "collation", "", `key strings by this collation, e.g. '{"locale":"en","strength":2}'; only queries with the same collation use the index for strings (default: the collection's)`)
	opts.text.register(cmd)
	return cmd
}

func (e *env) runCreateIndex(ctx context.Context, opts *createIndexOptions) error {
	if opts.name != "" && len(opts.fields) > 1 {
		return errs.Errorf(errs.Usage, "--name names one index, and %d key patterns are given", len(opts.fields)).
			WithHint("create the named index in a command of its own")
	}
	if def, ok, err := opts.textIndexDef(); ok || err != nil {
		if err != nil {
			return err
		}
		if opts.collation != "" {
			return errs.Errorf(errs.Usage, "a text index takes no collation: it compares its terms by MongoDB's own rules (case and diacritic folding)").
				WithHint("leave out --collation, or index the field with a B-tree key instead")
		}
		if isMongo(opts.path) {
			return e.mongoCreateIndex(ctx, opts, &def)
		}
		return e.runCreateTextIndex(ctx, opts, def)
	}
	if opts.text.given() {
		return errs.Errorf(errs.Usage, "--weights, --default-language and --language-override apply to a text index only").
			WithHint(`write the key pattern as '{"title":"text"}'`)
	}
	if isMongo(opts.path) {
		return e.mongoCreateIndex(ctx, opts, nil)
	}
	collDoc, coll, err := e.parseCollation(opts.collation)
	if err != nil {
		return err
	}
	defs := make([]store.IndexDef, len(opts.fields))
	parsed := make([][]store.IndexField, len(opts.fields))
	for i, pattern := range opts.fields {
		fields, err := store.ParseKeyPattern(pattern)
		if err != nil {
			return err
		}
		parsed[i] = fields
		spec := store.BTreeSpec{Fields: fields, Unique: opts.unique, Sparse: opts.sparse}
		if !collDoc.IsMissing() {
			spec.SetCollation(coll)
		}
		defs[i] = store.BTreeIndex(opts.name, spec)
	}
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	var bar *progress
	err = db.Update(store.Change{Kind: "create_index"}, func(tx *store.Tx) error {
		c, err := tx.Collection(opts.coll)
		if err != nil {
			return err
		}
		bar = e.indexBar(c)
		if _, err = c.CreateBTreeIndexes(defs...); err != nil {
			return err
		}
		return ctx.Err() // Ctrl-C during the build: commit nothing
	})
	bar.done()
	if err != nil {
		return err
	}
	for i, pattern := range opts.fields {
		if strings.HasPrefix(strings.TrimSpace(pattern), "{") {
			pattern = store.FormatKeyPattern(parsed[i])
		}
		if _, err := fmt.Fprintf(e.stdout, "created index on `%s.%s`\n", opts.coll, pattern); err != nil {
			return err
		}
	}
	return nil
}
