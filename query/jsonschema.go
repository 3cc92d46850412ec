package query

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $jsonSchema: the subset of JSON Schema draft 4 that MongoDB supports,
// with its bsonType keyword, as a filter (top level, or inside $and, $or
// and $nor) and as a collection's validator (store rules). A keyword that
// constrains one type (minimum, maxLength, properties, items, …) passes
// values of other types, as in JSON Schema; properties are matched as
// they are, without the filter language's traversal of arrays.

// jsonSchema is a compiled schema.
type jsonSchema struct {
	bsonTypes   []string // allowed $type names ("number": any number), nil: any
	enum        []value.Value
	min, max    *float64
	exclMin     bool
	exclMax     bool
	multipleOf  float64 // 0: none
	minLen      int
	maxLen      int // -1: none
	pattern     *regexp.Regexp
	required    []string
	properties  map[string]*jsonSchema
	patternProp []patternSchema
	additional  *jsonSchema // nil: any; see noAdditional
	noAddition  bool        // additionalProperties: false
	minProps    int
	maxProps    int // -1: none
	depends     map[string]jsonDependency
	items       *jsonSchema   // one schema for every element
	itemList    []*jsonSchema // a schema per position
	addItems    *jsonSchema
	noAddItems  bool
	minItems    int
	maxItems    int // -1: none
	uniqueItems bool
	allOf       []*jsonSchema
	anyOf       []*jsonSchema
	oneOf       []*jsonSchema
	not         *jsonSchema
}

type patternSchema struct {
	re *regexp.Regexp
	s  *jsonSchema
}

// jsonDependency is what a present field requires: other fields, or that
// the document match a schema.
type jsonDependency struct {
	fields []string
	schema *jsonSchema
}

// jsonTypes maps JSON Schema's "type" names to $type names.
var jsonTypes = map[string][]string{
	"object": {"object"}, "array": {"array"}, "number": {"number"}, "boolean": {"bool"},
	"string": {"string"}, "null": {"null"},
}

// bsonTypeNames are the names bsonType accepts.
var bsonTypeNames = []string{"double", "string", "object", "array", "binData", "undefined", "objectId", "bool", "date",
	"null", "regex", "dbPointer", "javascript", "symbol", "javascriptWithScope", "int", "timestamp", "long", "decimal",
	"minKey", "maxKey", "number"}

var schemaKeywords = []string{"bsonType", "type", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"multipleOf", "minLength", "maxLength", "pattern", "required", "properties", "patternProperties",
	"additionalProperties", "minProperties", "maxProperties", "dependencies", "items", "additionalItems",
	"minItems", "maxItems", "uniqueItems", "allOf", "anyOf", "oneOf", "not", "title", "description"}

// unsupportedKeywords are draft 4 keywords MongoDB refuses.
var unsupportedKeywords = []string{"$ref", "$schema", "default", "definitions", "format", "id"}

func schemaError(format string, a ...any) *errs.Error {
	return errs.Errorf(errs.Invalid, "$jsonSchema: "+format, a...).
		WithHint(`write {"$jsonSchema":{"bsonType":"object","required":["name"],"properties":{"age":{"bsonType":"long","minimum":0}}}}`)
}

// compileJSONSchema compiles a schema object.
func compileJSONSchema(spec value.Value) (*jsonSchema, error) {
	if spec.Kind() != value.Object {
		return nil, schemaError("a schema must be an object, found %s", spec)
	}
	s := &jsonSchema{maxLen: -1, maxProps: -1, maxItems: -1}
	for _, f := range spec.Fields() {
		if slices.Contains(unsupportedKeywords, f.Key) {
			return nil, schemaError("keyword '%s' is not supported", f.Key)
		}
		if !slices.Contains(schemaKeywords, f.Key) {
			return nil, schemaError("unknown keyword '%s'%s", f.Key, errs.DidYouMean(f.Key, schemaKeywords))
		}
		if err := s.keyword(f.Key, f.Value, spec); err != nil {
			return nil, err
		}
	}
	if s.itemList == nil && (s.addItems != nil || s.noAddItems) {
		s.addItems, s.noAddItems = nil, false // additionalItems applies only with an items array
	}
	return s, nil
}

func (s *jsonSchema) keyword(k string, v, spec value.Value) error {
	var err error
	switch k {
	case "bsonType", "type":
		if !spec.Get("bsonType").IsMissing() && !spec.Get("type").IsMissing() {
			return schemaError("'type' and 'bsonType' may not be used together")
		}
		return s.types(k, v)
	case "enum":
		if v.Kind() != value.Array || v.Len() == 0 {
			return schemaError("'enum' must be a non-empty array, found %s", v)
		}
		s.enum = v.Array()
	case "minimum", "maximum":
		if !v.IsNumber() {
			return schemaError("'%s' must be a number, found %s", k, v)
		}
		f := v.Float()
		if k == "minimum" {
			s.min = &f
		} else {
			s.max = &f
		}
	case "exclusiveMinimum", "exclusiveMaximum":
		if v.Kind() != value.Bool {
			return schemaError("'%s' must be a boolean, found %s", k, v)
		}
		other := map[string]string{"exclusiveMinimum": "minimum", "exclusiveMaximum": "maximum"}[k]
		if spec.Get(other).IsMissing() {
			return schemaError("'%s' needs '%s'", k, other)
		}
		if k == "exclusiveMinimum" {
			s.exclMin = v.Bool()
		} else {
			s.exclMax = v.Bool()
		}
	case "multipleOf":
		if !v.IsNumber() || !(v.Float() > 0) {
			return schemaError("'multipleOf' must be a positive number, found %s", v)
		}
		s.multipleOf = v.Float()
	case "minLength", "maxLength", "minProperties", "maxProperties", "minItems", "maxItems":
		n, ok := expr.ExactInt(v)
		if !ok || !v.IsNumber() || n < 0 || n > math.MaxInt32 {
			return schemaError("'%s' must be a non-negative integer, found %s", k, v)
		}
		*map[string]*int{"minLength": &s.minLen, "maxLength": &s.maxLen, "minProperties": &s.minProps,
			"maxProperties": &s.maxProps, "minItems": &s.minItems, "maxItems": &s.maxItems}[k] = int(n)
	case "pattern":
		if v.Kind() != value.String {
			return schemaError("'pattern' must be a string, found %s", v)
		}
		s.pattern, err = expr.CompileRegex(v.Str(), "")
	case "required":
		s.required, err = stringList(k, v)
	case "properties":
		s.properties, err = schemaMap(k, v)
	case "patternProperties":
		var m map[string]*jsonSchema
		if m, err = schemaMap(k, v); err == nil {
			for _, f := range v.Fields() {
				re, err := expr.CompileRegex(f.Key, "")
				if err != nil {
					return err
				}
				s.patternProp = append(s.patternProp, patternSchema{re, m[f.Key]})
			}
		}
	case "additionalProperties", "additionalItems":
		var sub *jsonSchema
		no := false
		switch {
		case v.Kind() == value.Bool:
			no = !v.Bool()
		case v.Kind() == value.Object:
			sub, err = compileJSONSchema(v)
		default:
			return schemaError("'%s' must be a boolean or a schema, found %s", k, v)
		}
		if k == "additionalProperties" {
			s.additional, s.noAddition = sub, no
		} else {
			s.addItems, s.noAddItems = sub, no
		}
	case "dependencies":
		err = s.dependencies(v)
	case "items":
		switch v.Kind() {
		case value.Object:
			s.items, err = compileJSONSchema(v)
		case value.Array:
			s.itemList, err = schemaList(k, v)
			if s.itemList == nil {
				s.itemList = []*jsonSchema{}
			}
		default:
			return schemaError("'items' must be a schema or an array of schemas, found %s", v)
		}
	case "uniqueItems":
		if v.Kind() != value.Bool {
			return schemaError("'uniqueItems' must be a boolean, found %s", v)
		}
		s.uniqueItems = v.Bool()
	case "allOf", "anyOf", "oneOf":
		var list []*jsonSchema
		if v.Kind() != value.Array || v.Len() == 0 {
			return schemaError("'%s' must be a non-empty array of schemas, found %s", k, v)
		}
		if list, err = schemaList(k, v); err == nil {
			*map[string]*[]*jsonSchema{"allOf": &s.allOf, "anyOf": &s.anyOf, "oneOf": &s.oneOf}[k] = list
		}
	case "not":
		s.not, err = compileJSONSchema(v)
	case "title", "description":
		if v.Kind() != value.String {
			return schemaError("'%s' must be a string, found %s", k, v)
		}
	}
	return err
}

func (s *jsonSchema) types(k string, v value.Value) error {
	names := []value.Value{v}
	if v.Kind() == value.Array {
		if v.Len() == 0 {
			return schemaError("'%s' must name at least one type", k)
		}
		names = v.Array()
	}
	for _, n := range names {
		if n.Kind() != value.String {
			return schemaError("'%s' must be a type name or an array of them, found %s", k, n)
		}
		if k == "type" {
			t, ok := jsonTypes[n.Str()]
			if !ok {
				if n.Str() == "integer" {
					return schemaError("type 'integer' is not supported: use {\"bsonType\":[\"int\",\"long\"]}")
				}
				return schemaError("unknown type name '%s'", n.Str())
			}
			s.bsonTypes = append(s.bsonTypes, t...)
			continue
		}
		if !slices.Contains(bsonTypeNames, n.Str()) {
			return schemaError("unknown bsonType '%s'%s", n.Str(), errs.DidYouMean(n.Str(), bsonTypeNames))
		}
		s.bsonTypes = append(s.bsonTypes, n.Str())
	}
	return nil
}

func (s *jsonSchema) dependencies(v value.Value) error {
	if v.Kind() != value.Object {
		return schemaError("'dependencies' must be an object, found %s", v)
	}
	s.depends = map[string]jsonDependency{}
	for _, f := range v.Fields() {
		var d jsonDependency
		var err error
		switch f.Value.Kind() {
		case value.Array:
			d.fields, err = stringList("dependencies", f.Value)
		case value.Object:
			d.schema, err = compileJSONSchema(f.Value)
		default:
			return schemaError("a dependency must be an array of field names or a schema, found %s", f.Value)
		}
		if err != nil {
			return err
		}
		s.depends[f.Key] = d
	}
	return nil
}

func stringList(k string, v value.Value) ([]string, error) {
	if v.Kind() != value.Array || v.Len() == 0 {
		return nil, schemaError("'%s' must be a non-empty array of strings, found %s", k, v)
	}
	var out []string
	for _, e := range v.Array() {
		if e.Kind() != value.String {
			return nil, schemaError("'%s' must hold strings, found %s", k, e)
		}
		if slices.Contains(out, e.Str()) {
			return nil, schemaError("'%s' names %q twice", k, e.Str())
		}
		if strings.ContainsRune(e.Str(), 0) {
			return nil, schemaError("'%s' holds a field name with a null byte: %q", k, e.Str())
		}
		out = append(out, e.Str())
	}
	return out, nil
}

func schemaMap(k string, v value.Value) (map[string]*jsonSchema, error) {
	if v.Kind() != value.Object {
		return nil, schemaError("'%s' must be an object of schemas, found %s", k, v)
	}
	m := map[string]*jsonSchema{}
	for _, f := range v.Fields() {
		s, err := compileJSONSchema(f.Value)
		if err != nil {
			return nil, err
		}
		m[f.Key] = s
	}
	return m, nil
}

func schemaList(k string, v value.Value) ([]*jsonSchema, error) {
	var out []*jsonSchema
	for _, e := range v.Array() {
		s, err := compileJSONSchema(e)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// valid reports whether v satisfies the schema.
func (s *jsonSchema) valid(v value.Value) bool {
	if s.bsonTypes != nil && !slices.ContainsFunc(s.bsonTypes, func(t string) bool { return hasType(v, t) }) {
		return false
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e value.Value) bool { return sameValue(e, v) }) {
		return false
	}
	ok := true
	switch {
	case v.IsNumber():
		ok = s.validNumber(v.Float())
	case v.Kind() == value.String:
		ok = s.validString(v.Str())
	case v.Kind() == value.Object:
		ok = s.validObject(v)
	case v.Kind() == value.Array:
		ok = s.validArray(v.Array())
	}
	return ok && s.validLogic(v)
}

// sameValue is the equality of enum and uniqueItems: MongoDB's value
// comparison (1, 1.0 and NumberLong(1) are equal), within one type rank.
func sameValue(a, b value.Value) bool {
	return value.TypeRank(a) == value.TypeRank(b) && value.Compare(a, b) == 0
}

func hasType(v value.Value, t string) bool {
	if t == "number" {
		return v.IsNumber()
	}
	return v.TypeName() == t
}

func (s *jsonSchema) validLogic(v value.Value) bool {
	for _, a := range s.allOf {
		if !a.valid(v) {
			return false
		}
	}
	if s.anyOf != nil && !slices.ContainsFunc(s.anyOf, func(a *jsonSchema) bool { return a.valid(v) }) {
		return false
	}
	if s.oneOf != nil {
		n := 0
		for _, a := range s.oneOf {
			if a.valid(v) {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	return s.not == nil || !s.not.valid(v)
}

func (s *jsonSchema) validNumber(f float64) bool {
	switch {
	case s.min != nil && (f < *s.min || (s.exclMin && f == *s.min)):
		return false
	case s.max != nil && (f > *s.max || (s.exclMax && f == *s.max)):
		return false
	case s.multipleOf != 0 && math.Mod(f, s.multipleOf) != 0:
		return false
	}
	return true
}

func (s *jsonSchema) validString(str string) bool {
	n := utf8.RuneCountInString(str)
	return n >= s.minLen && (s.maxLen < 0 || n <= s.maxLen) && (s.pattern == nil || s.pattern.MatchString(str))
}

func (s *jsonSchema) validObject(v value.Value) bool {
	fields := v.Fields()
	if len(fields) < s.minProps || (s.maxProps >= 0 && len(fields) > s.maxProps) {
		return false
	}
	for _, r := range s.required {
		if !v.Has(r) {
			return false
		}
	}
	for _, f := range fields {
		matched := false
		if p, ok := s.properties[f.Key]; ok {
			matched = true
			if !p.valid(f.Value) {
				return false
			}
		}
		for _, pp := range s.patternProp {
			if pp.re.MatchString(f.Key) {
				matched = true
				if !pp.s.valid(f.Value) {
					return false
				}
			}
		}
		if !matched && (s.noAddition || (s.additional != nil && !s.additional.valid(f.Value))) {
			return false
		}
		if d, ok := s.depends[f.Key]; ok {
			for _, r := range d.fields {
				if !v.Has(r) {
					return false
				}
			}
			if d.schema != nil && !d.schema.valid(v) {
				return false
			}
		}
	}
	return true
}

func (s *jsonSchema) validArray(elems []value.Value) bool {
	if len(elems) < s.minItems || (s.maxItems >= 0 && len(elems) > s.maxItems) {
		return false
	}
	for i, e := range elems {
		switch {
		case s.items != nil:
			if !s.items.valid(e) {
				return false
			}
		case i < len(s.itemList):
			if !s.itemList[i].valid(e) {
				return false
			}
		case s.itemList != nil && (s.noAddItems || (s.addItems != nil && !s.addItems.valid(e))):
			return false
		}
	}
	if s.uniqueItems {
		for i := range elems {
			for j := i + 1; j < len(elems); j++ {
				if sameValue(elems[i], elems[j]) {
					return false
				}
			}
		}
	}
	return true
}

// schemaNode is $jsonSchema in a filter.
type schemaNode struct{ s *jsonSchema }

func (n schemaNode) match(doc value.Value, _ *matchCtx) bool { return n.s.valid(doc) }
