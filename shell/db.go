package shell

import (
	"slices"
	"sort"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// dbObject is db: its methods, and any other property a collection.
type dbObject struct {
	s       *Shell
	methods map[string]goja.Value
}

// dbMethods are db's methods, for help and completion.
var dbMethods = []string{"getCollection", "getCollectionNames", "createCollection", "getName", "stats", "help", "dropDatabase"}

func (s *Shell) newDB() *goja.Object {
	d := &dbObject{s: s, methods: map[string]goja.Value{}}
	add := func(name string, fn func(goja.FunctionCall) goja.Value) { d.methods[name] = s.rt.ToValue(fn) }
	add("getCollection", func(call goja.FunctionCall) goja.Value {
		name := call.Argument(0).String()
		if name == "" || goja.IsUndefined(call.Argument(0)) {
			s.throw(errs.Errorf(errs.Usage, "getCollection needs a collection name").WithHint("db.getCollection('users')"))
		}
		return s.newCollection(name)
	})
	add("getCollectionNames", func(goja.FunctionCall) goja.Value {
		names := s.collectionNames()
		out := make([]any, len(names))
		for i, n := range names {
			out[i] = n
		}
		return s.rt.NewArray(out...)
	})
	add("createCollection", s.createCollection)
	add("getName", func(goja.FunctionCall) goja.Value { return s.rt.ToValue(s.opts.Store) })
	add("stats", func(goja.FunctionCall) goja.Value { return s.dbStats() })
	add("help", func(goja.FunctionCall) goja.Value { s.printf("%s", helpDB); return goja.Undefined() })
	add("dropDatabase", func(goja.FunctionCall) goja.Value {
		s.throw(errs.Errorf(errs.Denied, "dropDatabase is not offered: a store is one file").
			WithHint("drop collections one by one with db.coll.drop() (each can be rolled back), or delete the file"))
		return nil
	})
	return s.rt.NewDynamicObject(d)
}

func (d *dbObject) Get(key string) goja.Value {
	if m, ok := d.methods[key]; ok {
		return m
	}
	if key == "toString" || key == "valueOf" || key == "constructor" || key == "toJSON" || key == "then" {
		return goja.Undefined() // not collections: keep JavaScript's own lookups working
	}
	return d.s.newCollection(key)
}

func (d *dbObject) Set(string, goja.Value) bool { return false }
func (d *dbObject) Has(key string) bool         { _, ok := d.methods[key]; return ok }
func (d *dbObject) Delete(string) bool          { return false }
func (d *dbObject) Keys() []string              { return nil }

// collectionNames lists the store's collections; none for a missing store.
func (s *Shell) collectionNames() []string {
	if s.opts.Engine != nil {
		names, err := s.opts.Engine.Collections(s.rctx())
		s.must(err)
		return names
	}
	if s.opts.Store == "" || !s.storeExists() {
		return nil
	}
	var names []string
	s.view(func(tx *store.Tx) error {
		names = slices.Clone(tx.Collections())
		return nil
	})
	sort.Strings(names)
	return names
}

func (s *Shell) dbStats() goja.Value {
	if s.opts.Engine != nil {
		return s.engineDBStats()
	}
	db := s.open(false, false)
	defer db.Close()
	var colls, docs int64
	err := db.View(func(tx *store.Tx) error {
		for _, n := range tx.Collections() {
			c, err := tx.Collection(n)
			if err != nil {
				return err
			}
			colls++
			docs += c.Count()
		}
		return nil
	})
	s.must(err)
	return s.toJS(value.ObjectValue([]value.Field{
		{Key: "db", Value: value.StringValue(s.opts.Store)},
		{Key: "collections", Value: value.LongValue(colls)},
		{Key: "objects", Value: value.LongValue(docs)},
		{Key: "fileSize", Value: value.LongValue(db.Size())},
	}))
}
