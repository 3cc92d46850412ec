package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/retrieval"
	"github.com/omgdb/omgdb/vector"
)

// Retrieval over MongoDB: vsearch, search and context run on a bounded
// exact scan of the collection (package retrieval), and say so on
// standard error; the index commands of retrieval are refused, since the
// scan needs no index.

// scanFlags are the flags of a bounded exact scan, which apply over
// MongoDB only.
type scanFlags struct {
	maxScan  int
	fields   []string               // search
	analyzer string                 // search
	changed  func(name string) bool // the flag set's Changed
}

func (f *scanFlags) register(cmd *cobra.Command) {
	f.changed = cmd.Flags().Changed
	cmd.Flags().IntVar(&f.maxScan, "max-scan", retrieval.DefaultMaxScan,
		fmt.Sprintf("over MongoDB: the documents scanned at most, the first in _id order after --filter (at most %d)", retrieval.MaxScan))
}

// registerText adds the flags of a full-text search's scan.
func (f *scanFlags) registerText(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&f.fields, "fields", nil, "over MongoDB: the text fields BM25 ranks (search, and --hybrid), such as title,body; a store file uses its search index")
	cmd.Flags().StringVar(&f.analyzer, "analyzer", vector.DefaultAnalyzer, "over MongoDB: the text analyzer of --fields, standard or en")
}

// onFile refuses the scan's flags on a store file, whose searches rank
// every document through its indexes.
func (f *scanFlags) onFile() error {
	for _, name := range []string{"max-scan", "fields", "analyzer"} {
		if f.changed != nil && f.changed(name) {
			return usage("--%s applies only over MongoDB", name).
				WithHint("on a store file vsearch, search and context rank every document through the collection's indexes; leave --%s out", name)
		}
	}
	return nil
}

// mongoVsearch ranks a bounded exact scan of the collection.
func (e *env) mongoVsearch(ctx context.Context, opts *vsearchOptions) error {
	if err := refuseOverMongo("--index", opts.index != ""); err != nil {
		return err
	}
	if err := opts.scan.check(); err != nil {
		return err
	}
	o := opts.scanOptions()
	o.Hybrid = opts.hybrid
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		res, _, err := retrieval.VectorSearch(ctx, db, opts.coll, opts.field, opts.text, o)
		if err != nil {
			return err
		}
		return e.printHits(res, &opts.searchFlags)
	})
}

// mongoSearch ranks a bounded exact scan of the collection by BM25 over
// --fields.
func (e *env) mongoSearch(ctx context.Context, opts *searchOptions) error {
	if err := refuseOverMongo("--index", opts.textIndex != ""); err != nil {
		return err
	}
	if opts.hybrid != (opts.field != "") {
		return usage("search --hybrid over MongoDB needs --field, and --field needs --hybrid").
			WithHint("name the text field whose vectors are fused: --hybrid --field body")
	}
	if len(opts.scan.fields) == 0 {
		return usage("search over MongoDB needs --fields: there is no omgdb search index there").
			WithHint("name the text fields to search, such as --fields title,body")
	}
	if err := opts.scan.check(); err != nil {
		return err
	}
	o := opts.scanOptions()
	o.Highlight, o.VectorField = opts.highlight, opts.field
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		res, _, err := retrieval.TextSearch(ctx, db, opts.coll, opts.text, o)
		if err != nil {
			return err
		}
		return e.printHits(res, &opts.searchFlags)
	})
}

// check checks --max-scan.
func (f *scanFlags) check() error {
	if f.maxScan < 1 || f.maxScan > retrieval.MaxScan {
		return usage("--max-scan must be between 1 and %d", retrieval.MaxScan).
			WithHint("scan fewer documents, or narrow the scan with --filter")
	}
	return nil
}

// scanOptions are the options of a search's scan.
func (f *searchFlags) scanOptions() *retrieval.Options {
	o := &retrieval.Options{Filter: f.filterSpec, MaxScan: f.scan.maxScan, K: f.k, Fields: f.scan.fields, Analyzer: f.scan.analyzer}
	if f.minScoreSet {
		o.MinScore = &f.minScore
	}
	return o
}

// mongoContext builds a context pack from a bounded exact scan.
func (e *env) mongoContext(ctx context.Context, opts *contextOptions) error {
	if err := opts.scan.check(); err != nil {
		return err
	}
	o := &retrieval.Options{MaxScan: opts.scan.maxScan, Budget: opts.budget, Hybrid: opts.hybrid, Fields: opts.scan.fields, Analyzer: opts.scan.analyzer}
	if opts.filter != "" {
		spec, _, err := e.compileFilterSpec(opts.filter, "")
		if err != nil {
			return err
		}
		o.Filter = spec
	}
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		pack, _, err := retrieval.Pack(ctx, db, opts.coll, opts.field, opts.text, o)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "note: %s\n", pack.Get("note").Str())
		out := e.output(opts.pretty)
		defer out.flush()
		return out.doc(pack)
	})
}

// noIndexOverMongo refuses the commands that build a store file's vector
// and search indexes.
func (e *env) noIndexOverMongo() error {
	return usage("`omgdb %s` does not run over MongoDB: omgdb keeps no vector or search index there", e.command).
		WithHint("over MongoDB vsearch, search and context rank a bounded exact scan of the collection, which needs no index (see `omgdb docs mongodb`, \"Retrieval over MongoDB\"); search takes --fields")
}
