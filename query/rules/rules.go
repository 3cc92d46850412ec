package rules

import (
	"regexp"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Rules (OMGDB's "define") constrain the documents of a
// collection. They are written as
//
//	{"required":["name"],
//	 "fields":{"age":"long",
//	           "status":{"type":"string","enum":["new","done"]},
//	           "score":{"type":"number","min":0,"max":100},
//	           "email":{"type":"string","pattern":"^[^@]+@[^@]+$"},
//	           "address.city":["string","null"]}}
//
// A required field must be present (null counts as present). A field with
// a rule may be absent unless required; when present, its value must have
// one of the types named ("number" is int, long, double or decimal; "long"
// takes an int too, an integer of 32 bits), be one of enum,
// lie within min and max (compared as filters compare, within the bound's
// type), and, for a string, match pattern (RE2, unanchored). Paths are
// dotted; an array along a path has the rule apply to each of its object
// elements. Rules are checked on every write of a document: insert,
// import, update, apply, revert.
//
// A third key, "validator", holds a MongoDB query filter every document
// must match, as a collection's validator in MongoDB: usually
// {"$jsonSchema":{…}}, or any query operators ($expr included).

// TypeNames are the type names rules accept: the types' $type aliases and
// "number".
var TypeNames = []string{"null", "bool", "int", "long", "double", "decimal", "string", "binData", "array", "object",
	"objectId", "date", "timestamp", "regex", "minKey", "maxKey", "number"}

// Rules are a collection's compiled validation rules.
type Rules struct {
	spec      value.Value // as given, canonical
	required  []string
	fields    []fieldRule          // sorted by path
	validator *query.Filter        // nil: none
	collation *collation.Collation // the collection's default; nil: simple
}

type fieldRule struct {
	path    string
	parts   []string
	types   []string // empty: any type
	enum    []value.Value
	min     value.Value
	max     value.Value
	pattern *regexp.Regexp
}

// Spec returns the rules as written, with canonical JSON.
func (r *Rules) Spec() value.Value { return r.spec }

// Compile checks a rules document and compiles it. The empty
// document (or missing) is no rules, and returns nil.
func Compile(spec value.Value) (*Rules, error) {
	if spec.IsMissing() || (spec.Kind() == value.Object && spec.Len() == 0) {
		return nil, nil
	}
	if spec.Kind() != value.Object {
		return nil, ruleErr("rules must be an object such as {\"required\":[\"name\"],\"fields\":{\"age\":\"long\"}}, got %s", spec.TypeName())
	}
	r := &Rules{spec: spec}
	for _, f := range spec.Fields() {
		var err error
		switch f.Key {
		case "required":
			err = r.compileRequired(f.Value)
		case "fields":
			err = r.compileFields(f.Value)
		case "validator":
			err = r.compileValidator(f.Value)
		case "collation":
			err = r.compileCollation(f.Value)
		default:
			return nil, ruleErr("unknown key `%s`%s", f.Key, errs.DidYouMean(f.Key, []string{"required", "fields", "validator", "collation"})).
				WithHint("rules have four keys: required (a list of fields), fields (a rule per field), validator (a MongoDB filter such as {\"$jsonSchema\":{…}}) and collation (the collection's default collation)")
		}
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(r.fields, func(i, j int) bool { return r.fields[i].path < r.fields[j].path })
	return r, nil
}

// compileValidator compiles a validator: a query filter object.
func (r *Rules) compileValidator(v value.Value) error {
	if v.Kind() != value.Object {
		return ruleErr("`validator` must be a filter object such as {\"$jsonSchema\":{\"required\":[\"name\"]}}, got %s", v.TypeName())
	}
	f, err := query.CompileFilter(v)
	if err != nil {
		return ruleErr("`validator`: %v", err).WithHint("%s", errs.HintOf(err))
	}
	r.validator = f
	return nil
}

func ruleErr(format string, args ...any) *errs.Error {
	return errs.Errorf(errs.Invalid, "invalid rules: "+format, args...)
}

func (r *Rules) compileRequired(v value.Value) error {
	if v.Kind() != value.Array {
		return ruleErr("required must be a list of field names, got %s", v.TypeName())
	}
	for _, e := range v.Array() {
		if e.Kind() != value.String {
			return ruleErr("required must list field names as strings, got %s", e)
		}
		if err := CheckPath(e.Str()); err != nil {
			return ruleErr("required field %s: %v", e, err)
		}
		r.required = append(r.required, e.Str())
	}
	return nil
}

func (r *Rules) compileFields(v value.Value) error {
	if v.Kind() != value.Object {
		return ruleErr("fields must be an object of field rules, got %s", v.TypeName())
	}
	for _, f := range v.Fields() {
		if err := CheckPath(f.Key); err != nil {
			return ruleErr("field %q: %v", f.Key, err)
		}
		fr, err := compileFieldRule(f.Key, f.Value)
		if err != nil {
			return err
		}
		r.fields = append(r.fields, fr)
	}
	return nil
}

func compileFieldRule(path string, v value.Value) (fieldRule, error) {
	fr := fieldRule{path: path, parts: strings.Split(path, ".")}
	if v.Kind() != value.Object {
		types, err := compileTypes(path, v)
		fr.types = types
		return fr, err
	}
	for _, f := range v.Fields() {
		var err error
		switch f.Key {
		case "type":
			fr.types, err = compileTypes(path, f.Value)
		case "enum":
			if f.Value.Kind() != value.Array || f.Value.Len() == 0 {
				err = ruleErr("field `%s`: enum must be a non-empty list of values", path)
			}
			fr.enum = f.Value.Array()
		case "min":
			fr.min = f.Value
		case "max":
			fr.max = f.Value
		case "pattern":
			if f.Value.Kind() != value.String {
				return fr, ruleErr("field `%s`: pattern must be a string", path)
			}
			if fr.pattern, err = regexp.Compile(f.Value.Str()); err != nil {
				err = ruleErr("field `%s`: pattern %s: %v", path, f.Value, err)
			}
		default:
			err = ruleErr("field `%s`: unknown key `%s`%s", path, f.Key, errs.DidYouMean(f.Key, []string{"type", "enum", "min", "max", "pattern"})).
				WithHint("a field rule has the keys type, enum, min, max and pattern")
		}
		if err != nil {
			return fr, err
		}
	}
	return fr, nil
}

// compileTypes reads "long" or ["string","null"].
func compileTypes(path string, v value.Value) ([]string, error) {
	names := []value.Value{v}
	if v.Kind() == value.Array {
		names = v.Array()
	}
	var out []string
	for _, n := range names {
		if n.Kind() != value.String {
			return nil, ruleErr("field `%s`: a type is a name such as \"long\", got %s", path, n)
		}
		if err := checkTypeName(n.Str()); err != nil {
			return nil, ruleErr("field `%s`: %v", path, err).WithHint("%s", errs.HintOf(err))
		}
		out = append(out, n.Str())
	}
	return out, nil
}

func checkTypeName(name string) error {
	for _, t := range TypeNames {
		if t == name {
			return nil
		}
	}
	switch strings.ToLower(name) {
	case "integer", "int32", "int64":
		return errs.Errorf(errs.Invalid, "unknown type name `%s`: integers are `int` (32 bits) or `long` (64 bits)", name).
			WithHint("use `int`, `long`, or `number` for any number")
	case "float":
		return errs.Errorf(errs.Invalid, "unknown type name `%s`: use `double`, `decimal` or `number`", name)
	}
	return errs.Errorf(errs.Invalid, "unknown type name `%s`%s", name, errs.DidYouMean(name, TypeNames)).
		WithHint("types are %s", strings.Join(TypeNames, ", "))
}

// typeMatches reports whether v has the named type. "long" takes an int
// too: the rule means an integer, and insert and import store a plain
// integer that fits in 32 bits as an int, as mongoimport does, where
// omgdb before int32 stored a long ($jsonSchema's bsonType "long" stays
// exact, as in MongoDB).
func typeMatches(name string, v value.Value) bool {
	switch name {
	case "number":
		return v.IsNumber()
	case "long":
		return v.Kind() == value.Long || v.Kind() == value.Int
	}
	return v.TypeName() == name
}

// compileCollation reads the "collation" key of rules.
func (r *Rules) compileCollation(v value.Value) error {
	coll, err := collation.Parse(v)
	if err != nil {
		return ruleErr("`collation`: %v", err).WithHint("%s", errs.HintOf(err))
	}
	r.collation = coll
	return nil
}

// Collation returns the collection's default collation of the rules, or
// nil (simple). A nil Rules has none.
func (r *Rules) Collation() *collation.Collation {
	if r == nil {
		return nil
	}
	return r.collation
}

// CheckPath checks a field path of a rule or an index: not empty, no
// empty component, no component starting with '$'.
func CheckPath(path string) error {
	if path == "" {
		return errs.Errorf(errs.Usage, "index field path is empty").
			WithHint("name the fields: create-index <store> <coll> age,name:-1")
	}
	for _, p := range strings.Split(path, ".") {
		switch {
		case p == "":
			return errs.Errorf(errs.Usage, "index field path `%s` has an empty component", path)
		case strings.HasPrefix(p, "$"):
			return errs.Errorf(errs.Usage, "index field path `%s`: field names may not start with '$'", path)
		}
	}
	return nil
}
