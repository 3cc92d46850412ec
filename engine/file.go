package engine

import (
	"context"
	"os"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// File is the store file's engine: a Reader over a *store.DB. Every call
// runs in a read transaction of its own.
type File struct {
	db    *store.DB
	owned bool // Close closes db
}

// OpenFile opens the store file at path read-only (store.Open with
// opts.ReadOnly set) as an engine; Close closes it.
func OpenFile(path string, opts *store.Options) (*File, error) {
	var o store.Options
	if opts != nil {
		o = *opts
	}
	o.ReadOnly, o.Create = true, false
	db, err := store.Open(path, &o)
	if err != nil {
		return nil, err
	}
	return &File{db: db, owned: true}, nil
}

// NewFile returns the engine of an open store; Close leaves db open.
func NewFile(db *store.DB) *File { return &File{db: db} }

// Collections returns the store's collection names, sorted.
func (f *File) Collections(context.Context) ([]string, error) {
	var names []string
	err := f.db.View(func(tx *store.Tx) error {
		names = tx.Collections()
		return nil
	})
	return names, err
}

// Find runs q with the store's planner.
func (f *File) Find(ctx context.Context, coll string, q *Find, each func(value.Value) error) error {
	c, err := Check(q)
	if err != nil {
		return err
	}
	sq := store.Query{Filter: c.Filter, Sort: c.Sort, Projection: c.Projection, Skip: q.Skip, Limit: q.Limit, SpillDir: os.TempDir()}
	return f.collection(coll, func(col *store.Collection) error {
		return drain(col.Find(ctx, sq), each)
	})
}

// Count counts the documents that match filter.
func (f *File) Count(ctx context.Context, coll string, filter value.Value) (int64, error) {
	flt, err := CheckFilter(filter)
	if err != nil {
		return 0, err
	}
	var n int64
	err = f.collection(coll, func(col *store.Collection) error {
		n, err = col.CountMatching(ctx, flt)
		return err
	})
	return n, err
}

// Distinct returns the distinct values of field among the matches.
func (f *File) Distinct(ctx context.Context, coll, field string, filter value.Value) ([]value.Value, error) {
	flt, err := CheckFilter(filter)
	if err != nil {
		return nil, err
	}
	var vals []value.Value
	err = f.collection(coll, func(col *store.Collection) error {
		vals, err = col.Distinct(ctx, field, store.Query{Filter: flt}, 0)
		return err
	})
	return vals, err
}

// Aggregate runs pipeline with omgdb's aggregation engine.
func (f *File) Aggregate(ctx context.Context, coll string, pipeline value.Value, each func(value.Value) error) error {
	p, err := CheckPipeline(pipeline, &agg.PipelineOptions{SpillDir: os.TempDir()})
	if err != nil {
		return err
	}
	return f.collection(coll, func(col *store.Collection) error {
		return drain(col.Aggregate(ctx, p, nil), each)
	})
}

// Indexes describes coll's _id index (the documents' key, unique) and its
// B-tree indexes (vector and search indexes are the store file's own and
// not listed here).
func (f *File) Indexes(_ context.Context, coll string) ([]Index, error) {
	out := []Index{IDIndex}
	err := f.collection(coll, func(col *store.Collection) error {
		infos, err := col.IndexInfos()
		if err != nil {
			return err
		}
		for _, info := range infos {
			if info.Kind != store.BTreeKind {
				continue
			}
			key, err := value.Parse(info.Key)
			if err != nil {
				return errs.Errorf(errs.IO, "index %s: key %s: %v", info.Name, info.Key, err)
			}
			out = append(out, Index{Name: info.Name, Key: NormalizeKey(key), Unique: info.Unique, Sparse: info.Sparse})
		}
		return nil
	})
	return out, err
}

// Close closes the store if OpenFile opened it.
func (f *File) Close() error {
	if !f.owned || f.db == nil {
		return nil
	}
	db := f.db
	f.db = nil
	return db.Close()
}

// collection runs fn on coll in a read transaction.
func (f *File) collection(coll string, fn func(*store.Collection) error) error {
	return f.db.View(func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		return fn(c)
	})
}

// drain passes every document of src to each and closes src.
func drain(src agg.Source, each func(value.Value) error) error {
	defer src.Close()
	for src.Next() {
		if err := each(src.Doc()); err != nil {
			return err
		}
	}
	return src.Err()
}
