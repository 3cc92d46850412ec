package store

import (
	"context"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// diagCounter is what a diagnosis counts with: the documents of a store
// file's collection (fileCounter), or a DiagnoseSource's.
type diagCounter interface {
	// countPreds counts, among the first limit documents in _id order
	// (all when limit <= 0), what each predicate matches alone, with the
	// ones before it, the filter without it, and the documents that have
	// each predicate's path.
	countPreds(ctx context.Context, preds []pred, limit int64) (*predCounts, error)
	// count counts the matches of filter among those documents.
	count(ctx context.Context, filter value.Value, limit int64) (int64, error)
	// schema infers the fields of the first DefaultSchemaSample documents.
	schema(ctx context.Context) (*Schema, error)
}

// fileCounter counts by reading a store file's collection.
type fileCounter struct{ c *Collection }

func (fc fileCounter) count(ctx context.Context, v value.Value, limit int64) (int64, error) {
	f, err := query.CompileFilter(v)
	if err != nil {
		return 0, err
	}
	var n, seen int64
	cur := fc.c.Scan()
	for cur.Next() && (limit <= 0 || seen < limit) {
		if seen++; ctx.Err() != nil {
			return 0, ctx.Err()
		}
		doc := cur.Doc()
		if err := cur.Err(); err != nil {
			return 0, err
		}
		ok, err := f.MatchContext(ctx, doc)
		if err != nil {
			return 0, err
		}
		if ok {
			n++
		}
	}
	return n, cur.Err()
}

func (fc fileCounter) schema(ctx context.Context) (*Schema, error) {
	return fc.c.Schema(ctx, DefaultSchemaSample, 4)
}

// DiagnoseSource is what DiagnoseSourced counts on when the documents are
// not a store file's (a MongoDB server's, counted there). Every method
// reads the collection as the caller may see it (redacted, for one).
type DiagnoseSource interface {
	// Documents returns how many documents the collection holds.
	Documents(ctx context.Context) (int64, error)
	// Count returns how many of the first limit documents in _id order
	// (all when limit <= 0) each filter matches.
	Count(ctx context.Context, filters []value.Value, limit int64) ([]int64, error)
	// Sample returns the first documents in _id order, at most n.
	Sample(ctx context.Context, n int) (agg.Source, error)
}

// DiagnoseSourced is Diagnose over the documents of src, a collection
// named coll: the same counts, hints and verdict, each count asked of
// src (one filter per predicate alone, per running conjunction, per
// filter without a predicate, and per path for its presence).
func DiagnoseSourced(ctx context.Context, coll string, src DiagnoseSource, f *query.Filter, opts *DiagnoseOptions) (*Diagnosis, error) {
	n, err := src.Documents(ctx)
	if err != nil {
		return nil, err
	}
	d, err := diagnose(ctx, coll, n, sourceCounter{src: src, coll: coll, documents: n}, f, opts)
	if d != nil && opts != nil {
		d.Bound = opts.Limit
	}
	return d, err
}

type sourceCounter struct {
	src       DiagnoseSource
	coll      string
	documents int64
}

func (sc sourceCounter) count(ctx context.Context, v value.Value, limit int64) (int64, error) {
	n, err := sc.src.Count(ctx, []value.Value{v}, limit)
	if err != nil {
		return 0, err
	}
	return n[0], nil
}

func (sc sourceCounter) schema(ctx context.Context) (*Schema, error) {
	src, err := sc.src.Sample(ctx, DefaultSchemaSample)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return SchemaOf(ctx, sc.coll, sc.documents, src, DefaultSchemaSample, 4)
}

// countPreds asks src for every count at once: each predicate alone, each
// running conjunction, the filter without each predicate, and each path's
// presence ({path: {$exists: true}}); the documents examined are those the
// empty filter matches.
func (sc sourceCounter) countPreds(ctx context.Context, preds []pred, limit int64) (*predCounts, error) {
	n := len(preds)
	filters := []value.Value{value.ObjectValue(nil)}
	for i, p := range preds {
		others := append(append([]pred(nil), preds[:i]...), preds[i+1:]...)
		filters = append(filters, p.value(), predsValue(preds[:i+1]), predsValue(others))
	}
	var paths []string
	seen := map[string]bool{}
	for _, p := range preds {
		if p.path != "" && !seen[p.path] {
			seen[p.path] = true
			paths = append(paths, p.path)
			filters = append(filters, value.ObjectValue([]value.Field{{Key: p.path, Value: value.MustParse(`{"$exists":true}`)}}))
		}
	}
	counts, err := sc.src.Count(ctx, filters, limit)
	if err != nil {
		return nil, err
	}
	pc := &predCounts{examined: counts[0], all: counts[0], alone: make([]int64, n), prefix: make([]int64, n), without: make([]int64, n), fields: map[string]int64{}}
	for i := range preds {
		pc.alone[i], pc.prefix[i], pc.without[i] = counts[1+3*i], counts[2+3*i], counts[3+3*i]
	}
	if n > 0 {
		pc.all = pc.prefix[n-1]
	}
	for j, path := range paths {
		pc.fields[path] = counts[1+3*n+j]
	}
	return pc, nil
}
