package engine

import (
	"context"
	"os"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Revision is a point in an engine's journal (a MongoDB engine's; a store
// file has changes.Revision): the state right after the change Change,
// whose place in the journal is Seq. Change is empty before the first
// change.
type Revision struct {
	Spec   string `json:"spec"`             // as given
	Kind   string `json:"kind"`             // now, snapshot, seq, change or time
	Change string `json:"change,omitempty"` // the last change applied at the revision
	Seq    int64  `json:"seq"`              // its seq; 0 before the first change
}

// Revision kinds.
const (
	RevNow      = "now"
	RevSnapshot = "snapshot"
	RevSeq      = "seq"
	RevChange   = "change"
	RevTime     = "time"
)

// Past is the read half of an engine's journal: time travel and diff. It
// never writes, so a read-scope server may hold it.
type Past interface {
	// At returns a Reader of the engine as it was at a revision spec.
	At(ctx context.Context, spec string) (Reader, Revision, error)
	// Diff returns the documents that differ between two revisions (to
	// empty: now), of coll only when it is not empty, by collection then
	// _id.
	Diff(ctx context.Context, from, to, coll string) (*Diff, error)
}

// Diff is what differs between two revisions.
type Diff struct {
	From, To  Revision
	Documents []DocChange
}

// DocChange is a document that differs between two revisions.
type DocChange struct {
	Collection string
	ID         value.Value
	Before     value.Value // at the first revision; Missing: absent
	After      value.Value // at the second; Missing: absent
}

// Scanner gives the documents of a collection, in _id order, as a stream
// (such as a MongoDB collection as it was at a revision).
type Scanner interface {
	Collections(ctx context.Context) ([]string, error)
	Scan(ctx context.Context, coll string) (agg.Source, error)
	Indexes(ctx context.Context, coll string) ([]Index, error)
}

// Scanned is a Reader that runs every query with omgdb's own engine over
// a Scanner's documents: the code a store file reads a past revision with
// (store.FindIn, store.DistinctValues, the aggregation engine), so its
// results are those of a store file holding the same documents. A
// pipeline's joins scan their collections through the same Scanner. It
// is a Collater: with a collation, strings compare by omgdb's own
// collator, as on a store file.
func Scanned(s Scanner) Reader { return scanned{s: s} }

type scanned struct {
	s    Scanner
	coll *collation.Collation // compares strings; nil: binary
}

// CollatedReader is the reader comparing strings by spec, checked by
// omgdb's collation parser (Collater).
func (r scanned) CollatedReader(spec value.Value) (Reader, error) {
	c, err := collation.Parse(spec)
	if err != nil {
		return nil, err
	}
	return scanned{s: r.s, coll: c}, nil
}

// filter compiles a query's filter with the reader's collation.
func (r scanned) filter(spec value.Value) (*query.Filter, error) {
	if r.coll == nil || empty(spec) {
		return CheckFilter(spec)
	}
	return query.CompileFilterCollation(spec, r.coll)
}

func (r scanned) Collections(ctx context.Context) ([]string, error) { return r.s.Collections(ctx) }

func (r scanned) Indexes(ctx context.Context, coll string) ([]Index, error) {
	return r.s.Indexes(ctx, coll)
}

func (r scanned) Close() error { return nil }

func (r scanned) find(ctx context.Context, coll string, q store.Query) (agg.Source, error) {
	src, err := r.s.Scan(ctx, coll)
	if err != nil {
		return nil, err
	}
	return store.FindIn(ctx, src, q), nil
}

func (r scanned) Find(ctx context.Context, coll string, q *Find, each func(value.Value) error) error {
	flt, err := r.filter(q.Filter)
	if err != nil {
		return err
	}
	rest := *q // the parts but the filter, compiled once: it has the collation
	rest.Filter = value.MissingValue
	c, err := Check(&rest)
	if err != nil {
		return err
	}
	c.Filter, c.Sort = flt, c.Sort.WithCollation(r.coll)
	src, err := r.find(ctx, coll, store.Query{Filter: c.Filter, Sort: c.Sort, Projection: c.Projection, Skip: q.Skip, Limit: q.Limit, SpillDir: os.TempDir()})
	if err != nil {
		return err
	}
	return drain(src, each)
}

func (r scanned) Count(ctx context.Context, coll string, filter value.Value) (int64, error) {
	var n int64
	err := r.Find(ctx, coll, &Find{Filter: filter}, func(value.Value) error { n++; return nil })
	return n, err
}

func (r scanned) Distinct(ctx context.Context, coll, field string, filter value.Value) ([]value.Value, error) {
	flt, err := r.filter(filter)
	if err != nil {
		return nil, err
	}
	if err := CheckField(field); err != nil {
		return nil, err
	}
	src, err := r.find(ctx, coll, store.Query{Filter: flt})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	vals, err := store.DistinctValuesCollation(src, field, 0, r.coll)
	if err == nil {
		err = src.Err()
	}
	return vals, err
}

func (r scanned) Aggregate(ctx context.Context, coll string, pipeline value.Value, each func(value.Value) error) error {
	p, err := CheckPipeline(pipeline, &agg.PipelineOptions{SpillDir: os.TempDir(), Collation: r.coll})
	if err != nil {
		return err
	}
	src, err := r.s.Scan(ctx, coll)
	if err != nil {
		return err
	}
	return drain(p.Run(ctx, src, scanEnv{r.s}), each)
}

// scanEnv gives a pipeline's joins their collections through the Scanner.
type scanEnv struct{ s Scanner }

func (e scanEnv) Collection(ctx context.Context, name string) (agg.Source, error) {
	return e.s.Scan(ctx, name)
}
