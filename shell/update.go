package shell

import (
	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// updateSpec is one update call: what to change, and its options.
type updateSpec struct {
	filter, update value.Value
	one, replace   bool
	opts           value.Value // the options argument: upsert, arrayFilters, sort, …
}

func (s *Shell) updateMethods(name string) map[string]method {
	spec := func(call goja.FunctionCall, one, replace bool) updateSpec {
		u := updateSpec{filter: s.docArg(call, 0, "filter"), one: one, replace: replace, opts: s.writeOpts(call, 2)}
		u.update = s.arg(call, 1)
		s.checkUpdate(u)
		return u
	}
	return map[string]method{
		"updateOne":  func(call goja.FunctionCall) goja.Value { return s.updateResult(name, spec(call, true, false)) },
		"updateMany": func(call goja.FunctionCall) goja.Value { return s.updateResult(name, spec(call, false, false)) },
		"replaceOne": func(call goja.FunctionCall) goja.Value { return s.updateResult(name, spec(call, true, true)) },
		"findOneAndUpdate": func(call goja.FunctionCall) goja.Value {
			return s.findAndModify(name, spec(call, true, false))
		},
		"findOneAndReplace": func(call goja.FunctionCall) goja.Value {
			return s.findAndModify(name, spec(call, true, true))
		},
		"findOneAndDelete": func(call goja.FunctionCall) goja.Value {
			return s.findAndDelete(name, s.docArg(call, 0, "filter"), s.writeOpts(call, 1))
		},
	}
}

// checkUpdate refuses a replacement given to an update method and
// operators given to a replace, as mongosh does.
func (s *Shell) checkUpdate(u updateSpec) {
	if u.update.Kind() == value.Array && !u.replace {
		return // a pipeline-style update: changes compiles and checks it
	}
	if u.update.Kind() != value.Object {
		s.throw(errs.Errorf(errs.Invalid, "the update must be an object, got %s", u.update.TypeName()).
			WithHint("e.g. {$set: {status: 'active'}}"))
	}
	ops := u.update.Len() > 0 && len(u.update.Fields()[0].Key) > 0 && u.update.Fields()[0].Key[0] == '$'
	switch {
	case u.replace && ops:
		s.throw(errs.Errorf(errs.Invalid, "a replacement document must not contain update operators (%s)", u.update.Fields()[0].Key).
			WithHint("use updateOne for operators, replaceOne with a whole document"))
	case !u.replace && !ops:
		s.throw(errs.Errorf(errs.Invalid, "the update must contain update operators such as $set").
			WithHint("write {$set: {...}}, or use replaceOne to replace the whole document"))
	}
}

func (u updateSpec) planOptions() *changes.PlanOptions {
	o := &changes.PlanOptions{First: u.one, Actor: "shell", Upsert: u.opts.Get("upsert").Bool()}
	if af := u.opts.Get("arrayFilters"); af.Kind() == value.Array {
		o.ArrayFilters = af.Array()
	}
	return o
}

// plan plans the update and applies it; it returns the plan and the
// change id ("" when nothing changed).
func (s *Shell) plan(coll string, u updateSpec, sample int) (*changes.PlanResult, string) {
	opts := u.planOptions()
	opts.Sample = sample
	if sort := u.opts.Get("sort"); sort.Len() > 0 && u.one {
		u.filter = s.firstBySort(coll, u.filter, sort)
	}
	var plan *changes.PlanResult
	change := s.planApply(opts.Upsert, func(db *store.DB) (*changes.PlanResult, error) {
		var err error
		plan, err = changes.PlanUpdate(s.ctx, db, coll, u.filter, u.update, opts)
		return plan, err
	})
	return plan, change
}

// firstBySort narrows filter to the _id of its first match in sort
// order, for the one-document methods that take a sort.
func (s *Shell) firstBySort(coll string, filter, sort value.Value) value.Value {
	q := s.compileQuery(filter, value.MustParse(`{"_id":1}`), sort)
	q.Limit = 1
	docs := s.findDocs(coll, q)
	if len(docs) == 0 {
		return filter
	}
	return value.ObjectValue([]value.Field{field("_id", docs[0].Get("_id"))})
}

// updateResult runs updateOne, updateMany or replaceOne as one-step
// writes (changes.Update and Replace): one journaled change.
func (s *Shell) updateResult(coll string, u updateSpec) goja.Value {
	return s.updateJS(s.updateWrite(coll, u))
}

// updateWrite is the write of updateResult, and its result.
func (s *Shell) updateWrite(coll string, u updateSpec) *WriteResult {
	if s.opts.Engine != nil {
		return s.engineUpdate(coll, u)
	}
	if sort := u.opts.Get("sort"); sort.Len() > 0 && u.one {
		u.filter = s.firstBySort(coll, u.filter, sort)
	}
	p := u.planOptions()
	opts := &changes.WriteOptions{One: u.one, Upsert: p.Upsert, ArrayFilters: p.ArrayFilters, Actor: "shell"}
	var res *changes.WriteResult
	s.withDB(opts.Upsert, func(db *store.DB) error {
		var err error
		if u.replace {
			res, err = changes.Replace(s.ctx, db, coll, u.filter, u.update, opts)
		} else {
			res, err = changes.Update(s.ctx, db, coll, u.filter, u.update, opts)
		}
		return err
	})
	inserted := value.NullValue()
	if res.UpsertedID != nil {
		inserted = res.UpsertedID.Value
	}
	return &WriteResult{Matched: res.Matched, Modified: res.Modified, Upserted: res.Upserted, UpsertedID: inserted, ChangeID: res.ChangeID}
}

// updateJS is the result of updateOne, updateMany and replaceOne.
func (s *Shell) updateJS(res *WriteResult) goja.Value {
	inserted := res.UpsertedID
	if inserted.IsMissing() {
		inserted = value.NullValue()
	}
	return s.toJS(value.ObjectValue([]value.Field{
		acknowledged,
		field("insertedId", inserted),
		field("matchedCount", value.LongValue(res.Matched)),
		field("modifiedCount", value.LongValue(res.Modified)),
		field("upsertedCount", value.LongValue(res.Upserted)),
		changeField(res.ChangeID),
	}))
}

// engineUpdate is updateWrite over the engine.
func (s *Shell) engineUpdate(coll string, u updateSpec) *WriteResult {
	w := s.writer()
	if sort := u.opts.Get("sort"); sort.Len() > 0 && u.one {
		u.filter = s.engineFirstBySort(coll, u.filter, sort)
	}
	p := u.planOptions()
	res, err := w.Update(s.rctx(), coll, u.filter, u.update, &WriteSpec{One: u.one, Replace: u.replace, Upsert: p.Upsert, ArrayFilters: p.ArrayFilters})
	s.must(err)
	return res
}

// findAndModify returns the document before the change, or after it with
// {returnDocument: 'after'} or {returnNewDocument: true}.
func (s *Shell) findAndModify(coll string, u updateSpec) goja.Value {
	if s.opts.Engine != nil {
		return s.engineFindAndModify(coll, u)
	}
	plan, change := s.plan(coll, u, 1)
	s.note(change)
	if len(plan.SampleBeforeAfter) == 0 {
		if plan.UpsertedID != nil && s.returnAfter(u.opts) {
			return s.findByID(coll, plan.UpsertedID.Value, u.opts.Get("projection"))
		}
		return goja.Null()
	}
	ba := plan.SampleBeforeAfter[0]
	doc := ba.Before.Value
	if s.returnAfter(u.opts) {
		doc = ba.After.Value
	}
	return s.toJS(s.project(doc, u.opts.Get("projection")))
}

func (s *Shell) returnAfter(opts value.Value) bool {
	return opts.Get("returnDocument").Str() == "after" || opts.Get("returnNewDocument").Bool()
}

func (s *Shell) findByID(coll string, id, proj value.Value) goja.Value {
	q := s.compileQuery(value.ObjectValue([]value.Field{field("_id", id)}), proj, value.Value{})
	if docs := s.findDocs(coll, q); len(docs) > 0 {
		return s.toJS(docs[0])
	}
	return goja.Null()
}

func (s *Shell) project(doc, proj value.Value) value.Value {
	if proj.Len() == 0 {
		return doc
	}
	p, err := query.CompileProjection(proj)
	s.must(err)
	out, err := p.Apply(doc)
	s.must(err)
	return out
}

func (s *Shell) findAndDelete(coll string, filter, opts value.Value) goja.Value {
	if s.opts.Engine != nil {
		return s.engineFindAndDelete(coll, filter, opts)
	}
	if sort := opts.Get("sort"); sort.Len() > 0 {
		filter = s.firstBySort(coll, filter, sort)
	}
	q := s.compileQuery(filter, value.Value{}, value.Value{})
	q.Limit = 1
	docs := s.findDocs(coll, q)
	if len(docs) == 0 {
		return goja.Null()
	}
	byID := value.ObjectValue([]value.Field{field("_id", docs[0].Get("_id"))})
	change := s.planApply(false, func(db *store.DB) (*changes.PlanResult, error) {
		return changes.PlanDelete(s.ctx, db, coll, byID, &changes.PlanOptions{First: true, Actor: "shell", Sample: -1})
	})
	s.note(change)
	return s.toJS(s.project(docs[0], opts.Get("projection")))
}
