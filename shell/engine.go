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
// omgdb's compiler first, so errors read as on a file. Everything that
// needs a store file (writes, explain, stats) is refused by open.

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
		WithHint("over MongoDB the shell runs find, findOne, countDocuments, count, estimatedDocumentCount, distinct, aggregate, getIndexes and show collections (see omgdb docs mongodb)")
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

// noCollationOverMongo refuses a collation given to a read over MongoDB,
// which does not pass it to the server yet.
func (s *Shell) noCollationOverMongo(collDoc value.Value) {
	if !collDoc.IsMissing() {
		s.throw(errs.Errorf(errs.Usage, "a collation does not work over MongoDB yet").
			WithHint("leave the collation out, or run the shell on a store file"))
	}
}
