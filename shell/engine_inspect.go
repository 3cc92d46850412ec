package shell

import (
	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/value"
)

// Over an engine that is an engine.Inspector (a MongoDB deployment),
// explain() gives the server's plan in the file's shape
// (engine.ServerPlan), db.stats() the server's figures in the file's
// fields, and field-name completion reads the first schemaSample
// documents in _id order.

// inspector is the engine's Inspector, or the refusal when it has none.
func (s *Shell) inspector() engine.Inspector {
	in, ok := s.opts.Engine.(engine.Inspector)
	if !ok {
		s.throw(s.notOnEngine())
	}
	return in
}

// engineExplain is explain of a find cursor over the engine.
func (s *Shell) engineExplain(c *cursor, exec bool) goja.Value {
	q := &engine.ExplainQuery{Find: engine.Find{Filter: c.filter, Projection: c.proj, Sort: c.sort, Skip: c.skip, Limit: c.limit}, Execute: exec,
		Collation: c.collation}
	raw, err := s.inspector().Explain(s.rctx(), c.coll, q)
	s.must(err)
	return s.toJS(engine.ServerPlan(c.coll, q, raw))
}

// engineDBStats is db.stats() over the engine: the file's fields that
// the server has, objects summed from each visible collection's
// collStats count; a deployment has no fileSize.
func (s *Shell) engineDBStats() goja.Value {
	in := s.inspector()
	names, err := s.opts.Engine.Collections(s.rctx())
	s.must(err)
	var docs int64
	for _, n := range names {
		st, err := in.CollStats(s.rctx(), n)
		s.must(err)
		docs += engine.CollStatsOf(n, st).Documents
	}
	return s.toJS(value.ObjectValue([]value.Field{
		{Key: "db", Value: value.StringValue(s.opts.Store)},
		{Key: "collections", Value: value.LongValue(int64(len(names)))},
		{Key: "objects", Value: value.LongValue(docs)},
	}))
}

// engineFieldNames lists the dotted field paths of the first
// schemaSample documents of coll.
func (s *Shell) engineFieldNames(coll string) []string {
	schema, _, err := engine.Schema(s.rctx(), s.opts.Engine, coll, 0, schemaSample, 3)
	if err != nil {
		return nil
	}
	names := make([]string, len(schema.Fields))
	for i, f := range schema.Fields {
		names[i] = f.Path
	}
	return names
}
