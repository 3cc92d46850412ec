package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// textIndexFlags are create-index's options of a text index, MongoDB's
// createIndex options of the same names.
type textIndexFlags struct {
	weights, defaultLanguage, languageOverride string
}

func (f *textIndexFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.weights, "weights", "", `text index: field weights as JSON, such as '{"title":10}' (default 1 each)`)
	cmd.Flags().StringVar(&f.defaultLanguage, "default-language", "", `text index: the language of documents that name none (default "english")`)
	cmd.Flags().StringVar(&f.languageOverride, "language-override", "", `text index: the field that names a document's language (default "language")`)
}

func (f *textIndexFlags) given() bool {
	return f.weights != "" || f.defaultLanguage != "" || f.languageOverride != ""
}

// textIndexDef returns the text index a key pattern asks for, if it asks
// for one ({"title":"text","body":"text"}).
func (opts *createIndexOptions) textIndexDef() (store.IndexDef, bool, error) {
	if len(opts.fields) != 1 {
		for _, p := range opts.fields {
			if _, ok, _ := store.TextPattern(p); ok {
				return store.IndexDef{}, true, errs.Errorf(errs.Usage, "a text index is created in a command of its own").
					WithHint("give its key pattern alone")
			}
		}
		return store.IndexDef{}, false, nil
	}
	fields, ok, err := store.TextPattern(opts.fields[0])
	if !ok || err != nil {
		return store.IndexDef{}, ok, err
	}
	if opts.unique || opts.sparse {
		return store.IndexDef{}, true, errs.Errorf(errs.Usage, "--unique and --sparse do not apply to a text index").
			WithHint("drop the flag")
	}
	var weights value.Value
	if opts.text.weights != "" {
		if weights, err = value.ParseString(opts.text.weights); err != nil {
			return store.IndexDef{}, true, errs.Errorf(errs.Usage, "--weights: %v", err).WithHint(`write --weights '{"title":10}'`)
		}
	}
	def, err := store.TextIndexDef(opts.name, fields, weights, opts.text.defaultLanguage, opts.text.languageOverride)
	return def, true, err
}

// runCreateTextIndex creates a text index.
func (e *env) runCreateTextIndex(ctx context.Context, opts *createIndexOptions, def store.IndexDef) error {
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	err = db.Update(store.Change{Kind: "create_index"}, func(tx *store.Tx) error {
		c, err := tx.Collection(opts.coll)
		if err != nil {
			return err
		}
		if _, err = c.CreateIndex(def); err != nil {
			return err
		}
		return ctx.Err()
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "created text index `%s` on `%s`\n", def.Name, opts.coll)
	return err
}
