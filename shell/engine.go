package shell

import (
	"context"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Over an engine (Options.Engine, a MongoDB deployment) the shell's reads
// go to the engine: find and findOne, countDocuments and count,
// estimatedDocumentCount, distinct, aggregate, getIndexes and the
// collection names (show collections, db.getCollectionNames, completion).
// The engine checks every filter, projection, sort and pipeline with
// omgdb's compiler first, so errors read as on a file. With
// Options.Writer, insertOne, insertMany, updateOne, updateMany,
// replaceOne, deleteOne, deleteMany, findOneAndUpdate, findOneAndReplace
// and findOneAndDelete write through it, each one journaled change, and,
// when it is also a SchemaWriter (engine_schema.go), drop,
// renameCollection, createIndex and dropIndex. explain, db.stats() and
// field-name completion are in engine_inspect.go. Everything else that
// needs a store file is refused by open.

// Writer writes a collection of an engine, each call one journaled change
// (its id is returned; "" when nothing was written). An error is returned
// as the shell prints it.
type Writer interface {
	// Insert inserts docs, all or none, and returns their _ids.
	Insert(ctx context.Context, coll string, docs []value.Value) (ids []value.Value, change string, err error)
	// Update updates (or replaces, with u.Replace) the documents filter
	// matches (the first in _id order with u.One).
	Update(ctx context.Context, coll string, filter, update value.Value, u *WriteSpec) (*WriteResult, error)
	// Delete deletes the documents filter matches (the first with one).
	Delete(ctx context.Context, coll string, filter value.Value, one bool) (*WriteResult, error)
}

// AggregateWriter is a Writer that also writes what an aggregate ending
// in $out or $merge writes: it plans the pipeline's writes and applies
// them at once, one journaled change whose id it returns ("" when
// nothing was written).
type AggregateWriter interface {
	AggregateWrite(ctx context.Context, coll string, pipeline value.Value) (change string, err error)
}

// WriteSpec is the options of a Writer's Update.
type WriteSpec struct {
	One, Replace, Upsert bool
	ArrayFilters         []value.Value
}

// WriteResult is what a Writer's Update or Delete did.
type WriteResult struct {
	Matched, Modified, Upserted, Deleted int64
	UpsertedID                           value.Value // missing when none
	ChangeID                             string
	// Before and After are the images of the first document written
	// (Before missing for an insert, After for a deletion; both missing
	// when nothing was written): what findOneAnd* return.
	Before, After value.Value
}

// writer is the engine's writer, or the refusal when there is none.
func (s *Shell) writer() Writer {
	if s.opts.Writer == nil {
		s.throw(s.notOnEngine())
	}
	return s.opts.Writer
}

// rctx is the context of an engine read: the running statement's, or
// the background outside one (completion).
func (s *Shell) rctx() context.Context {
	if s.ctx == nil {
		return context.Background()
	}
	return s.ctx
}

// notOnEngine is the refusal of what needs a store file.
func (s *Shell) notOnEngine() error {
	return errs.Errorf(errs.Usage, "this does not run over MongoDB yet: it needs a store file").
		WithHint("over MongoDB the shell runs find, findOne, countDocuments, count, estimatedDocumentCount, distinct, aggregate, getIndexes, explain, db.stats(), show collections, insertOne, insertMany, updateOne, updateMany, replaceOne, deleteOne, deleteMany, findOneAndUpdate, findOneAndReplace, findOneAndDelete, bulkWrite, db.createCollection, drop, renameCollection, createIndex, createIndexes, dropIndex and dropIndexes (see omgdb docs mongodb)")
}

// engineFind runs a find on the engine and returns its documents.
func (s *Shell) engineFind(coll string, filter, proj, sort value.Value, skip, limit int64) []value.Value {
	var out []value.Value
	q := &engine.Find{Filter: filter, Projection: proj, Sort: sort, Skip: skip, Limit: limit}
	s.must(s.opts.Engine.Find(s.rctx(), coll, q, func(doc value.Value) error {
		out = append(out, doc)
		return nil
	}))
	return out
}

func (s *Shell) engineCount(coll string, filter value.Value) int64 {
	n, err := s.opts.Engine.Count(s.rctx(), coll, filter)
	s.must(err)
	return n
}

func (s *Shell) engineAggregate(coll string, stages value.Value) []value.Value {
	var out []value.Value
	s.must(s.opts.Engine.Aggregate(s.rctx(), coll, stages, func(doc value.Value) error {
		out = append(out, doc)
		return nil
	}))
	return out
}

// engineIndexes lists the indexes as getIndexes does: {v, key, name},
// then unique and sparse when set.
func (s *Shell) engineIndexes(coll string) []value.Value {
	ixs, err := s.opts.Engine.Indexes(s.rctx(), coll)
	s.must(err)
	out := make([]value.Value, len(ixs))
	for i, ix := range ixs {
		fields := []value.Field{{Key: "v", Value: value.LongValue(2)}, {Key: "key", Value: longKey(ix.Key)}, {Key: "name", Value: value.StringValue(ix.Name)}}
		if ix.Unique && ix.Name != "_id_" {
			fields = append(fields, value.Field{Key: "unique", Value: value.BoolValue(true)})
		}
		if ix.Sparse {
			fields = append(fields, value.Field{Key: "sparse", Value: value.BoolValue(true)})
		}
		out[i] = value.ObjectValue(fields)
	}
	return out
}

// longKey gives a key pattern's int directions as longs, as a store
// file's getIndexes reads them from its JSON.
func longKey(key value.Value) value.Value {
	fields := make([]value.Field, 0, key.Len())
	for _, f := range key.Fields() {
		if f.Value.Kind() == value.Int {
			f.Value = value.LongValue(f.Value.Long())
		}
		fields = append(fields, f)
	}
	return value.ObjectValue(fields)
}

// collateEngine points the shell's engine at a view of it that reads with
// the collation collDoc (missing: none), checked by omgdb's collation
// parser before anything is sent, for the read that calls it; the
// function it returns restores the engine (the shell runs one statement
// at a time).
func (s *Shell) collateEngine(collDoc value.Value) (restore func()) {
	r, err := engine.Collated(s.opts.Engine, collDoc)
	s.must(err)
	prev := s.opts.Engine
	s.opts.Engine = r
	return func() { s.opts.Engine = prev }
}

// engineInsert is insert over the engine.
func (s *Shell) engineInsert(coll string, docs []value.Value) ([]value.Value, string) {
	for _, d := range docs {
		if d.Kind() != value.Object {
			s.throw(errs.Errorf(errs.Invalid, "insert: a document must be an object, got %s", d.TypeName()).
				WithHint("write each document as {field: value}"))
		}
	}
	ids, change, err := s.writer().Insert(s.rctx(), coll, docs)
	s.must(err)
	return ids, change
}

// engineFirstBySort is firstBySort over the engine.
func (s *Shell) engineFirstBySort(coll string, filter, sort value.Value) value.Value {
	docs := s.engineFind(coll, filter, value.MustParse(`{"_id":1}`), sort, 0, 1)
	if len(docs) == 0 {
		return filter
	}
	return value.ObjectValue([]value.Field{field("_id", docs[0].Get("_id"))})
}
