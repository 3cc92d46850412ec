package shell

import (
	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func field(k string, v value.Value) value.Field { return value.Field{Key: k, Value: v} }

var acknowledged = field("acknowledged", value.BoolValue(true))

func changeField(id string) value.Field {
	if id == "" {
		return field("changeId", value.NullValue())
	}
	return field("changeId", value.StringValue(id))
}

func (s *Shell) writeMethods(name string) map[string]method {
	m := map[string]method{
		"insertOne": func(call goja.FunctionCall) goja.Value {
			doc := s.docArg(call, 0, "document")
			ids, change := s.insert(name, []value.Value{doc})
			return s.toJS(value.ObjectValue([]value.Field{acknowledged, field("insertedId", ids[0]), changeField(change)}))
		},
		"insertMany": func(call goja.FunctionCall) goja.Value {
			docs := s.arg(call, 0)
			if docs.Kind() != value.Array || docs.Len() == 0 {
				s.throw(errs.Errorf(errs.Invalid, "insertMany takes a non-empty array of documents").
					WithHint("db.users.insertMany([{name: 'ada'}, {name: 'alan'}])"))
			}
			ids, change := s.insert(name, docs.Array())
			idFields := make([]value.Field, len(ids))
			for i, id := range ids {
				idFields[i] = field(itoa(i), id)
			}
			return s.toJS(value.ObjectValue([]value.Field{acknowledged, field("insertedIds", value.ObjectValue(idFields)), changeField(change)}))
		},
		"deleteOne":  func(call goja.FunctionCall) goja.Value { return s.deleteResult(name, call, true) },
		"bulkWrite":  func(call goja.FunctionCall) goja.Value { return s.bulkWrite(name, call) },
		"deleteMany": func(call goja.FunctionCall) goja.Value { return s.deleteResult(name, call, false) },
		"drop": func(goja.FunctionCall) goja.Value {
			if s.opts.Engine != nil {
				change, err := s.schemaWriter().Drop(s.rctx(), name)
				s.must(err)
				s.note(change)
				return s.rt.ToValue(true)
			}
			var res *changes.CollectionResult
			s.withDB(false, func(db *store.DB) error {
				var err error
				res, err = changes.DropCollection(s.ctx, db, name, &changes.CollectionOptions{Actor: "shell"})
				return err
			})
			s.note(res.ChangeID)
			return s.rt.ToValue(true)
		},
		"renameCollection": func(call goja.FunctionCall) goja.Value {
			to := call.Argument(0)
			if _, ok := to.Export().(string); !ok || to.String() == "" {
				s.throw(errs.Errorf(errs.Usage, "renameCollection needs the new name").WithHint("db.users.renameCollection('people')"))
			}
			change := s.rename(name, to.String(), call.Argument(1).ToBoolean())
			return s.toJS(value.ObjectValue([]value.Field{field("ok", value.LongValue(1)), changeField(change)}))
		},
	}
	for k, v := range s.updateMethods(name) {
		m[k] = v
	}
	for k, v := range s.indexMethods(name) {
		m[k] = v
	}
	for k, v := range s.schemaMethods(name) {
		m[k] = v
	}
	return m
}

func itoa(i int) string { return value.LongValue(int64(i)).String() }

// note tells where the change id of a write whose mongosh result is a
// plain value went.
func (s *Shell) note(change string) {
	if change != "" {
		s.printf("// change %s (omgdb rollback %s %s undoes it)\n", change, s.opts.Store, change)
	}
}

// insert inserts docs in one change, creating the store and the
// collection when missing, and returns their ids.
func (s *Shell) insert(coll string, docs []value.Value) ([]value.Value, string) {
	if s.opts.Engine != nil {
		return s.engineInsert(coll, docs)
	}
	ids := make([]value.Value, 0, len(docs))
	change := s.write("insert", true, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		for _, d := range docs {
			if d.Kind() != value.Object {
				return errs.Errorf(errs.Invalid, "insert: a document must be an object, got %s", d.TypeName()).
					WithHint("write each document as {field: value}")
			}
			id, err := c.Insert(d)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids, change
}

func (s *Shell) deleteResult(coll string, call goja.FunctionCall, one bool) goja.Value {
	filter := s.docArg(call, 0, "filter")
	s.writeOpts(call, 1)
	res := s.deleteWrite(coll, filter, one)
	return s.toJS(value.ObjectValue([]value.Field{acknowledged, field("deletedCount", value.LongValue(res.Deleted)), changeField(res.ChangeID)}))
}

// deleteWrite deletes what filter matches (the first with one) in one
// change, and says what it did.
func (s *Shell) deleteWrite(coll string, filter value.Value, one bool) *WriteResult {
	if s.opts.Engine != nil {
		res, err := s.writer().Delete(s.rctx(), coll, filter, one)
		s.must(err)
		return res
	}
	var res *changes.WriteResult
	s.withDB(false, func(db *store.DB) error {
		var err error
		res, err = changes.Delete(s.ctx, db, coll, filter, &changes.WriteOptions{One: one, Actor: "shell"})
		return err
	})
	return &WriteResult{Deleted: res.Deleted, ChangeID: res.ChangeID}
}

// planApply plans a change with plan and applies it at once, in the
// reviewed path that plan-update and apply take, and returns the change
// id; a plan that changes nothing is discarded and gives no change.
func (s *Shell) planApply(create bool, plan func(*store.DB) (*changes.PlanResult, error)) string {
	var change string
	s.withDB(create, func(db *store.DB) error {
		p, err := plan(db)
		if err != nil {
			return err
		}
		if p.Modified == 0 && p.UpsertedID == nil && !p.CreatesCollection && (p.Kind != "delete" || p.Matched == 0) {
			_, err := changes.Discard(s.ctx, db, p.Token)
			return err
		}
		res, err := changes.Apply(s.ctx, db, p.Token, &changes.ApplyOptions{Actor: "shell"})
		if err != nil {
			return err
		}
		change = res.ChangeID
		return nil
	})
	return change
}

// rename renames a collection in one change (changes.RenameCollection:
// documents, indexes and rules move), so rollback brings the old name back.
func (s *Shell) rename(from, to string, dropTarget bool) string {
	if s.opts.Engine != nil {
		change, err := s.schemaWriter().Rename(s.rctx(), from, to, dropTarget)
		s.must(err)
		return change
	}
	var res *changes.CollectionResult
	s.withDB(false, func(db *store.DB) error {
		var err error
		res, err = changes.RenameCollection(s.ctx, db, from, to, &changes.CollectionOptions{DropTarget: dropTarget, Actor: "shell"})
		return err
	})
	return res.ChangeID
}
