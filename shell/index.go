package shell

import (
	"strings"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func (s *Shell) indexMethods(name string) map[string]method {
	return map[string]method{
		"createIndex": func(call goja.FunctionCall) goja.Value {
			opts := s.optDoc(call, 1, "options")
			if def, ok := s.textIndex(s.docArg(call, 0, "key pattern"), opts); ok {
				return s.createIndex(name, def)
			}
			fields := s.keyPattern(s.docArg(call, 0, "key pattern"))
			def := store.BTreeIndex(opts.Get("name").Str(), store.BTreeSpec{Fields: fields, Unique: opts.Get("unique").Bool(), Sparse: opts.Get("sparse").Bool()})
			return s.createIndex(name, def)
		},
		"dropIndex": func(call goja.FunctionCall) goja.Value {
			arg := s.arg(call, 0)
			if arg.Kind() != value.String && arg.Kind() != value.Object {
				// Refused here, not inside the write's transaction (where
				// a throw reads as a damaged store).
				s.indexName(nil, arg)
			}
			if s.opts.Engine != nil {
				return s.engineDropIndex(name, arg)
			}
			change := s.write("drop_index", false, func(tx *store.Tx) error {
				c, err := tx.Collection(name)
				if err != nil {
					return err
				}
				return c.DropIndex(s.indexName(c, arg))
			})
			s.note(change)
			return s.toJS(value.ObjectValue([]value.Field{field("ok", value.LongValue(1)), changeField(change)}))
		},
	}
}

// keyPattern turns {age: -1, name: 1} into index fields.
func (s *Shell) keyPattern(spec value.Value) []store.IndexField {
	if spec.Len() == 0 {
		s.throw(errs.Errorf(errs.Invalid, "createIndex needs a key pattern").WithHint("db.users.createIndex({age: 1})"))
	}
	var parts []string
	for _, f := range spec.Fields() {
		dir := f.Value
		switch {
		case dir.IsNumber() && dir.Float() == 1:
			parts = append(parts, f.Key)
		case dir.IsNumber() && dir.Float() == -1:
			parts = append(parts, f.Key+":-1")
		case dir.Kind() == value.String && dir.Str() == store.Geo2DSphere:
			parts = append(parts, f.Key+":"+store.Geo2DSphere)
		default:
			s.throw(errs.Errorf(errs.Invalid, "createIndex: %s: %s is not 1 or -1", f.Key, s.inspectValue(dir)).
				WithHint("omgdb shell creates B-tree indexes ({field: 1} or {field: -1}) and the text index ({field: 'text'}); vector and search indexes have their own commands"))
		}
	}
	fields, err := store.ParseKeyPattern(strings.Join(parts, ","))
	s.must(err)
	return fields
}

// indexName resolves dropIndex's argument: a name, or a key pattern.
func (s *Shell) indexName(c *store.Collection, arg value.Value) string {
	if arg.Kind() == value.String {
		return arg.Str()
	}
	if arg.Kind() == value.Object {
		if name := c.FindBTreeIndex(s.keyPattern(arg)); name != "" {
			return name
		}
		return store.BTreeIndex("", store.BTreeSpec{Fields: s.keyPattern(arg)}).Name
	}
	s.throw(errs.Errorf(errs.Invalid, "dropIndex takes an index name or a key pattern, got %s", arg.TypeName()).
		WithHint("db.users.dropIndex('age_1') or db.users.dropIndex({age: 1})"))
	return ""
}

// createIndex creates a B-tree or text index in one change, prints the
// change and returns the index's name. A B-tree index goes through
// CreateBTreeIndexes, which refuses a second index on the same keys.
func (s *Shell) createIndex(coll string, def store.IndexDef) goja.Value {
	if s.opts.Engine != nil {
		change, err := s.schemaWriter().CreateIndexes(s.rctx(), coll, []store.IndexDef{def})
		s.must(err)
		s.note(change)
		return s.rt.ToValue(def.Name)
	}
	change := s.write("create_index", false, func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		if def.Kind == store.BTreeKind {
			_, err = c.CreateBTreeIndexes(def)
		} else {
			_, err = c.CreateIndex(def)
		}
		return err
	})
	s.note(change)
	return s.rt.ToValue(def.Name)
}
