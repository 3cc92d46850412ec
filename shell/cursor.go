package shell

import (
	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// cursor is a find or an aggregate. A find cursor reads in batches, each
// in a read transaction of its own, from where the last batch stopped
// (skip + what it returned): the shell holds no lock between statements.
// An aggregate cursor runs its pipeline once and keeps the result.
type cursor struct {
	s                  *Shell
	coll               string
	filter, proj, sort value.Value
	skip, limit        int64
	pipeline           value.Value // an aggregate's stages, else missing
	collation          value.Value // .collation() or {collation}; missing: the collection's default
	read               int64       // documents returned so far
	buf                []value.Value
	exhausted          bool
	started            bool
}

// cursorOf returns the cursor behind a JavaScript object, or nil.
func (s *Shell) cursorOf(obj *goja.Object) *cursor {
	if obj == nil {
		return nil
	}
	v := obj.GetSymbol(s.cursorKey)
	if v == nil {
		return nil
	}
	c, _ := v.Export().(*cursor)
	return c
}

// fill buffers up to n more documents.
func (c *cursor) fill(n int64) {
	if c.exhausted || int64(len(c.buf)) >= n {
		return
	}
	c.started = true
	if !c.pipeline.IsMissing() {
		c.buf = append(c.buf, c.s.runAggregate(c.coll, c.pipeline, c.collation)...)
		c.exhausted = true
		return
	}
	want := n - int64(len(c.buf))
	if c.limit > 0 {
		want = min(want, c.limit-c.read-int64(len(c.buf)))
	}
	if want <= 0 {
		c.exhausted = true
		return
	}
	var got []value.Value
	if skip := c.skip + c.read + int64(len(c.buf)); c.s.opts.Engine != nil {
		defer c.s.collateEngine(c.collation)()
		got = c.s.engineFind(c.coll, c.filter, c.proj, c.sort, skip, want)
	} else {
		q := c.s.compileQuery(c.filter, c.proj, c.sort)
		q.Skip, q.Limit = skip, want
		got = c.s.findDocsColl(c.coll, q, c.filter, c.sort, c.collation)
	}
	c.buf = append(c.buf, got...)
	if int64(len(got)) < want || (c.limit > 0 && c.read+int64(len(c.buf)) >= c.limit) {
		c.exhausted = true
	}
}

func (c *cursor) hasNext() bool {
	c.fill(1)
	return len(c.buf) > 0
}

func (c *cursor) next() (value.Value, bool) {
	c.fill(100)
	if len(c.buf) == 0 {
		return value.Value{}, false
	}
	d := c.buf[0]
	c.buf = c.buf[1:]
	c.read++
	return d, true
}

// batch returns up to n documents.
func (c *cursor) batch(n int) []value.Value {
	c.fill(int64(n))
	k := min(n, len(c.buf))
	out := c.buf[:k:k]
	c.buf = c.buf[k:]
	c.read += int64(k)
	return out
}

// rest returns every document left.
func (c *cursor) rest() []value.Value {
	var out []value.Value
	for {
		b := c.batch(1000)
		out = append(out, b...)
		if len(b) == 0 {
			return out
		}
	}
}

// compileQuery compiles a find's parts, throwing on a bad one.
func (s *Shell) compileQuery(filter, proj, sort value.Value) store.Query {
	var q store.Query
	var err error
	if filter.Len() > 0 {
		q.Filter, err = query.CompileFilter(filter)
		s.must(err)
	}
	if proj.Len() > 0 {
		q.Projection, err = query.CompileProjection(proj)
		s.must(err)
	}
	if sort.Len() > 0 {
		q.Sort, err = query.CompileSort(sort)
		s.must(err)
	}
	return q
}

// findDocs runs a find in one read transaction.
func (s *Shell) findDocs(coll string, q store.Query) []value.Value {
	var out []value.Value
	s.collection(coll, func(c *store.Collection) error {
		var err error
		out, err = drain(c.Find(s.ctx, q))
		return err
	})
	return out
}

func (s *Shell) runAggregate(coll string, stages, collDoc value.Value) []value.Value {
	if s.opts.Engine != nil {
		defer s.collateEngine(collDoc)()
		return s.engineAggregate(coll, stages)
	}
	_, err := agg.CompilePipeline(stages, nil) // errors before the store opens
	s.must(err)
	var out []value.Value
	s.collection(coll, func(c *store.Collection) error {
		var err error
		out, err = drain(c.Aggregate(s.ctx, s.compilePipelineIn(c, stages, collDoc), nil))
		return err
	})
	return out
}

// drain reads a stream to the end, copying each document out of the
// transaction.
func drain(src agg.Source) ([]value.Value, error) {
	defer src.Close()
	var out []value.Value
	for src.Next() {
		out = append(out, value.Clone(src.Doc()))
	}
	return out, src.Err()
}

// newCursor returns the JavaScript object of a cursor.
func (s *Shell) newCursor(c *cursor) *goja.Object {
	obj := s.rt.NewObject()
	_ = obj.SetSymbol(s.cursorKey, s.rt.ToValue(c))
	chain := func(name string, fn func(goja.FunctionCall)) {
		_ = obj.Set(name, func(call goja.FunctionCall) goja.Value {
			if c.started {
				s.throw(errs.Errorf(errs.Usage, "cursor.%s() after the cursor has started", name).
					WithHint("set sort, limit and skip before reading documents"))
			}
			fn(call)
			return obj
		})
	}
	chain("sort", func(call goja.FunctionCall) { c.sort = s.docArg(call, 0, "sort") })
	chain("limit", func(call goja.FunctionCall) { c.limit = s.count(call, "limit") })
	chain("skip", func(call goja.FunctionCall) { c.skip = s.count(call, "skip") })
	chain("projection", func(call goja.FunctionCall) { c.proj = s.docArg(call, 0, "projection") })
	chain("collation", func(call goja.FunctionCall) { c.collation = s.collationDoc(s.docArg(call, 0, "collation")) })
	chain("batchSize", func(goja.FunctionCall) {})
	chain("pretty", func(goja.FunctionCall) {})
	s.cursorReads(obj, c)
	return obj
}

// count reads a non-negative integer argument.
func (s *Shell) count(call goja.FunctionCall, what string) int64 {
	v := s.arg(call, 0)
	if !v.IsNumber() || v.Float() < 0 || v.Float() != float64(int64(v.Float())) {
		s.throw(errs.Errorf(errs.Invalid, "%s takes a whole number of documents, got %s", what, s.inspectValue(v)).
			WithHint("e.g. .%s(10)", what))
	}
	if v.Kind() == value.Long {
		return v.Long()
	}
	return int64(v.Float())
}

func (s *Shell) cursorReads(obj *goja.Object, c *cursor) {
	set := func(name string, fn func(goja.FunctionCall) goja.Value) { _ = obj.Set(name, fn) }
	set("toArray", func(goja.FunctionCall) goja.Value { return s.docsToJS(c.rest()) })
	set("hasNext", func(goja.FunctionCall) goja.Value { return s.rt.ToValue(c.hasNext()) })
	set("next", func(goja.FunctionCall) goja.Value {
		d, ok := c.next()
		if !ok {
			s.throw(errs.Errorf(errs.NotFound, "cursor.next(): no more documents").WithHint("check cursor.hasNext() first"))
		}
		return s.toJS(d)
	})
	set("tryNext", func(goja.FunctionCall) goja.Value {
		if d, ok := c.next(); ok {
			return s.toJS(d)
		}
		return goja.Null()
	})
	set("forEach", func(call goja.FunctionCall) goja.Value {
		fn := s.callback(call, "forEach")
		for d, ok := c.next(); ok; d, ok = c.next() {
			if r, err := fn(goja.Undefined(), s.toJS(d)); err != nil {
				panic(err)
			} else if r.SameAs(s.rt.ToValue(false)) {
				break
			}
		}
		return goja.Undefined()
	})
	set("map", func(call goja.FunctionCall) goja.Value {
		fn := s.callback(call, "map")
		var out []any
		for d, ok := c.next(); ok; d, ok = c.next() {
			r, err := fn(goja.Undefined(), s.toJS(d))
			if err != nil {
				panic(err)
			}
			out = append(out, r)
		}
		return s.rt.NewArray(out...)
	})
	set("count", func(goja.FunctionCall) goja.Value { return s.rt.ToValue(s.countDocs(c.coll, c.filter, c.collation)) })
	set("itcount", func(goja.FunctionCall) goja.Value { return s.rt.ToValue(len(c.rest())) })
	set("size", func(goja.FunctionCall) goja.Value { return s.rt.ToValue(len(c.rest())) })
	set("isExhausted", func(goja.FunctionCall) goja.Value { return s.rt.ToValue(c.exhausted && len(c.buf) == 0) })
	set("close", func(goja.FunctionCall) goja.Value { c.buf, c.exhausted = nil, true; return goja.Undefined() })
	set("explain", func(call goja.FunctionCall) goja.Value { return s.explain(c, call.Argument(0)) })
	set("help", func(goja.FunctionCall) goja.Value { s.printf("%s", helpCursor); return goja.Undefined() })
}

func (s *Shell) callback(call goja.FunctionCall, name string) goja.Callable {
	fn, ok := goja.AssertFunction(call.Argument(0))
	if !ok {
		s.throw(errs.Errorf(errs.Usage, "cursor.%s needs a function", name).WithHint("e.g. .%s(doc => print(doc.name))", name))
	}
	return fn
}

func (s *Shell) docsToJS(docs []value.Value) goja.Value {
	out := make([]any, len(docs))
	for i, d := range docs {
		out[i] = s.toJS(d)
	}
	return s.rt.NewArray(out...)
}

// explain returns the plan of a find cursor; "executionStats" (or true)
// runs it too.
func (s *Shell) explain(c *cursor, verbosity goja.Value) goja.Value {
	if !c.pipeline.IsMissing() {
		s.throw(errs.Errorf(errs.Usage, "explain of an aggregate is not offered").
			WithHint("explain its $match as a find: db.coll.find(filter).explain()"))
	}
	exec := verbosity.ToBoolean() && verbosity.String() != "queryPlanner"
	if s.opts.Engine != nil {
		return s.engineExplain(c, exec)
	}
	q := s.compileQuery(c.filter, c.proj, c.sort)
	q.Skip, q.Limit = c.skip, c.limit
	var out value.Value
	s.collection(c.coll, func(col *store.Collection) error {
		var err error
		q := s.collateQuery(q, c.filter, c.sort, s.readCollation(col, c.collation))
		out, err = col.Explain(s.ctx, q, &store.ExplainOptions{Execute: exec})
		return err
	})
	return s.toJS(out)
}
