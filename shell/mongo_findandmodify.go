package shell

import (
	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/query/value"
)

// engineFindAndModify is findAndModify over the engine: the first
// document in sort order (or _id order) is updated or replaced through
// the Writer, one plan applied at once, and the result is its before- or
// after-image from the plan, as on a file.
func (s *Shell) engineFindAndModify(coll string, u updateSpec) goja.Value {
	w := s.writer()
	if sort := u.opts.Get("sort"); sort.Len() > 0 {
		u.filter = s.engineFirstBySort(coll, u.filter, sort)
	}
	p := u.planOptions()
	res, err := w.Update(s.rctx(), coll, u.filter, u.update, &WriteSpec{One: true, Replace: u.replace, Upsert: p.Upsert, ArrayFilters: p.ArrayFilters})
	s.must(err)
	s.note(res.ChangeID)
	if res.Before.IsMissing() && res.After.IsMissing() {
		return goja.Null() // nothing written: no match, or no change
	}
	doc := res.Before
	if s.returnAfter(u.opts) {
		doc = res.After
	}
	return s.toJS(s.project(doc, u.opts.Get("projection")))
}

// engineFindAndDelete is findAndDelete over the engine: the first
// document in sort order (or _id order) is deleted by its _id through the
// Writer and returned as the plan read it.
func (s *Shell) engineFindAndDelete(coll string, filter, opts value.Value) goja.Value {
	w := s.writer()
	if sort := opts.Get("sort"); sort.Len() > 0 {
		filter = s.engineFirstBySort(coll, filter, sort)
	}
	docs := s.engineFind(coll, filter, value.Value{}, value.Value{}, 0, 1)
	if len(docs) == 0 {
		return goja.Null()
	}
	byID := value.ObjectValue([]value.Field{field("_id", docs[0].Get("_id"))})
	res, err := w.Delete(s.rctx(), coll, byID, true)
	s.must(err)
	s.note(res.ChangeID)
	doc := docs[0]
	if !res.Before.IsMissing() {
		doc = res.Before
	}
	return s.toJS(s.project(doc, opts.Get("projection")))
}
