package engine

import (
	"context"
	"strings"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Redacting returns r as seen through redactions: paths(coll) gives the
// dotted paths removed from every document of coll (none: r's own read).
// On a collection with redactions every read runs as a pipeline whose
// first stage is {$unset: paths}, before the filter, sort, projection or
// the caller's stages, so no query can test a redacted value, whatever
// engine evaluates it; and a pipeline that joins a collection with
// redactions ($lookup, $graphLookup, $unionWith, at any depth) is
// refused, since the joined documents would arrive unredacted.
func Redacting(r Reader, paths func(coll string) []string) Reader {
	return &redacting{Reader: r, paths: paths}
}

type redacting struct {
	Reader
	paths func(coll string) []string
}

// unset is the first stage of every read of coll, or nil when coll has
// no redactions.
func (rd *redacting) unset(coll string) []value.Value {
	paths := rd.paths(coll)
	if len(paths) == 0 {
		return nil
	}
	names := make([]value.Value, len(paths))
	for i, p := range paths {
		names[i] = value.StringValue(p)
	}
	return []value.Value{stage("$unset", value.ArrayValue(names))}
}

func stage(op string, spec value.Value) value.Value {
	return value.ObjectValue([]value.Field{{Key: op, Value: spec}})
}

// Find runs q after the redaction: $unset, $match, $sort (then _id),
// $skip, $limit, $project.
func (rd *redacting) Find(ctx context.Context, coll string, q *Find, each func(value.Value) error) error {
	stages := rd.unset(coll)
	if stages == nil {
		return rd.Reader.Find(ctx, coll, q, each)
	}
	if _, err := Check(q); err != nil {
		return err
	}
	return rd.Reader.Aggregate(ctx, coll, value.ArrayValue(findStages(stages, q)), each)
}

// findStages appends q's stages to the redaction's: $match, $sort (then
// _id), $skip, $limit, $project.
func findStages(stages []value.Value, q *Find) []value.Value {
	stages = append(stages, matchStage(q.Filter), stage("$sort", sortByID(q.Sort)))
	if q.Skip > 0 {
		stages = append(stages, stage("$skip", value.LongValue(q.Skip)))
	}
	if q.Limit > 0 {
		stages = append(stages, stage("$limit", value.LongValue(q.Limit)))
	}
	if !empty(q.Projection) {
		stages = append(stages, stage("$project", q.Projection))
	}
	return stages
}

// matchStage is a $match of filter ({} when it is left out).
func matchStage(filter value.Value) value.Value {
	if filter.IsMissing() {
		filter = value.ObjectValue(nil)
	}
	return stage("$match", filter)
}

// sortByID is a sort followed by _id, as every engine sorts a find.
func sortByID(sort value.Value) value.Value {
	var fields []value.Field
	if !sort.IsMissing() {
		fields = append(fields, sort.Fields()...)
	}
	if sort.IsMissing() || sort.Get("_id").IsMissing() {
		fields = append(fields, value.Field{Key: "_id", Value: value.IntValue(1)})
	}
	return value.ObjectValue(fields)
}

// Count counts the matches after the redaction.
func (rd *redacting) Count(ctx context.Context, coll string, filter value.Value) (int64, error) {
	stages := rd.unset(coll)
	if stages == nil {
		return rd.Reader.Count(ctx, coll, filter)
	}
	if _, err := CheckFilter(filter); err != nil {
		return 0, err
	}
	stages = append(stages, matchStage(filter), stage("$count", value.StringValue("n")))
	var n int64
	err := rd.Reader.Aggregate(ctx, coll, value.ArrayValue(stages), func(doc value.Value) error {
		n = doc.Get("n").Long()
		return nil
	})
	return n, err
}

// Distinct reads the field's top-level part of each match after the
// redaction and gathers the distinct values as a store file does
// (store.DistinctValues); a field under a redacted path has none.
func (rd *redacting) Distinct(ctx context.Context, coll, field string, filter value.Value) ([]value.Value, error) {
	stages := rd.unset(coll)
	if stages == nil {
		return rd.Reader.Distinct(ctx, coll, field, filter)
	}
	if _, err := CheckFilter(filter); err != nil {
		return nil, err
	}
	if err := CheckField(field); err != nil {
		return nil, err
	}
	top, _, _ := strings.Cut(field, ".")
	keep := []value.Field{{Key: top, Value: value.IntValue(1)}}
	if top != "_id" {
		keep = append(keep, value.Field{Key: "_id", Value: value.IntValue(0)})
	}
	stages = append(stages, matchStage(filter), stage("$project", value.ObjectValue(keep)))
	var docs []value.Value
	err := rd.Reader.Aggregate(ctx, coll, value.ArrayValue(stages), func(doc value.Value) error {
		docs = append(docs, doc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return store.DistinctValues(agg.SliceSource(docs), field, 0)
}

// Aggregate runs the pipeline after the redaction; it refuses joins of
// collections with redactions.
func (rd *redacting) Aggregate(ctx context.Context, coll string, pipeline value.Value, each func(value.Value) error) error {
	if _, err := CheckPipeline(pipeline, &agg.PipelineOptions{}); err != nil {
		return err
	}
	if err := rd.checkJoins(pipeline); err != nil {
		return err
	}
	stages := rd.unset(coll)
	if stages == nil {
		return rd.Reader.Aggregate(ctx, coll, pipeline, each)
	}
	return rd.Reader.Aggregate(ctx, coll, value.ArrayValue(append(stages, pipeline.Array()...)), each)
}
