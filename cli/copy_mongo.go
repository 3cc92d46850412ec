package cli

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/internal/failpoint"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/rules"
	"github.com/omgdb/omgdb/query/text"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// mongoBatchBytes bounds an insertMany batch by the size of its
// documents (as omgdb's JSON), besides its count.
const mongoBatchBytes = 16 << 20

// mongoEnd is a MongoDB database.
type mongoEnd struct {
	db    *mongoengine.DB
	batch int
	warn  func(format string, args ...any)
}

func (m *mongoEnd) where() string { return m.db.Target().Redacted }

func (m *mongoEnd) close() error { return m.db.Close() }

func (m *mongoEnd) collections(ctx context.Context) ([]string, error) {
	return m.db.Collections(ctx)
}

func (m *mongoEnd) scan(ctx context.Context, coll string, after value.Value, each func(value.Value) error) error {
	return m.db.Find(ctx, coll, &engine.Find{}, skipThrough(after, each))
}

func (m *mongoEnd) state(ctx context.Context, coll string) (bool, int64, value.Value, error) {
	ok, err := m.db.HasCollection(ctx, coll)
	if err != nil || !ok {
		return false, 0, value.Value{}, err
	}
	last, n, err := m.db.LastID(ctx, coll)
	return true, n, last, err
}

// defs reads a collection's definitions: omgdb's record of them when a
// copy wrote one (exact, whatever the server kept), else what the server
// says (its validator as rules {"validator": …}, its indexes converted).
func (m *mongoEnd) defs(ctx context.Context, coll string) (copyDefs, error) {
	var d copyDefs
	meta, err := m.db.CopyMeta(ctx, coll)
	if err != nil {
		return d, err
	}
	if r := meta.Get("rules"); r.Kind() == value.String {
		if d.rules, err = value.ParseString(r.Str()); err != nil {
			return d, errs.Errorf(errs.IO, "%s in %s: unreadable rules of `%s`: %v", mongoengine.CopyMetaCollection, m.where(), coll, err)
		}
	}
	if d.rules.IsMissing() {
		v, err := m.db.Validator(ctx, coll)
		if err != nil {
			return d, err
		}
		if !v.IsMissing() {
			d.rules = value.ObjectValue([]value.Field{{Key: "validator", Value: v}})
		}
	}
	recorded := map[string]store.IndexDef{}
	if ixs := meta.Get("indexes"); ixs.Kind() == value.String {
		var defs []store.IndexDef
		if err := json.Unmarshal([]byte(ixs.Str()), &defs); err != nil {
			return d, errs.Errorf(errs.IO, "%s in %s: unreadable indexes of `%s`: %v", mongoengine.CopyMetaCollection, m.where(), coll, err)
		}
		for _, def := range defs {
			recorded[def.Name] = def
		}
	}
	specs, err := m.db.IndexSpecs(ctx, coll)
	if err != nil {
		return d, err
	}
	for _, spec := range specs {
		def, ok := recorded[spec.Get("name").Str()]
		if !ok {
			if def, err = indexFromMongo(spec); err != nil {
				return d, errs.Errorf(errs.KindOf(err), "index `%s` of `%s` in %s: %v", spec.Get("name").Str(), coll, m.where(), err)
			}
		}
		d.indexes = append(d.indexes, def)
	}
	slices.SortFunc(d.indexes, func(a, b store.IndexDef) int { return strings.Compare(a.Name, b.Name) })
	return d, nil
}

// prepare creates the collection, when it does not exist, with its
// validator and indexes, before any document: an index the deployment
// cannot hold stops the copy there.
func (m *mongoEnd) prepare(ctx context.Context, coll string, defs copyDefs) error {
	specs := make([]value.Value, len(defs.indexes))
	for i, def := range defs.indexes {
		spec, err := indexToMongo(coll, def)
		if err != nil {
			return err
		}
		specs[i] = spec
	}
	exists, err := m.db.HasCollection(ctx, coll)
	if err != nil {
		return err
	}
	if !exists {
		validator, untranslated := rules.Validator(defs.rules)
		err := m.db.CreateCollection(ctx, coll, validator)
		if errors.Is(err, mongoengine.ErrNotImplemented) {
			m.warn("%v: its validation rules are kept in %s (a copy back restores them), and omgdb checks them on its own writes, but the server does not: writes made around omgdb are not checked there", err, mongoengine.CopyMetaCollection)
		} else if err != nil {
			return err
		} else if untranslated != "" {
			m.warn("the rules of `%s` have %s, which a MongoDB validator cannot express: kept in %s, where omgdb checks them on its own writes, but the server does not", coll, untranslated, mongoengine.CopyMetaCollection)
		}
	}
	for _, spec := range specs {
		if err := m.db.CreateIndex(ctx, coll, spec); err != nil {
			return err
		}
	}
	return nil
}

// abandon drops coll, which prepare created.
func (m *mongoEnd) abandon(ctx context.Context, coll string) error {
	return m.db.DropCollection(ctx, coll)
}

// write inserts the documents in ordered insertMany batches of m.batch
// documents (and at most mongoBatchBytes).
func (m *mongoEnd) write(ctx context.Context, coll string, feed func(each func(value.Value) error) error) (int64, error) {
	var written int64
	var buf []value.Value
	size := 0
	flush := func() error {
		// A batch in flight is not cancelled (Ctrl-C): the server might
		// insert it after the call gave up, and the count would be wrong.
		// It ends, and the copy stops before the next one.
		n, err := m.db.InsertMany(context.WithoutCancel(ctx), coll, buf)
		written += int64(n)
		buf, size = buf[:0], 0
		if err == nil {
			failpoint.Hit(failpoint.CopyBatch)
			err = ctx.Err()
		}
		return err
	}
	err := feed(func(doc value.Value) error {
		buf = append(buf, doc)
		size += len(value.JSON(doc))
		if len(buf) >= m.batch || size >= mongoBatchBytes {
			return flush()
		}
		return ctx.Err()
	})
	if err == nil && len(buf) > 0 {
		err = flush()
	}
	return written, err
}

// finish records omgdb's definitions of the collection in the database,
// as JSON text: a stored document cannot have the $-fields of a rule's
// validator.
func (m *mongoEnd) finish(ctx context.Context, coll string, defs copyDefs) error {
	fields := []value.Field{{Key: "_id", Value: value.StringValue(coll)}}
	if !defs.rules.IsMissing() {
		fields = append(fields, value.Field{Key: "rules", Value: value.StringValue(string(value.JSON(defs.rules)))})
	}
	ixs, err := json.Marshal(defs.indexes)
	if err != nil {
		return err
	}
	fields = append(fields, value.Field{Key: "indexes", Value: value.StringValue(string(ixs))})
	return m.db.SetCopyMeta(ctx, coll, value.ObjectValue(fields))
}

// indexToMongo returns the createIndexes specification of a store index:
// B-tree (with unique, sparse, collation; a 2dsphere field as
// "2dsphere") and text indexes. Vector and search indexes are omgdb's
// own and have none.
func indexToMongo(coll string, def store.IndexDef) (value.Value, error) {
	fields := []value.Field{{Key: "name", Value: value.StringValue(def.Name)}}
	switch def.Kind {
	case "btree":
		var spec store.BTreeSpec
		if err := json.Unmarshal(def.Spec, &spec); err != nil {
			return value.Value{}, err
		}
		key := make([]value.Field, len(spec.Fields))
		for i, f := range spec.Fields {
			dir := value.IntValue(1)
			switch {
			case f.Type == store.Geo2DSphere:
				dir = value.StringValue(store.Geo2DSphere)
			case f.Desc:
				dir = value.IntValue(-1)
			}
			key[i] = value.Field{Key: f.Path, Value: dir}
		}
		fields = append(fields, value.Field{Key: "key", Value: value.ObjectValue(key)})
		if spec.Unique {
			fields = append(fields, value.Field{Key: "unique", Value: value.BoolValue(true)})
		}
		if spec.Sparse {
			fields = append(fields, value.Field{Key: "sparse", Value: value.BoolValue(true)})
		}
		if len(spec.Collation) > 0 {
			c, err := value.Parse(spec.Collation)
			if err != nil {
				return value.Value{}, err
			}
			fields = append(fields, value.Field{Key: "collation", Value: c})
		}
		return value.ObjectValue(fields), nil
	case store.TextKind:
		var spec text.Spec
		if err := json.Unmarshal(def.Spec, &spec); err != nil {
			return value.Value{}, err
		}
		return textToMongo(fields, &spec), nil
	}
	return value.Value{}, errs.Errorf(errs.Invalid, "index `%s` of `%s` is a %s index, which is omgdb's own: MongoDB cannot hold it", def.Name, coll, def.Kind).
		WithHint("copy the other collections with --collections, or drop the index from the source (a copy of the store file keeps it)")
}

// textToMongo adds a text index's key and options to fields.
func textToMongo(fields []value.Field, spec *text.Spec) value.Value {
	names := make([]string, 0, len(spec.Weights))
	for k := range spec.Weights {
		names = append(names, k)
	}
	slices.Sort(names)
	var key, weights []value.Field
	for _, k := range names {
		key = append(key, value.Field{Key: k, Value: value.StringValue("text")})
		weights = append(weights, value.Field{Key: k, Value: value.DoubleValue(spec.Weights[k])})
	}
	if spec.Wildcard {
		key = append(key, value.Field{Key: "$**", Value: value.StringValue("text")})
	}
	return value.ObjectValue(append(fields,
		value.Field{Key: "key", Value: value.ObjectValue(key)},
		value.Field{Key: "weights", Value: value.ObjectValue(weights)},
		value.Field{Key: "default_language", Value: value.StringValue(spec.DefaultLanguage)},
		value.Field{Key: "language_override", Value: value.StringValue(spec.LanguageOverride)}))
}

// indexFromMongo converts a listIndexes entry the server holds (one no
// copy recorded) to a store index.
func indexFromMongo(spec value.Value) (store.IndexDef, error) {
	name := spec.Get("name").Str()
	key := spec.Get("key")
	if !key.Get("_fts").IsMissing() {
		var fields []string
		for _, f := range spec.Get("weights").Fields() {
			fields = append(fields, f.Key)
		}
		return store.TextIndexDef(name, fields, spec.Get("weights"), spec.Get("default_language").Str(), spec.Get("language_override").Str())
	}
	parsed, err := store.ParseKeyPattern(string(relaxed(engine.NormalizeKey(key))))
	if err != nil {
		return store.IndexDef{}, err
	}
	bt := store.BTreeSpec{Fields: parsed, Unique: truthy(spec.Get("unique")), Sparse: truthy(spec.Get("sparse"))}
	if c := spec.Get("collation"); !c.IsMissing() {
		coll, err := collation.Parse(c)
		if err != nil {
			return store.IndexDef{}, err
		}
		if coll != nil {
			bt.SetCollation(coll)
		}
	}
	return store.BTreeIndex(name, bt), nil
}

// truthy reads a boolean option that a server may keep as a number.
func truthy(v value.Value) bool {
	if v.IsNumber() {
		return v.Float() != 0
	}
	return v.Kind() == value.Bool && v.Bool()
}
