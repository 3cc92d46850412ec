package shell

import (
	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/internal/pretty"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// collMethods are a collection's methods, for help and completion.
var collMethods = []string{
	"find", "findOne", "countDocuments", "count", "estimatedDocumentCount", "distinct", "aggregate",
	"insertOne", "insertMany", "updateOne", "updateMany", "replaceOne", "deleteOne", "deleteMany",
	"findOneAndUpdate", "findOneAndReplace", "findOneAndDelete",
	"createIndex", "createIndexes", "getIndexes", "dropIndex", "dropIndexes", "drop", "renameCollection", "explain", "getName", "help",
}

// cursorMethods are a cursor's methods, for help and completion.
var cursorMethods = []string{"sort", "limit", "skip", "projection", "collation", "toArray", "count", "explain", "forEach", "map", "hasNext", "next", "tryNext", "itcount", "size", "close", "help"}

type method = func(goja.FunctionCall) goja.Value

// newCollection returns the JavaScript object of db.<name>.
func (s *Shell) newCollection(name string) goja.Value {
	obj := s.rt.NewObject()
	set := func(m string, fn method) { _ = obj.Set(m, fn) }
	for m, fn := range s.readMethods(name) {
		set(m, fn)
	}
	for m, fn := range s.writeMethods(name) {
		set(m, fn)
	}
	set("getName", func(goja.FunctionCall) goja.Value { return s.rt.ToValue(name) })
	set("toString", func(goja.FunctionCall) goja.Value { return s.rt.ToValue(name) })
	set("help", func(goja.FunctionCall) goja.Value { s.printf("%s", helpCollection); return goja.Undefined() })
	set("explain", func(call goja.FunctionCall) goja.Value { return s.explainable(name, call.Argument(0)) })
	return obj
}

func (s *Shell) readMethods(name string) map[string]method {
	return map[string]method{
		"find": func(call goja.FunctionCall) goja.Value {
			return s.newCursor(&cursor{s: s, coll: name, filter: s.docArg(call, 0, "filter"), proj: s.optDoc(call, 1, "projection")})
		},
		"findOne": func(call goja.FunctionCall) goja.Value {
			filter, proj := s.docArg(call, 0, "filter"), s.optDoc(call, 1, "projection")
			collDoc := s.optCollation(call, 2)
			var docs []value.Value
			if s.opts.Engine != nil {
				defer s.collateEngine(collDoc)()
				docs = s.engineFind(name, filter, proj, value.Value{}, 0, 1)
			} else {
				q := s.compileQuery(filter, proj, value.Value{})
				q.Limit = 1
				docs = s.findDocsColl(name, q, filter, value.Value{}, collDoc)
			}
			if len(docs) == 0 {
				return goja.Null()
			}
			return s.toJS(docs[0])
		},
		"countDocuments": func(call goja.FunctionCall) goja.Value {
			return s.rt.ToValue(s.countDocs(name, s.docArg(call, 0, "filter"), s.optCollation(call, 1)))
		},
		"count": func(call goja.FunctionCall) goja.Value {
			return s.rt.ToValue(s.countDocs(name, s.docArg(call, 0, "filter"), s.optCollation(call, 1)))
		},
		"estimatedDocumentCount": func(goja.FunctionCall) goja.Value {
			if s.opts.Engine != nil {
				return s.rt.ToValue(s.engineCount(name, value.Value{}))
			}
			var n int64
			s.collection(name, func(c *store.Collection) error { n = c.Count(); return nil })
			return s.rt.ToValue(n)
		},
		"distinct": func(call goja.FunctionCall) goja.Value {
			field := call.Argument(0)
			if _, ok := field.Export().(string); !ok || field.String() == "" {
				s.throw(errs.Errorf(errs.Usage, "distinct needs a field name").WithHint("db.users.distinct('city', {age: {$gt: 30}})"))
			}
			return s.docsToJS(s.distinct(name, field.String(), s.docArg(call, 1, "filter"), s.optCollation(call, 2)))
		},
		"aggregate": func(call goja.FunctionCall) goja.Value {
			stages := s.arg(call, 0)
			if stages.Kind() != value.Array {
				s.throw(errs.Errorf(errs.Invalid, "aggregate takes an array of stages, got %s", stages.TypeName()).
					WithHint("db.users.aggregate([{$match: {age: {$gt: 30}}}, {$group: {_id: '$city', n: {$count: {}}}}])"))
			}
			if s.writesTo(stages) {
				s.aggregateWrite(name, stages)
				return s.newCursor(&cursor{s: s, coll: name, started: true, exhausted: true})
			}
			return s.newCursor(&cursor{s: s, coll: name, pipeline: stages, collation: s.optCollation(call, 1)})
		},
		"getIndexes": func(goja.FunctionCall) goja.Value { return s.docsToJS(s.indexes(name)) },
	}
}

// optDoc is docArg for an optional argument: missing when not given.
func (s *Shell) optDoc(call goja.FunctionCall, i int, what string) value.Value {
	if goja.IsUndefined(call.Argument(i)) || goja.IsNull(call.Argument(i)) {
		return value.Value{}
	}
	return s.docArg(call, i, what)
}

func (s *Shell) countDocs(coll string, filter, collDoc value.Value) int64 {
	if s.opts.Engine != nil {
		defer s.collateEngine(collDoc)()
		return s.engineCount(coll, filter)
	}
	var f *query.Filter
	if filter.Len() > 0 {
		var err error
		f, err = query.CompileFilter(filter)
		s.must(err)
	}
	var n int64
	s.collection(coll, func(c *store.Collection) error {
		var err error
		if cl := s.readCollation(c, collDoc); cl != nil && filter.Len() > 0 {
			f, err = query.CompileFilterCollation(filter, cl)
			s.must(err)
		}
		n, err = c.CountMatching(s.ctx, f)
		return err
	})
	return n
}

// distinct returns the distinct values of field among the documents that
// match filter, with the store's Distinct (MongoDB's distinct: array
// elements one by one, in MongoDB's sort order).
func (s *Shell) distinct(coll, field string, filter, collDoc value.Value) []value.Value {
	if s.opts.Engine != nil {
		defer s.collateEngine(collDoc)()
		vals, err := s.opts.Engine.Distinct(s.rctx(), coll, field, filter)
		s.must(err)
		return vals
	}
	q := s.compileQuery(filter, value.Value{}, value.Value{})
	var out []value.Value
	s.collection(coll, func(c *store.Collection) error {
		var err error
		out, err = c.Distinct(s.ctx, field, s.collateQuery(q, filter, value.Value{}, s.readCollation(c, collDoc)), 0)
		for i := range out {
			out[i] = value.Clone(out[i]) // valid past the transaction
		}
		return err
	})
	return out
}

// indexes lists the indexes as mongosh's getIndexes: {v, key, name}.
func (s *Shell) indexes(coll string) []value.Value {
	if s.opts.Engine != nil {
		return s.engineIndexes(coll)
	}
	var out []value.Value
	s.collection(coll, func(c *store.Collection) error {
		infos, err := c.IndexInfos()
		if err != nil {
			return err
		}
		out = append(out, value.MustParse(`{"v":2,"key":{"_id":1},"name":"_id_"}`))
		for _, in := range infos {
			out = append(out, indexDoc(in))
		}
		return nil
	})
	return out
}

func indexDoc(in store.IndexInfo) value.Value {
	fields := []value.Field{{Key: "v", Value: value.LongValue(2)}}
	if len(in.Key) > 0 {
		if key, err := value.Parse(in.Key); err == nil {
			fields = append(fields, value.Field{Key: "key", Value: key})
		}
	}
	fields = append(fields, value.Field{Key: "name", Value: value.StringValue(in.Name)})
	if in.Kind != "btree" {
		fields = append(fields, value.Field{Key: "kind", Value: value.StringValue(in.Kind)})
	}
	if in.Unique {
		fields = append(fields, value.Field{Key: "unique", Value: value.BoolValue(true)})
	}
	if in.Sparse {
		fields = append(fields, value.Field{Key: "sparse", Value: value.BoolValue(true)})
	}
	if in.Kind == store.TextKind { // weights, default_language, language_override, as mongosh shows them
		if spec, err := value.Parse(in.Spec); err == nil {
			fields = append(fields, spec.Fields()...)
		}
	}
	return value.ObjectValue(fields)
}

// explainable is db.coll.explain(): an object whose find, count and
// aggregate explain instead of running.
func (s *Shell) explainable(coll string, verbosity goja.Value) goja.Value {
	obj := s.rt.NewObject()
	_ = obj.Set("find", func(call goja.FunctionCall) goja.Value {
		c := &cursor{s: s, coll: coll, filter: s.docArg(call, 0, "filter"), proj: s.optDoc(call, 1, "projection")}
		return s.explain(c, verbosity)
	})
	return obj
}

func (s *Shell) inspectValue(v value.Value) string {
	if v.IsMissing() {
		return "nothing"
	}
	return pretty.Format(v, nil)
}
