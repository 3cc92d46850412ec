package shell

import (
	"slices"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// db.createCollection, createIndexes and dropIndexes, on a store file and
// over an engine (a SchemaWriter), each one journaled change.

func (s *Shell) schemaMethods(name string) map[string]method {
	return map[string]method{
		"createIndexes": func(call goja.FunctionCall) goja.Value {
			return s.createIndexes(name, s.arg(call, 0), s.optDoc(call, 1, "options"))
		},
		"dropIndexes": func(call goja.FunctionCall) goja.Value {
			var names []string // nil: every index but _id_
			switch arg := s.arg(call, 0); {
			case arg.IsMissing() || (arg.Kind() == value.String && arg.Str() == "*"):
			case arg.Kind() == value.String:
				names = []string{arg.Str()}
			case arg.Kind() == value.Array && allStrings(arg):
				names = []string{}
				for _, n := range arg.Array() {
					names = append(names, n.Str())
				}
			default:
				s.throw(errs.Errorf(errs.Invalid, "dropIndexes takes an index name, an array of names, or nothing (every index but _id_), got %s", arg.TypeName()).
					WithHint("db.users.dropIndexes(), db.users.dropIndexes('age_1') or db.users.dropIndexes(['age_1', 'city_1'])"))
			}
			return s.dropIndexes(name, names)
		},
	}
}

func allStrings(v value.Value) bool {
	return !slices.ContainsFunc(v.Array(), func(e value.Value) bool { return e.Kind() != value.String })
}

// createCollection creates an empty collection: an existing one is a
// conflict. Options (a validator, a collation, capped) are refused: rules
// are set with omgdb define.
func (s *Shell) createCollection(call goja.FunctionCall) goja.Value {
	name := call.Argument(0)
	if _, ok := name.Export().(string); !ok || name.String() == "" {
		s.throw(errs.Errorf(errs.Usage, "createCollection needs the collection's name").WithHint("db.createCollection('events')"))
	}
	if opts := s.optDoc(call, 1, "options"); opts.Len() > 0 {
		s.throw(errs.Errorf(errs.Usage, "createCollection takes no options in omgdb's shell, got `%s`", opts.Fields()[0].Key).
			WithHint("create it with db.createCollection('%s'); set validation rules with `omgdb define`", name.String()))
	}
	coll := name.String()
	s.must(store.ValidateCollectionName(coll))
	var change string
	if s.opts.Engine != nil {
		var err error
		change, err = s.schemaWriter().CreateCollection(s.rctx(), coll)
		s.must(err)
	} else {
		change = s.write("create_collection", true, func(tx *store.Tx) error {
			if _, err := tx.Collection(coll); err == nil {
				return errs.Errorf(errs.Conflict, "collection `%s` already exists", coll).
					WithHint("use it as it is, or choose another name")
			}
			_, err := tx.CreateCollection(coll)
			return err
		})
	}
	return s.toJS(value.ObjectValue([]value.Field{field("ok", value.LongValue(1)), changeField(change)}))
}

// createIndexes creates B-tree indexes from key patterns, with the same
// options, in one change, and returns their names.
func (s *Shell) createIndexes(coll string, keys, opts value.Value) goja.Value {
	if keys.Kind() != value.Array || keys.Len() == 0 {
		s.throw(errs.Errorf(errs.Invalid, "createIndexes takes a non-empty array of key patterns").
			WithHint("db.users.createIndexes([{age: 1}, {city: 1, age: -1}])"))
	}
	s.checkIndexOptions("createIndexes", opts)
	if opts.Get("name").Str() != "" && keys.Len() > 1 {
		s.throw(errs.Errorf(errs.Usage, "a name names one index, and %d key patterns are given", keys.Len()).
			WithHint("create the named index with createIndex"))
	}
	defs := make([]store.IndexDef, keys.Len())
	names := make([]any, keys.Len())
	for i, k := range keys.Array() {
		if k.Kind() != value.Object {
			s.throw(errs.Errorf(errs.Invalid, "createIndexes: key pattern %d is %s, not a document", i, k.TypeName()).
				WithHint("db.users.createIndexes([{age: 1}])"))
		}
		defs[i] = store.BTreeIndex(opts.Get("name").Str(), store.BTreeSpec{Fields: s.keyPattern(k), Unique: opts.Get("unique").Bool(), Sparse: opts.Get("sparse").Bool()})
		names[i] = defs[i].Name
	}
	var change string
	if s.opts.Engine != nil {
		var err error
		change, err = s.schemaWriter().CreateIndexes(s.rctx(), coll, defs)
		s.must(err)
	} else {
		change = s.write("create_index", false, func(tx *store.Tx) error {
			c, err := tx.Collection(coll)
			if err != nil {
				return err
			}
			_, err = c.CreateBTreeIndexes(defs...)
			return err
		})
	}
	s.note(change)
	return s.rt.NewArray(names...)
}

// dropIndexes drops the indexes named (every index but _id_ when names
// is nil) in one change.
func (s *Shell) dropIndexes(coll string, names []string) goja.Value {
	if slices.Contains(names, "_id_") {
		s.throw(errs.Errorf(errs.Invalid, "cannot drop the _id index of `%s`", coll).
			WithHint("every collection keeps its _id index; drop another index, or the collection"))
	}
	var was int
	var change string
	if s.opts.Engine != nil {
		var err error
		was, change, err = s.schemaWriter().DropIndexes(s.rctx(), coll, names)
		s.must(err)
	} else {
		change = s.write("drop_index", false, func(tx *store.Tx) error {
			c, err := tx.Collection(coll)
			if err != nil {
				return err
			}
			was = len(c.Indexes()) + 1
			drop := names
			if drop == nil {
				for _, d := range c.Indexes() {
					drop = append(drop, d.Name)
				}
			}
			for _, n := range drop {
				if err := c.DropIndex(n); err != nil {
					return err
				}
			}
			return nil
		})
	}
	fields := []value.Field{field("nIndexesWas", value.LongValue(int64(was)))}
	if names == nil {
		fields = append(fields, field("msg", value.StringValue("non-_id indexes dropped for collection")))
	}
	s.note(change)
	return s.toJS(value.ObjectValue(append(fields, field("ok", value.LongValue(1)), changeField(change))))
}
