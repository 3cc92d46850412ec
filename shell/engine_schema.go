package shell

import (
	"context"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Over an engine whose Writer is also a SchemaWriter, db.createCollection,
// drop, renameCollection, createIndex, createIndexes, dropIndex and
// dropIndexes run there, each one
// journaled change that rollback undoes, printing what they print on a
// store file.

// SchemaWriter drops and renames collections and creates and drops
// indexes of an engine, each call one journaled change (its id is
// returned).
type SchemaWriter interface {
	CreateCollection(ctx context.Context, coll string) (change string, err error)
	Drop(ctx context.Context, coll string) (change string, err error)
	Rename(ctx context.Context, from, to string, dropTarget bool) (change string, err error)
	// CreateIndexes creates defs (B-tree or text indexes, as a store file
	// defines them).
	CreateIndexes(ctx context.Context, coll string, defs []store.IndexDef) (change string, err error)
	// DropIndex drops the index named name, or else the one whose key is
	// fields (nil when the argument was a name), and returns its name.
	DropIndex(ctx context.Context, coll, name string, fields []store.IndexField) (dropped, change string, err error)
	// DropIndexes drops the indexes named, every one but _id_ when names
	// is nil, and returns how many the collection had (_id_ counted).
	DropIndexes(ctx context.Context, coll string, names []string) (was int, change string, err error)
}

// schemaWriter is the engine's SchemaWriter, or the refusal when there
// is none.
func (s *Shell) schemaWriter() SchemaWriter {
	w, ok := s.writer().(SchemaWriter)
	if !ok {
		s.throw(s.notOnEngine())
	}
	return w
}

// engineDropIndex is dropIndex over the engine: by name, or by key
// pattern.
func (s *Shell) engineDropIndex(coll string, arg value.Value) goja.Value {
	var name string
	var fields []store.IndexField
	switch arg.Kind() {
	case value.String:
		name = arg.Str()
	case value.Object:
		fields = s.keyPattern(arg)
		name = store.BTreeIndex("", store.BTreeSpec{Fields: fields}).Name
	default:
		s.throw(errs.Errorf(errs.Invalid, "dropIndex takes an index name or a key pattern, got %s", arg.TypeName()).
			WithHint("db.users.dropIndex('age_1') or db.users.dropIndex({age: 1})"))
	}
	_, change, err := s.schemaWriter().DropIndex(s.rctx(), coll, name, fields)
	s.must(err)
	s.note(change)
	return s.toJS(value.ObjectValue([]value.Field{field("ok", value.LongValue(1)), changeField(change)}))
}
