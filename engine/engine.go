package engine

import (
	"context"

	"github.com/omgdb/omgdb/query/value"
)

// Reader is the read half of an engine. Documents are passed to each one
// by one; an error from each stops the read and is returned. A Reader is
// not safe for concurrent use unless its engine says so.
type Reader interface {
	// Collections returns the names of the collections, sorted.
	Collections(ctx context.Context) ([]string, error)
	// Find calls each with the documents q selects, in q's order.
	Find(ctx context.Context, coll string, q *Find, each func(value.Value) error) error
	// Count returns how many documents match filter (Missing: all).
	Count(ctx context.Context, coll string, filter value.Value) (int64, error)
	// Distinct returns the distinct values of a dotted field among the
	// documents that match filter, in MongoDB's sort order.
	Distinct(ctx context.Context, coll, field string, filter value.Value) ([]value.Value, error)
	// Aggregate runs a pipeline (an array of stages) over coll and calls
	// each with the documents it returns.
	Aggregate(ctx context.Context, coll string, pipeline value.Value, each func(value.Value) error) error
	// Indexes describes coll's indexes: the _id index first, then the
	// others by name.
	Indexes(ctx context.Context, coll string) ([]Index, error)
	// Close releases the engine's resources. It is idempotent.
	Close() error
}

// Find is a find's specification: each part as the user wrote it, or
// Missing when not given.
type Find struct {
	Filter     value.Value // Missing or {}: every document
	Projection value.Value // Missing or {}: whole documents
	Sort       value.Value // Missing or {}: _id order
	Skip       int64       // documents to skip; never negative
	Limit      int64       // at most this many documents; 0: no limit
}

// Index describes a secondary or _id index.
type Index struct {
	Name   string      // "_id_", "age_1", …
	Key    value.Value // the key pattern, {"age":-1,"name":1}, in field order
	Unique bool
	Sparse bool
}

// IDIndex is the index every collection has on _id.
var IDIndex = Index{Name: "_id_", Key: value.ObjectValue([]value.Field{{Key: "_id", Value: value.IntValue(1)}}), Unique: true}

// NormalizeKey returns a key pattern with each numeric direction as an
// int32 1 or -1, whatever numeric type the engine stored it as; other
// values (such as "text") are kept.
func NormalizeKey(key value.Value) value.Value {
	if !key.IsObject() {
		return key
	}
	fields := make([]value.Field, 0, key.Len())
	for _, f := range key.Fields() {
		if f.Value.IsNumber() {
			dir := int32(1)
			if f.Value.Float() < 0 {
				dir = -1
			}
			f.Value = value.IntValue(dir)
		}
		fields = append(fields, f)
	}
	return value.ObjectValue(fields)
}
