package engine

import (
	"context"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// DefaultDiagnoseBound is the most documents a diagnosis through a
// Reader counts among when the caller sets no limit: the first ones in
// _id order.
const DefaultDiagnoseBound = 100000

// Diagnose is the why-not debugger (store.Diagnose) over any Reader:
// every count is asked of r (through Redacting, the redacted view, so no
// count or hint can tell a redacted value), among the first limit
// documents of coll in _id order (DefaultDiagnoseBound when limit <= 0).
// Each count is a pipeline {$sort: {_id: 1}}, {$limit}, {$match},
// {$count} that the engine runs; the same filter is counted once.
func Diagnose(ctx context.Context, r Reader, coll string, f *query.Filter, limit int64) (*store.Diagnosis, error) {
	if limit <= 0 {
		limit = DefaultDiagnoseBound
	}
	return store.DiagnoseSourced(ctx, coll, &readerSource{r: r, coll: coll}, f, &store.DiagnoseOptions{Limit: limit})
}

type readerSource struct {
	r    Reader
	coll string
	memo map[string]int64 // counts by the filter's JSON and the limit
}

func (s *readerSource) Documents(ctx context.Context) (int64, error) {
	return s.r.Count(ctx, s.coll, value.MissingValue)
}

func (s *readerSource) Count(ctx context.Context, filters []value.Value, limit int64) ([]int64, error) {
	if s.memo == nil {
		s.memo = map[string]int64{}
	}
	out := make([]int64, len(filters))
	for i, f := range filters {
		key := string(value.AppendEJSON(value.AppendEJSON(nil, f, value.EJSONCanonical), value.LongValue(limit), value.EJSONCanonical))
		n, ok := s.memo[key]
		if !ok {
			var err error
			if n, err = s.count(ctx, f, limit); err != nil {
				return nil, err
			}
			s.memo[key] = n
		}
		out[i] = n
	}
	return out, nil
}

// count counts filter's matches among the first limit documents.
func (s *readerSource) count(ctx context.Context, filter value.Value, limit int64) (int64, error) {
	pipeline := value.ArrayValue([]value.Value{
		stage("$sort", value.ObjectValue([]value.Field{{Key: "_id", Value: value.IntValue(1)}})),
		stage("$limit", value.LongValue(limit)),
		matchStage(filter),
		stage("$count", value.StringValue("n")),
	})
	var n int64
	err := s.r.Aggregate(ctx, s.coll, pipeline, func(doc value.Value) error {
		n = doc.Get("n").Long()
		return nil
	})
	return n, err
}

func (s *readerSource) Sample(ctx context.Context, n int) (agg.Source, error) {
	q := &Find{Limit: int64(n)}
	return Stream(ctx, func(ctx context.Context, each func(value.Value) error) error {
		return s.r.Find(ctx, s.coll, q, each)
	}), nil
}
