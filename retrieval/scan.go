package retrieval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
	"github.com/omgdb/omgdb/vector"
)

// The documents a search scans by default, and at most.
const (
	DefaultMaxScan = 1000
	MaxScan        = 10000
)

// Options configures a search over an engine. The zero value scans the
// first DefaultMaxScan documents and returns vector.DefaultK hits.
type Options struct {
	// Filter selects the documents scanned; it runs in the engine.
	// Missing or {}: every document.
	Filter value.Value
	// MaxScan is the number of documents scanned at most, in _id order
	// after the filter; DefaultMaxScan when 0, never more than MaxScan.
	MaxScan  int
	K        int      // hits; vector.DefaultK when 0
	MinScore *float64 // as vector.SearchOptions.MinScore

	// Full-text search, and the BM25 side of a hybrid ranking.
	Fields    []string // the text fields indexed and scored; required
	Analyzer  string   // vector.DefaultAnalyzer when empty
	Highlight bool     // as vector.SearchOptions.Highlight

	// Hybrid fuses BM25 over Fields with the vector ranking
	// (VectorSearch, Pack), as vector.HybridSearch; for TextSearch,
	// VectorField names the field whose vectors are fused.
	Hybrid      bool
	VectorField string

	// Context packs.
	Budget int // tokens; vector.DefaultBudget when 0
}

func (o *Options) maxScan() (int, error) {
	switch {
	case o.MaxScan == 0:
		return DefaultMaxScan, nil
	case o.MaxScan < 0 || o.MaxScan > MaxScan:
		return 0, errs.Errorf(errs.Limit, "a scan of %d documents is outside the limits (1 to %d)", o.MaxScan, MaxScan).
			WithHint("scan at most %d documents (--max-scan, max_scan); narrow the scan with a filter", MaxScan)
	}
	return o.MaxScan, nil
}

// Scan says what a search read: the documents scanned, the cap, and
// whether the collection had more matching documents past the cap.
type Scan struct {
	Scanned int  // documents read (those without the searched text rank nowhere)
	Cap     int  // the most it would read
	More    bool // documents past the cap exist: they were not ranked
}

// Value is the scan as results carry it:
// {"method":"bounded exact scan","order":"_id","scanned","cap","more"}.
func (s Scan) Value() value.Value {
	return value.ObjectValue([]value.Field{
		{Key: "method", Value: value.StringValue("bounded exact scan")},
		{Key: "order", Value: value.StringValue("_id")},
		{Key: "scanned", Value: value.LongValue(int64(s.Scanned))},
		{Key: "cap", Value: value.LongValue(int64(s.Cap))},
		{Key: "more", Value: value.BoolValue(s.More)},
	})
}

// Note says the same in a sentence, for standard error and the results'
// note.
func (s Scan) Note(coll string) string {
	n := fmt.Sprintf("bounded exact scan: ranked the first %d document(s) of `%s` in _id order (cap %d)", s.Scanned, coll, s.Cap)
	if s.More {
		return n + "; the collection has more documents past the cap, which were not ranked: results may be missing (raise --max-scan or narrow the filter)"
	}
	return n + "; that is every matching document"
}

// scan reads the first documents of coll that match o.Filter, at most the
// cap, into a scratch store file with the indexes defs, and calls fn with
// the scratch collection inside a read transaction.
func scan(ctx context.Context, r engine.Reader, coll string, o *Options, defs []store.IndexDef, fn func(*store.Collection, Scan) error) (Scan, error) {
	limit, err := o.maxScan()
	if err != nil {
		return Scan{}, err
	}
	if _, err := engine.CheckFilter(o.Filter); err != nil {
		return Scan{}, err
	}
	dir, err := os.MkdirTemp("", "omgdb-scan-")
	if err != nil {
		return Scan{}, errs.Errorf(errs.IO, "scratch store for a scan: %v", err).WithHint("check that the temporary directory ($TMPDIR) is writable")
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(filepath.Join(dir, "scan.omgdb"), &store.Options{Create: true, NoSync: true, Actor: "scan"})
	if err != nil {
		return Scan{}, err
	}
	defer db.Close()
	s := Scan{Cap: limit}
	// A MongoDB collection's name may be one a store file refuses (a
	// space, a letter outside ASCII): the scratch collection then has
	// another name, which no message of a scan shows.
	name := coll
	if store.ValidateCollectionName(coll) != nil {
		name = "scan"
	}
	if err := checkDefs(db, name, defs); err != nil {
		return Scan{}, err
	}
	if err := fill(ctx, db, r, coll, name, o.Filter, defs, &s); err != nil {
		return Scan{}, err
	}
	return s, db.View(func(tx *store.Tx) error {
		c, err := tx.Collection(name)
		if err != nil {
			return err
		}
		return fn(c, s)
	})
}

// fill reads the documents of the scan into the scratch collection name,
// then builds the indexes defs over them, in one transaction.
func fill(ctx context.Context, db *store.DB, r engine.Reader, coll, name string, filter value.Value, defs []store.IndexDef, s *Scan) error {
	return db.Update(store.Change{Kind: "scan"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(name)
		if err != nil {
			return err
		}
		q := &engine.Find{Filter: filter, Limit: int64(s.Cap) + 1}
		err = r.Find(ctx, coll, q, func(doc value.Value) error {
			if s.Scanned == s.Cap {
				s.More = true
				return nil
			}
			s.Scanned++
			if _, err := c.Insert(doc); err != nil {
				return unrankable(coll, doc, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		// Built once over the documents: maintaining a search index
		// document by document made a scan of 10,000 take minutes.
		_, err = c.CreateIndexes(defs...)
		return err
	})
}

// unrankable is the error of a document the scratch store refuses.
func unrankable(coll string, doc value.Value, err error) error {
	return &errs.Error{Kind: errs.KindOf(err), Err: err,
		Message: fmt.Sprintf("document %s of `%s` cannot be ranked: %v", doc.Get("_id"), coll, err),
		Hint:    "omgdb ranks only documents a store file can hold (no field name starting with $ or holding a dot); leave this one out with a filter"}
}

// checkDefs creates the index definitions on the empty scratch
// collection and drops them again, so that a bad one (a field path, an
// analyzer) is refused before anything is read.
func checkDefs(db *store.DB, name string, defs []store.IndexDef) error {
	if len(defs) == 0 {
		return nil
	}
	return db.Update(store.Change{Kind: "scan"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(name)
		if err != nil {
			return err
		}
		ixs, err := c.CreateIndexes(defs...)
		for _, ix := range ixs {
			if err == nil {
				err = c.DropIndex(ix.Def.Name)
			}
		}
		return err
	})
}

func (o *Options) search() *vector.SearchOptions {
	return &vector.SearchOptions{K: o.K, MinScore: o.MinScore, Highlight: o.Highlight}
}

// VectorSearch ranks the scanned documents of coll by exact cosine
// similarity between the embedding of field and that of text, as
// vector.VectorSearch on a store file without a vector index. The
// result's Note is the scan's.
func VectorSearch(ctx context.Context, r engine.Reader, coll, field, text string, o *Options) (*vector.Result, Scan, error) {
	if o == nil {
		o = &Options{}
	}
	if err := vector.CheckFieldPath(field); err != nil {
		return nil, Scan{}, err
	}
	defs, err := o.hybridDefs()
	if err != nil {
		return nil, Scan{}, err
	}
	var res *vector.Result
	s, err := scan(ctx, r, coll, o, defs, func(c *store.Collection, _ Scan) (err error) {
		if o.Hybrid {
			res, err = vector.HybridSearch(ctx, c, field, text, o.search())
		} else {
			res, err = vector.VectorSearch(ctx, c, field, text, o.search())
		}
		return err
	})
	if err != nil {
		return nil, Scan{}, err
	}
	res.Index, res.Note = "", s.Note(coll)
	return res, s, nil
}

// TextSearch ranks the scanned documents of coll by BM25 over o.Fields
// for a query in the syntax of vector.TextSearch, as a store file's search
// index over those fields would. BM25's statistics are those of the
// scanned documents. The result has no Index; its Note is the scan's.
func TextSearch(ctx context.Context, r engine.Reader, coll, text string, o *Options) (*vector.Result, Scan, error) {
	if o == nil || len(o.Fields) == 0 {
		return nil, Scan{}, errs.Errorf(errs.Usage, "a full-text search over MongoDB needs the fields to search").
			WithHint("name them: --fields title,body (the MCP tool's fields argument)")
	}
	if o.VectorField != "" {
		if err := vector.CheckFieldPath(o.VectorField); err != nil {
			return nil, Scan{}, err
		}
	}
	var res *vector.Result
	s, err := scan(ctx, r, coll, o, []store.IndexDef{o.searchDef()}, func(c *store.Collection, _ Scan) (err error) {
		if o.VectorField != "" {
			res, err = vector.HybridQuerySearch(ctx, c, o.VectorField, text, o.search())
		} else {
			res, err = vector.TextSearch(ctx, c, text, o.search())
		}
		return err
	})
	if err != nil {
		return nil, Scan{}, fieldsError(err, o.Fields)
	}
	res.Index, res.Note = "", s.Note(coll)
	return res, s, nil
}

// Pack builds a context pack of field's text from the scanned documents
// of coll, ranked by vector similarity to text, as vector.Pack on a store
// file without a vector index. The pack's note is the scan's, and it
// carries the scan as "scan"; both count in the budget.
func Pack(ctx context.Context, r engine.Reader, coll, field, text string, o *Options) (value.Value, Scan, error) {
	if o == nil {
		o = &Options{}
	}
	if err := vector.CheckFieldPath(field); err != nil {
		return value.Value{}, Scan{}, err
	}
	defs, err := o.hybridDefs()
	if err != nil {
		return value.Value{}, Scan{}, err
	}
	var pack value.Value
	s, err := scan(ctx, r, coll, o, defs, func(c *store.Collection, s Scan) (err error) {
		pack, err = vector.Pack(ctx, c, field, text, &vector.PackOptions{Budget: o.Budget, Hybrid: o.Hybrid, Note: s.Note(coll),
			Extra: []value.Field{{Key: "scan", Value: s.Value()}}})
		return err
	})
	return pack, s, err
}

// searchDef is the scratch search index over o.Fields.
func (o *Options) searchDef() store.IndexDef {
	return vector.NewSearchIndexDef("scan", o.Fields, o.Analyzer)
}

// hybridDefs are the scratch indexes of a vector ranking: a search index
// over o.Fields when it is fused with BM25, none otherwise.
func (o *Options) hybridDefs() ([]store.IndexDef, error) {
	switch {
	case o.Hybrid && len(o.Fields) == 0:
		return nil, errs.Errorf(errs.Usage, "a hybrid ranking over MongoDB needs the fields BM25 ranks").
			WithHint("name them: --fields title,body")
	case !o.Hybrid && len(o.Fields) > 0:
		return nil, errs.Errorf(errs.Usage, "fields are ranked by BM25 only in a hybrid ranking").
			WithHint("add --hybrid, or leave --fields out")
	case o.Hybrid:
		return []store.IndexDef{o.searchDef()}, nil
	}
	return nil, nil
}

// fieldsError rewords the error of a query that names a field outside the
// scratch search index: over an engine, the index is the fields asked for.
func fieldsError(err error, fields []string) error {
	var e *errs.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, " is not in the search index") {
		return err
	}
	return &errs.Error{Kind: e.Kind, Message: strings.Replace(e.Message, " is not in the search index", " is not among the fields searched", 1),
		Hint: fmt.Sprintf("the search covers %s; add the field to --fields (the MCP tool's fields argument)", strings.Join(fields, ", "))}
}
