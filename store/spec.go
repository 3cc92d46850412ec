package store

import (
	"slices"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
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
func (tx *Tx) ApplySpec(spec value.Value) (*SpecReport, error) {
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
func CheckSpec(spec value.Value) error {
	_, err := parseSpec(spec)
	return err
}

type collSpec struct {
	name    string
	rules   value.Value
	indexes []indexSpec
}

type indexSpec struct {
	name string
	spec BTreeSpec
}

func parseSpec(spec value.Value) ([]collSpec, error) {
	colls := spec.Get("collections")
	if spec.Kind() != value.Object || colls.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "spec must contain a 'collections' object").
			WithHint(`write {"collections":{"users":{"required":["name"],"fields":{"age":"long"}}}}`)
	}
	for _, f := range spec.Fields() {
		if f.Key != "collections" {
			return nil, errs.Errorf(errs.Invalid, "spec: unknown key `%s`%s", f.Key, errs.DidYouMean(f.Key, []string{"collections"})).
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

func parseCollectionSpec(name string, v value.Value) (collSpec, error) {
	cs := collSpec{name: name}
	if err := ValidateCollectionName(name); err != nil {
		return cs, err
	}
	if v.Kind() != value.Object {
		return cs, errs.Errorf(errs.Invalid, "spec: collection `%s` must be an object, got %s", name, v.TypeName())
	}
	var rules []value.Field
	for _, f := range v.Fields() {
		switch f.Key {
		case "required", "fields":
			rules = append(rules, f)
		case "indexes":
			if f.Value.Kind() != value.Array {
				return cs, errs.Errorf(errs.Invalid, "spec: collection `%s`: indexes must be a list, got %s", name, f.Value.TypeName())
			}
			for _, e := range f.Value.Array() {
				is, err := indexSpecOf(name, e)
				if err != nil {
					return cs, err
				}
				cs.indexes = append(cs.indexes, is)
			}
		default:
			return cs, errs.Errorf(errs.Invalid, "spec: collection `%s`: unknown key `%s`%s", name, f.Key,
				errs.DidYouMean(f.Key, []string{"required", "fields", "indexes"})).
				WithHint("a collection's spec has the keys required, fields and indexes")
		}
	}
	cs.rules = value.ObjectValue(rules)
	if _, err := CompileRules(cs.rules); err != nil {
		return cs, errs.Errorf(errs.KindOf(err), "spec: collection `%s`: %v", name, err).WithHint("%s", errs.HintOf(err))
	}
	return cs, nil
}

func indexSpecOf(coll string, e value.Value) (indexSpec, error) {
	bad := func(format string, args ...any) error {
		return errs.Errorf(errs.Invalid, "spec: collection `%s`: index "+format, append([]any{coll}, args...)...).
			WithHint(`write "email" or {"fields":"age:-1,name","unique":true}`)
	}
	var is indexSpec
	var fields string
	switch e.Kind() {
	case value.String:
		fields = e.Str()
	case value.Object:
		for _, f := range e.Fields() {
			switch {
			case f.Key == "fields" && f.Value.Kind() == value.String:
				fields = f.Value.Str()
			case f.Key == "name" && f.Value.Kind() == value.String:
				is.name = f.Value.Str()
			case f.Key == "unique" && f.Value.Kind() == value.Bool:
				is.spec.Unique = f.Value.Bool()
			case f.Key == "sparse" && f.Value.Kind() == value.Bool:
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
		return is, errs.Errorf(errs.Invalid, "spec: collection `%s`: index %v", coll, err)
	}
	return is, nil
}

// SpecCollection is one collection of a spec, as ParseSpec reads it.
type SpecCollection struct {
	Name    string
	Rules   value.Value // {"required","fields"}, as the spec gives them
	Indexes []IndexDef  // the B-tree indexes, as ApplySpec creates them
}

// ParseSpec checks a spec as CheckSpec does and returns its collections,
// in the spec's order, for an engine other than a store file.
func ParseSpec(spec value.Value) ([]SpecCollection, error) {
	colls, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	out := make([]SpecCollection, len(colls))
	for i, cs := range colls {
		out[i] = SpecCollection{Name: cs.name, Rules: cs.rules}
		for _, is := range cs.indexes {
			out[i].Indexes = append(out[i].Indexes, BTreeIndex(is.name, is.spec))
		}
	}
	return out, nil
}
