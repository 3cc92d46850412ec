package store

import (
	"slices"

	"github.com/omgdb/omgdb/query"
)

// A store spec declares collections, their validation rules and indexes,
// as `omgdb create --from` and `omgdb define --from` read it:
//
//	{"collections":{
//	   "users":{"required":["name"],"fields":{"age":"long"},
//	            "indexes":["email:1",{"fields":"age:-1,name","unique":true,"sparse":false,"name":"by_age"}]}}}
//
// required and fields are the collection's rules (see CompileRules);
// indexes, an omgdb extension, lists B-tree indexes by their fields as
// create-index takes them, or as objects with options.

// SpecReport says what ApplySpec did.
type SpecReport struct {
	Collections []string        `json:"collections"` // in the spec's order
	Rules       []*DefineReport `json:"rules"`
	Indexes     []string        `json:"indexes"` // "coll.name" of each index created
}

// ApplySpec creates the collections of a spec that do not exist, sets the
// rules of each (replacing any), and creates the indexes that do not exist
// yet, all in tx. The whole spec is checked (CheckSpec) before anything is
// written.
func (tx *Tx) ApplySpec(spec query.Value) (*SpecReport, error) {
	colls, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	rep := &SpecReport{Collections: []string{}, Rules: []*DefineReport{}, Indexes: []string{}}
	for _, cs := range colls {
		c, err := tx.CreateCollection(cs.name)
		if err != nil {
			return nil, err
		}
		rep.Collections = append(rep.Collections, cs.name)
		dr, err := c.Define(cs.rules)
		if err != nil {
			return nil, err
		}
		rep.Rules = append(rep.Rules, dr)
		// The indexes that do not exist yet, built in one scan.
		var defs []IndexDef
		var seen [][]IndexField
		for _, is := range cs.indexes {
			if c.FindBTreeIndex(is.spec.Fields) != "" || slices.ContainsFunc(seen, func(f []IndexField) bool { return slices.Equal(f, is.spec.Fields) }) {
				continue
			}
			seen = append(seen, is.spec.Fields)
			defs = append(defs, BTreeIndex(is.name, is.spec))
		}
		ixs, err := c.CreateBTreeIndexes(defs...)
		if err != nil {
			return nil, err
		}
		for _, ix := range ixs {
			rep.Indexes = append(rep.Indexes, c.name+"."+ix.Def.Name)
		}
	}
	return rep, nil
}

// CheckSpec checks a spec without a store: its shape, every collection
// name, rule and index.
func CheckSpec(spec query.Value) error {
	_, err := parseSpec(spec)
	return err
}

type collSpec struct {
	name    string
	rules   query.Value
	indexes []indexSpec
}

type indexSpec struct {
	name string
	spec BTreeSpec
}

func parseSpec(spec query.Value) ([]collSpec, error) {
	colls := spec.Get("collections")
	if spec.Kind() != query.Object || colls.Kind() != query.Object {
		return nil, query.Errorf(query.Invalid, "spec must contain a 'collections' object").
			WithHint(`write {"collections":{"users":{"required":["name"],"fields":{"age":"long"}}}}`)
	}
	for _, f := range spec.Fields() {
		if f.Key != "collections" {
			return nil, query.Errorf(query.Invalid, "spec: unknown key `%s`%s", f.Key, query.DidYouMean(f.Key, []string{"collections"})).
				WithHint("a spec has one key, collections")
		}
	}
	var out []collSpec
	for _, f := range colls.Fields() {
		cs, err := parseCollectionSpec(f.Key, f.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, cs)
	}
	return out, nil
}

func parseCollectionSpec(name string, v query.Value) (collSpec, error) {
	cs := collSpec{name: name}
	if err := ValidateCollectionName(name); err != nil {
		return cs, err
	}
	if v.Kind() != query.Object {
		return cs, query.Errorf(query.Invalid, "spec: collection `%s` must be an object, got %s", name, v.TypeName())
	}
	var rules []query.Field
	for _, f := range v.Fields() {
		switch f.Key {
		case "required", "fields":
			rules = append(rules, f)
		case "indexes":
			if f.Value.Kind() != query.Array {
				return cs, query.Errorf(query.Invalid, "spec: collection `%s`: indexes must be a list, got %s", name, f.Value.TypeName())
			}
			for _, e := range f.Value.Array() {
				is, err := indexSpecOf(name, e)
				if err != nil {
					return cs, err
				}
				cs.indexes = append(cs.indexes, is)
			}
		default:
			return cs, query.Errorf(query.Invalid, "spec: collection `%s`: unknown key `%s`%s", name, f.Key,
				query.DidYouMean(f.Key, []string{"required", "fields", "indexes"})).
				WithHint("a collection's spec has the keys required, fields and indexes")
		}
	}
	cs.rules = query.ObjectValue(rules)
	if _, err := CompileRules(cs.rules); err != nil {
		return cs, query.Errorf(query.KindOf(err), "spec: collection `%s`: %v", name, err).WithHint("%s", query.HintOf(err))
	}
	return cs, nil
}

func indexSpecOf(coll string, e query.Value) (indexSpec, error) {
	bad := func(format string, args ...any) error {
		return query.Errorf(query.Invalid, "spec: collection `%s`: index "+format, append([]any{coll}, args...)...).
			WithHint(`write "email" or {"fields":"age:-1,name","unique":true}`)
	}
	var is indexSpec
	var fields string
	switch e.Kind() {
	case query.String:
		fields = e.Str()
	case query.Object:
		for _, f := range e.Fields() {
			switch {
			case f.Key == "fields" && f.Value.Kind() == query.String:
				fields = f.Value.Str()
			case f.Key == "name" && f.Value.Kind() == query.String:
				is.name = f.Value.Str()
			case f.Key == "unique" && f.Value.Kind() == query.Bool:
				is.spec.Unique = f.Value.Bool()
			case f.Key == "sparse" && f.Value.Kind() == query.Bool:
				is.spec.Sparse = f.Value.Bool()
			default:
				return is, bad("key `%s` (%s) is not fields, name, unique or sparse of the right type", f.Key, f.Value.TypeName())
			}
		}
	default:
		return is, bad("must be a string or an object, got %s", e.TypeName())
	}
	var err error
	if is.spec.Fields, err = ParseKeyPattern(fields); err != nil {
		return is, err
	}
	if err := is.spec.validate(); err != nil {
		return is, query.Errorf(query.Invalid, "spec: collection `%s`: index %v", coll, err)
	}
	return is, nil
}
