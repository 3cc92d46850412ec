package shell

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// bulkWrite runs mongosh's bulkWrite: insertOne, updateOne, updateMany,
// replaceOne, deleteOne and deleteMany operations, in order. As in
// MongoDB it is not atomic: each operation is written as the method of
// its name writes it, one journaled change each (over MongoDB too), and
// every operation is checked before the first is written. Ordered (the
// default), it stops at the first operation that fails; with {ordered:
// false} it runs the others. A failure throws an error that names each
// failed operation and the changes written.

// bulkOp is one operation of a bulkWrite.
type bulkOp struct {
	kind string
	body value.Value // the operation's document: {document}, {filter, update, …}
	u    updateSpec  // for the update kinds
}

// bulkTally is what a bulkWrite wrote so far.
type bulkTally struct {
	inserted, matched, modified, deleted, upserted int64
	insertedIDs, upsertedIDs                       []value.Field
	changes                                        []value.Value
}

func (s *Shell) bulkWrite(coll string, call goja.FunctionCall) goja.Value {
	ops := s.bulkOps(s.arg(call, 0))
	ordered := s.bulkOrdered(s.optDoc(call, 1, "options"))
	var t bulkTally
	var failed []string
	var first error
	for i, op := range ops {
		err := s.catch(func() { s.bulkRun(coll, i, op, &t) })
		if err == nil {
			continue
		}
		if errors.Is(err, ErrInterrupted) {
			s.throw(t.error([]string{fmt.Sprintf("operations[%d] (%s): interrupted", i, op.kind)}, err, s.opts.Store))
		}
		if first == nil {
			first = err
		}
		failed = append(failed, fmt.Sprintf("operations[%d] (%s): %v", i, op.kind, err))
		if ordered {
			break
		}
	}
	if first != nil {
		s.throw(t.error(failed, first, s.opts.Store))
	}
	return s.toJS(t.result())
}

// bulkKinds are the operations bulkWrite takes, with the fields each may
// have.
var bulkKinds = map[string][]string{
	"insertOne":  {"document"},
	"updateOne":  {"filter", "update", "upsert", "arrayFilters", "sort"},
	"updateMany": {"filter", "update", "upsert", "arrayFilters"},
	"replaceOne": {"filter", "replacement", "upsert", "sort"},
	"deleteOne":  {"filter"},
	"deleteMany": {"filter"},
}

// bulkOps checks every operation before anything is written.
func (s *Shell) bulkOps(arg value.Value) []bulkOp {
	if arg.Kind() != value.Array || arg.Len() == 0 {
		s.throw(errs.Errorf(errs.Invalid, "bulkWrite takes a non-empty array of operations").
			WithHint("db.users.bulkWrite([{insertOne: {document: {name: 'ada'}}}, {deleteOne: {filter: {name: 'bo'}}}])"))
	}
	ops := make([]bulkOp, arg.Len())
	for i, v := range arg.Array() {
		op, err := s.bulkOp(v)
		if err != nil {
			qe := errs.Errorf(errs.KindOf(err), "bulkWrite operations[%d]: %v", i, err)
			qe.Err, qe.Hint = err, errs.HintOf(err)
			if qe.Hint == "" {
				qe.Hint = "each operation is {insertOne: {document}}, {updateOne|updateMany: {filter, update, upsert, arrayFilters}}, {replaceOne: {filter, replacement, upsert}} or {deleteOne|deleteMany: {filter}}"
			}
			s.throw(fmt.Errorf("%w (nothing was written)", qe))
		}
		ops[i] = op
	}
	return ops
}

// bulkOp checks one operation.
func (s *Shell) bulkOp(v value.Value) (op bulkOp, err error) {
	if v.Kind() != value.Object || v.Len() != 1 {
		return op, errs.Errorf(errs.Invalid, "an operation must be an object with one key, such as insertOne, got %s", value.JSON(v))
	}
	f := v.Fields()[0]
	fields, ok := bulkKinds[f.Key]
	if !ok {
		return op, errs.Errorf(errs.Invalid, "unknown operation %q", f.Key)
	}
	if f.Value.Kind() != value.Object {
		return op, errs.Errorf(errs.Invalid, "%s takes a document, got %s", f.Key, f.Value.TypeName())
	}
	op = bulkOp{kind: f.Key, body: f.Value}
	for _, g := range f.Value.Fields() {
		if !slices.Contains(fields, g.Key) {
			return op, errs.Errorf(errs.Invalid, "%s does not take %q (it takes %s)", f.Key, g.Key, strings.Join(fields, ", "))
		}
	}
	for _, name := range []string{"document", "filter", "update", "replacement"} {
		if slices.Contains(fields, name) && name != "filter" && f.Value.Get(name).IsMissing() {
			return op, errs.Errorf(errs.Invalid, "%s needs %s", f.Key, name)
		}
		if d := f.Value.Get(name); !d.IsMissing() && d.Kind() != value.Object && !(name == "update" && d.Kind() == value.Array) {
			return op, errs.Errorf(errs.Invalid, "%s's %s must be an object, got %s", f.Key, name, d.TypeName())
		}
	}
	if _, err := query.CompileFilter(orEmpty(f.Value.Get("filter"))); err != nil {
		return op, err
	}
	if strings.HasPrefix(f.Key, "update") || f.Key == "replaceOne" {
		return s.bulkUpdate(op)
	}
	return op, nil
}

// bulkUpdate checks an update operation as the update methods do, and
// compiles its update.
func (s *Shell) bulkUpdate(op bulkOp) (bulkOp, error) {
	b := op.body
	op.u = updateSpec{filter: orEmpty(b.Get("filter")), update: b.Get("update"), one: op.kind != "updateMany",
		replace: op.kind == "replaceOne", opts: b}
	if op.u.replace {
		op.u.update = b.Get("replacement")
	}
	if err := s.catch(func() { s.checkUpdate(op.u) }); err != nil {
		return op, err
	}
	o := op.u.planOptions()
	_, err := changes.CompileUpdate(op.u.update, &query.UpdateOptions{ArrayFilters: o.ArrayFilters})
	return op, err
}

func orEmpty(v value.Value) value.Value {
	if v.IsMissing() {
		return value.ObjectValue(nil)
	}
	return v
}

// bulkOrdered reads the options: ordered, true by default.
func (s *Shell) bulkOrdered(opts value.Value) bool {
	for _, f := range opts.Fields() {
		if f.Key != "ordered" || f.Value.Kind() != value.Bool {
			s.throw(errs.Errorf(errs.Invalid, "bulkWrite takes one option, ordered (true or false), got %s: %s", f.Key, f.Value.TypeName()).
				WithHint("db.users.bulkWrite([...], {ordered: false})"))
		}
	}
	return opts.Get("ordered").IsMissing() || opts.Get("ordered").Bool()
}

// bulkRun writes operation i and adds what it did to t.
func (s *Shell) bulkRun(coll string, i int, op bulkOp, t *bulkTally) {
	var res *WriteResult
	switch op.kind {
	case "insertOne":
		ids, change := s.insert(coll, []value.Value{op.body.Get("document")})
		t.inserted++
		t.insertedIDs = append(t.insertedIDs, field(itoa(i), ids[0]))
		t.change(change)
		return
	case "deleteOne", "deleteMany":
		res = s.deleteWrite(coll, orEmpty(op.body.Get("filter")), op.kind == "deleteOne")
		t.deleted += res.Deleted // matchedCount counts the updates' matches only
		t.change(res.ChangeID)
		return
	default:
		res = s.updateWrite(coll, op.u)
	}
	t.matched += res.Matched
	t.modified += res.Modified
	t.upserted += res.Upserted
	if !res.UpsertedID.IsMissing() && !res.UpsertedID.IsNull() {
		t.upsertedIDs = append(t.upsertedIDs, field(itoa(i), res.UpsertedID))
	}
	t.change(res.ChangeID)
}

func (t *bulkTally) change(id string) {
	if id != "" {
		t.changes = append(t.changes, value.StringValue(id))
	}
}

// result is mongosh's BulkWriteResult, with the change ids.
func (t *bulkTally) result() value.Value {
	return value.ObjectValue([]value.Field{
		acknowledged,
		field("insertedCount", value.LongValue(t.inserted)),
		field("insertedIds", value.ObjectValue(t.insertedIDs)),
		field("matchedCount", value.LongValue(t.matched)),
		field("modifiedCount", value.LongValue(t.modified)),
		field("deletedCount", value.LongValue(t.deleted)),
		field("upsertedCount", value.LongValue(t.upserted)),
		field("upsertedIds", value.ObjectValue(t.upsertedIDs)),
		field("changeIds", value.ArrayValue(t.changes)),
	})
}

// error is the error of a bulkWrite some of whose operations failed: of
// the first failure's kind, naming each failure and what was written.
func (t *bulkTally) error(failed []string, first error, store string) error {
	written := "nothing was written"
	if n := len(t.changes); n > 0 {
		ids := make([]string, n)
		for i, c := range t.changes {
			ids[i] = c.Str()
		}
		written = fmt.Sprintf("the other operations wrote %d change(s): %s (insertedCount %d, matchedCount %d, modifiedCount %d, deletedCount %d, upsertedCount %d)",
			n, strings.Join(ids, ", "), t.inserted, t.matched, t.modified, t.deleted, t.upserted)
	}
	qe := errs.Errorf(errs.KindOf(first), "bulkWrite: %d operation(s) failed: %s; %s", len(failed), strings.Join(failed, "; "), written)
	qe.Err = first
	qe.Hint = "each operation of bulkWrite is its own change, as in MongoDB it is not atomic: fix the failed operations and run them again"
	if len(t.changes) > 0 {
		qe.Hint += fmt.Sprintf(", or undo a written one with `omgdb rollback %s <change>`", store)
	}
	return qe
}
