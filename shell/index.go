package shell

import (
	"slices"
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
			s.checkIndexOptions("createIndex", opts)
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

// btreeIndexOptions are the options createIndex and createIndexes take for
// a B-tree index; background is accepted as MongoDB accepts it since 4.2,
// where it has no effect.
var btreeIndexOptions = []string{"name", "unique", "sparse", "background"}

// checkIndexOptions refuses an option of a B-tree index that omgdb does
// not build (collation, partialFilterExpression, expireAfterSeconds, …)
// or of the wrong type, rather than create an index without it.
func (s *Shell) checkIndexOptions(method string, opts value.Value) {
	for _, f := range opts.Fields() {
		switch {
		case f.Key == "collation":
			s.throw(errs.Errorf(errs.Usage, "%s does not take a collation in the shell", method).
				WithHint("create the index with `omgdb create-index --collation`"))
		case !slices.Contains(btreeIndexOptions, f.Key):
			s.throw(errs.Errorf(errs.Invalid, "%s: unknown option %s%s", method, f.Key, errs.DidYouMean(f.Key, btreeIndexOptions)).
				WithHint("an index takes {name: 'age_1', unique: true, sparse: true}; omgdb builds no partial, TTL, hidden or wildcard index"))
		case f.Key == "name" && f.Value.Kind() != value.String:
			s.throw(errs.Errorf(errs.Invalid, "%s: name must be a string, got %s", method, f.Value.TypeName()).
				WithHint("{name: 'age_1'}"))
		case (f.Key == "unique" || f.Key == "sparse" || f.Key == "background") && f.Value.Kind() != value.Bool:
			s.throw(errs.Errorf(errs.Invalid, "%s: %s must be true or false, got %s", method, f.Key, f.Value.TypeName()).
				WithHint("{%s: true}", f.Key))
		}
	}
}
