package mongoengine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// IndexName is MongoDB's default name of an index with key: each field
// and its direction or kind, joined by "_" (age_1_name_-1, title_text).
func IndexName(key value.Value) string {
	var parts []string
	for _, f := range key.Fields() {
		v := f.Value
		switch {
		case v.Kind() == value.String:
			parts = append(parts, f.Key, v.Str())
		case v.IsNumber():
			parts = append(parts, f.Key, fmt.Sprint(v.Long()))
		default:
			parts = append(parts, f.Key, v.String())
		}
	}
	return strings.Join(parts, "_")
}

// CreateIndexes creates indexes on coll from their createIndexes
// specifications ({key, name, unique, sparse, partialFilterExpression,
// weights, …}; a missing name gets IndexName), in one journaled change:
// rollback drops them. An index whose name is taken is a conflict, and
// so is a unique index the documents break; either way no index of the
// call is left.
func (d *DB) CreateIndexes(ctx context.Context, coll string, specs []value.Value, actor string) (*SchemaResult, error) {
	if err := writable(coll); err != nil {
		return nil, err
	}
	if _, err := d.collection(ctx, coll); err != nil {
		return nil, err
	}
	have, err := d.IndexSpecs(ctx, coll)
	if err != nil {
		return nil, err
	}
	names := []string{"_id_"}
	for _, h := range have {
		names = append(names, h.Get("name").Str())
	}
	sc := &schemaChange{id: bson.NewObjectID(), kind: KindCreateIndex, coll: coll, actor: actor}
	res := &SchemaResult{ChangeID: sc.id.Hex(), Kind: KindCreateIndex, Collection: coll}
	for _, spec := range specs {
		spec = named(spec)
		name := spec.Get("name").Str()
		if slices.Contains(names, name) {
			return nil, errs.Errorf(errs.Conflict, "index `%s` already exists on collection `%s`", name, coll).
				WithHint("drop it first, or choose another --name")
		}
		names = append(names, name)
		res.IndexNames = append(res.IndexNames, name)
		sc.steps = append(sc.steps, step{Op: stepCreateIndex, Coll: coll, Spec: spec})
	}
	sc.note = "create_index " + coll + " " + strings.Join(res.IndexNames, ",")
	sc.extra = bson.D{{Key: "indexes", Value: int64(len(specs))}}
	if err := d.runSchema(ctx, sc); err != nil {
		return nil, err
	}
	return res, nil
}

// named gives spec its default name when it has none.
func named(spec value.Value) value.Value {
	if spec.Get("name").Str() != "" {
		return spec
	}
	fields := append([]value.Field{}, spec.Fields()...)
	return value.ObjectValue(append(fields, value.Field{Key: "name", Value: value.StringValue(IndexName(spec.Get("key")))}))
}

// DropIndex drops coll's index named name, or (when no index has that
// name and key is not Missing) the index whose key pattern is key, in
// one journaled change that keeps its specification: rollback creates
// it again. The _id index cannot be dropped.
func (d *DB) DropIndex(ctx context.Context, coll, name string, key value.Value, actor string) (*SchemaResult, error) {
	if err := writable(coll); err != nil {
		return nil, err
	}
	if _, err := d.collection(ctx, coll); err != nil {
		return nil, err
	}
	if name == "_id_" {
		return nil, errs.Errorf(errs.Invalid, "cannot drop the _id index of `%s`", coll).
			WithHint("every collection keeps its _id index; drop another index, or the collection")
	}
	specs, err := d.IndexSpecs(ctx, coll)
	if err != nil {
		return nil, err
	}
	spec, ok := findIndex(specs, name, key)
	if !ok {
		return nil, d.noIndex(coll, name, specs)
	}
	return d.dropSpecs(ctx, coll, []value.Value{spec}, actor)
}

// DropIndexes drops coll's indexes named in names, or every index but
// _id_ when names is nil, in one journaled change that keeps their
// specifications. A name coll has no index of is NotFound, and nothing
// is dropped. With no index to drop, nothing is journaled (ChangeID "").
func (d *DB) DropIndexes(ctx context.Context, coll string, names []string, actor string) (res *SchemaResult, was int, err error) {
	if err := writable(coll); err != nil {
		return nil, 0, err
	}
	if _, err := d.collection(ctx, coll); err != nil {
		return nil, 0, err
	}
	specs, err := d.IndexSpecs(ctx, coll)
	if err != nil {
		return nil, 0, err
	}
	drop := specs
	if names != nil {
		drop = nil
		for _, name := range names {
			if name == "_id_" {
				return nil, 0, errs.Errorf(errs.Invalid, "cannot drop the _id index of `%s`", coll).
					WithHint("every collection keeps its _id index; drop another index, or the collection")
			}
			spec, ok := findIndex(specs, name, value.Value{})
			if !ok {
				return nil, 0, d.noIndex(coll, name, specs)
			}
			drop = append(drop, spec)
		}
	}
	if len(drop) == 0 {
		return &SchemaResult{Kind: KindDropIndex, Collection: coll}, len(specs) + 1, nil
	}
	res, err = d.dropSpecs(ctx, coll, drop, actor)
	return res, len(specs) + 1, err
}

// dropSpecs drops the indexes of specs in one change.
func (d *DB) dropSpecs(ctx context.Context, coll string, specs []value.Value, actor string) (*SchemaResult, error) {
	sc := &schemaChange{id: bson.NewObjectID(), kind: KindDropIndex, coll: coll, actor: actor}
	res := &SchemaResult{ChangeID: sc.id.Hex(), Kind: KindDropIndex, Collection: coll}
	for _, spec := range specs {
		spec = createSpec(spec)
		res.IndexNames = append(res.IndexNames, spec.Get("name").Str())
		sc.steps = append(sc.steps, step{Op: stepDropIndex, Coll: coll, Spec: spec})
	}
	sc.note = "drop_index " + coll + " " + strings.Join(res.IndexNames, ",")
	sc.extra = bson.D{{Key: "indexes", Value: int64(len(specs))}}
	if err := d.runSchema(ctx, sc); err != nil {
		return nil, err
	}
	return res, nil
}

// noIndex is the error of an index coll does not have.
func (d *DB) noIndex(coll, name string, specs []value.Value) error {
	var names []string
	for _, s := range specs {
		names = append(names, s.Get("name").Str())
	}
	return errs.Errorf(errs.NotFound, "no index `%s` on collection `%s`%s", name, coll, errs.DidYouMean(name, names)).
		WithHint("list indexes with `omgdb indexes %s %s`", d.target.Redacted, coll)
}

// findIndex finds an index by name, or else by key pattern.
func findIndex(specs []value.Value, name string, key value.Value) (value.Value, bool) {
	for _, s := range specs {
		if s.Get("name").Str() == name {
			return s, true
		}
	}
	if key.IsMissing() {
		return value.Value{}, false
	}
	want := engine.NormalizeKey(key)
	for _, s := range specs {
		if value.Compare(engine.NormalizeKey(s.Get("key")), want) == 0 && sameKeyOrder(engine.NormalizeKey(s.Get("key")), want) {
			return s, true
		}
	}
	return value.Value{}, false
}

func sameKeyOrder(a, b value.Value) bool {
	af, bf := a.Fields(), b.Fields()
	if len(af) != len(bf) {
		return false
	}
	for i := range af {
		if af[i].Key != bf[i].Key {
			return false
		}
	}
	return true
}

// createSpec is a listIndexes entry as createIndexes takes it back: the
// version and namespace the server adds are left out.
func createSpec(spec value.Value) value.Value {
	var fields []value.Field
	for _, f := range spec.Fields() {
		if f.Key != "v" && f.Key != "ns" {
			fields = append(fields, f)
		}
	}
	return value.ObjectValue(fields)
}
