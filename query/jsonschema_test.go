package query_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// schemaMatches returns the _ids of docs that filter matches.
func schemaMatches(t *testing.T, filter string, docs []string) string {
	t.Helper()
	f, err := query.CompileFilter(value.MustParse(filter))
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	var ids []string
	for _, d := range docs {
		doc := value.MustParse(d)
		if f.Match(doc) {
			ids = append(ids, doc.Get("_id").String())
		}
		raw, err := f.MatchJSON(value.JSON(doc))
		if err != nil || raw != f.Match(doc) {
			t.Fatalf("%s on %s: MatchJSON %v (%v), Match %v", filter, d, raw, err, f.Match(doc))
		}
	}
	return strings.Join(ids, ",")
}

// TestJSONSchema: cases ported from MongoDB's jstests/core/query/json_schema/
// (json_schema.js, required.js, additional_properties.js,
// pattern_properties.js, items.js, additional_items.js, min_max_items.js,
// min_max_properties.js, unique_items.js, dependencies.js,
// logical_keywords.js, bsontype.js). Each lists the _ids that match.
func TestJSONSchema(t *testing.T) {
	// As in the jstest, 3 and -3 are doubles (JavaScript numbers).
	nums := []string{`{"_id":0,"num":3.0}`, `{"_id":1,"num":-3.0}`, `{"_id":2,"num":2.5}`, `{"_id":3,"num":-2.5}`,
		`{"_id":4,"num":{"$numberLong":"1"}}`, `{"_id":5,"num":{"$numberLong":"-1"}}`, `{"_id":6,"num":{}}`,
		`{"_id":7,"num":"str"}`, `{"_id":8,"num":"string"}`, `{"_id":9}`}
	objs := []string{`{"_id":0,"obj":3}`, `{"_id":1,"obj":{"f1":{"f3":"str"},"f2":"str"}}`, `{"_id":2,"obj":{"f1":"str","f2":"str"}}`, `{"_id":3,"obj":{"f1":1,"f2":"str"}}`}
	arrs := []string{`{"_id":0,"arr":3}`, `{"_id":1,"arr":[1,"foo"]}`, `{"_id":2,"arr":[{"a":1},{"b":2}]}`, `{"_id":3,"arr":[]}`, `{"_id":4,"arr":{"a":[]}}`}
	for _, tc := range []struct {
		docs   []string
		filter string
		want   string
	}{
		// json_schema.js
		{nums, `{"$jsonSchema":{}}`, "0,1,2,3,4,5,6,7,8,9"},
		{nums, `{"$jsonSchema":{"type":"object"}}`, "0,1,2,3,4,5,6,7,8,9"},
		{nums, `{"$jsonSchema":{"type":"string"}}`, ""},
		{nums, `{"$jsonSchema":{"bsonType":"long"}}`, ""},
		{nums, `{"$jsonSchema":{"properties":{"num":{"type":"number"}}}}`, "0,1,2,3,4,5,9"},
		{nums, `{"$jsonSchema":{"properties":{"num":{"type":"number","maximum":-1}}}}`, "1,3,5,9"},
		{nums, `{"$jsonSchema":{"type":"object","properties":{"num":{"type":"number","maximum":-1}}}}`, "1,3,5,9"},
		{nums, `{"$jsonSchema":{"properties":{"num":{"bsonType":"long"}}}}`, "4,5,9"},
		{nums, `{"$jsonSchema":{"properties":{"num":{"bsonType":"long","maximum":0}}}}`, "5,9"},
		{nums, `{"$jsonSchema":{"properties":{"num":{"maximum":0}}}}`, "1,3,5,6,7,8,9"},
		{nums, `{"$jsonSchema":{"properties":{"num":{"type":"string","maximum":0}}}}`, "7,8,9"},
		{nums, `{"$jsonSchema":{"properties":{"num":{"type":"string","maxLength":2}}}}`, "9"},
		{nums, `{"$jsonSchema":{"properties":{"num":{"type":"string","maxLength":3}}}}`, "7,9"},
		{nums, `{"$jsonSchema":{"properties":{"num":{"type":"string","minLength":4}}}}`, "8,9"},
		{nums, `{"$jsonSchema":{"properties":{"num":{"type":"string","pattern":"ing"}}}}`, "8,9"},
		{objs, `{"$jsonSchema":{"properties":{"obj":{"properties":{"f1":{"type":"object","properties":{"f3":{"type":"string"}}},"f2":{"type":"string"}}}}}}`, "0,1"},
		{objs, `{"$or":[{"obj.f1":"str"},{"$jsonSchema":{"properties":{"obj":{"properties":{"f1":{"type":"object","properties":{"f3":{"type":"string"}}},"f2":{"type":"string"}}}}}}]}`, "0,1,2"},
		{arrs, `{"$jsonSchema":{"properties":{"arr":{"type":"array"}}}}`, "1,2,3"},
		{arrs, `{"$jsonSchema":{"properties":{"arr":{"type":"number"}}}}`, "0"},
		{[]string{`{"_id":1,"a":1,"b":1}`, `{"_id":2,"a":2,"b":2}`}, `{"$jsonSchema":{"properties":{"a":{"type":"number"}},"required":["a"]},"b":1}`, "1"},
		{[]string{`{"_id":1,"a":1,"b":1}`, `{"_id":2,"a":2,"b":2}`}, `{"$or":[{"$jsonSchema":{},"a":1},{"b":1}]}`, "1"},
		// required.js
		{[]string{`{"_id":1,"a":1}`, `{"_id":2,"a":null}`, `{"_id":3,"b":1}`, `{"_id":4,"a":{"b":1}}`}, `{"$jsonSchema":{"required":["a"]}}`, "1,2,4"},
		{[]string{`{"_id":1,"a":{"b":1}}`, `{"_id":2,"a":{"c":1}}`, `{"_id":3,"a":[{"b":1}]}`}, `{"$jsonSchema":{"properties":{"a":{"required":["b"]}}}}`, "1,3"},
		// additional_properties.js
		{[]string{`{"_id":1}`, `{"_id":2,"a":1}`, `{"_id":3,"b":1}`}, `{"$jsonSchema":{"properties":{"_id":{},"a":{}},"additionalProperties":false}}`, "1,2"},
		{[]string{`{"_id":1,"a":1}`, `{"_id":2,"b":"s"}`, `{"_id":3,"b":1}`}, `{"$jsonSchema":{"properties":{"_id":{},"a":{}},"additionalProperties":{"type":"number"}}}`, "1,3"},
		// pattern_properties.js
		{[]string{`{"_id":1,"ab":1,"ac":"s"}`, `{"_id":2,"ab":"s"}`, `{"_id":3,"ba":"s"}`}, `{"$jsonSchema":{"patternProperties":{"^a":{"type":"number"}}}}`, "3"},
		{[]string{`{"_id":1,"ab":1,"c":"s"}`, `{"_id":2,"ab":1,"c":2}`}, `{"$jsonSchema":{"properties":{"_id":{}},"patternProperties":{"^a":{"type":"number"}},"additionalProperties":{"type":"string"}}}`, "1"},
		// items.js, additional_items.js
		{[]string{`{"_id":1,"a":[1,2]}`, `{"_id":2,"a":[1,"s"]}`, `{"_id":3,"a":1}`, `{"_id":4,"a":[]}`}, `{"$jsonSchema":{"properties":{"a":{"items":{"type":"number"}}}}}`, "1,3,4"},
		{[]string{`{"_id":1,"a":[1,"s"]}`, `{"_id":2,"a":["s",1]}`, `{"_id":3,"a":[1]}`, `{"_id":4,"a":[1,"s",true]}`}, `{"$jsonSchema":{"properties":{"a":{"items":[{"type":"number"},{"type":"string"}]}}}}`, "1,3,4"},
		{[]string{`{"_id":1,"a":[1,"s"]}`, `{"_id":4,"a":[1,"s",true]}`}, `{"$jsonSchema":{"properties":{"a":{"items":[{"type":"number"},{"type":"string"}],"additionalItems":false}}}}`, "1"},
		{[]string{`{"_id":1,"a":[1,"s",2]}`, `{"_id":4,"a":[1,"s",true]}`}, `{"$jsonSchema":{"properties":{"a":{"items":[{"type":"number"},{"type":"string"}],"additionalItems":{"type":"number"}}}}}`, "1"},
		{[]string{`{"_id":1,"a":[1,true]}`}, `{"$jsonSchema":{"properties":{"a":{"additionalItems":false}}}}`, "1"},
		// min_max_items.js, min_max_properties.js, unique_items.js
		{[]string{`{"_id":1,"a":[]}`, `{"_id":2,"a":[1]}`, `{"_id":3,"a":[1,2,3]}`}, `{"$jsonSchema":{"properties":{"a":{"minItems":1,"maxItems":2}}}}`, "2"},
		{[]string{`{"_id":1}`, `{"_id":2,"a":1}`, `{"_id":3,"a":1,"b":2}`}, `{"$jsonSchema":{"minProperties":2,"maxProperties":2}}`, "2"},
		{[]string{`{"_id":1,"a":[1,2]}`, `{"_id":2,"a":[1,1.0]}`, `{"_id":3,"a":[{"b":1},{"b":1}]}`, `{"_id":4,"a":["1",1]}`}, `{"$jsonSchema":{"properties":{"a":{"uniqueItems":true}}}}`, "1,4"},
		// dependencies.js
		{[]string{`{"_id":1,"a":1,"b":1}`, `{"_id":2,"a":1}`, `{"_id":3,"b":1}`}, `{"$jsonSchema":{"dependencies":{"a":["b"]}}}`, "1,3"},
		{[]string{`{"_id":1,"a":1,"b":1}`, `{"_id":2,"a":1,"b":"s"}`, `{"_id":3,"b":"s"}`}, `{"$jsonSchema":{"dependencies":{"a":{"properties":{"b":{"type":"number"}}}}}}`, "1,3"},
		// logical_keywords.js
		{[]string{`{"_id":1,"a":1}`, `{"_id":2,"a":-1}`, `{"_id":3,"a":"s"}`}, `{"$jsonSchema":{"properties":{"a":{"allOf":[{"type":"number"},{"minimum":0}]}}}}`, "1"},
		{[]string{`{"_id":1,"a":1}`, `{"_id":2,"a":-1}`, `{"_id":3,"a":"s"}`}, `{"$jsonSchema":{"properties":{"a":{"anyOf":[{"type":"string"},{"minimum":0}]}}}}`, "1,3"},
		{[]string{`{"_id":1,"a":5}`, `{"_id":2,"a":15}`, `{"_id":3,"a":25}`}, `{"$jsonSchema":{"properties":{"a":{"oneOf":[{"minimum":10},{"maximum":20}]}}}}`, "1,3"},
		{[]string{`{"_id":1,"a":1}`, `{"_id":2,"a":"s"}`}, `{"$jsonSchema":{"properties":{"a":{"not":{"type":"number"}}}}}`, "2"},
		{[]string{`{"_id":1,"a":"x"}`, `{"_id":2,"a":"y"}`, `{"_id":3,"a":1.0}`}, `{"$jsonSchema":{"properties":{"a":{"enum":["x",1]}}}}`, "1,3"},
		// bsontype.js: types and "number"
		{[]string{`{"_id":1,"a":1}`, `{"_id":2,"a":1.5}`, `{"_id":3,"a":{"$oid":"000000000000000000000001"}}`, `{"_id":4,"a":{"$date":0}}`, `{"_id":5,"a":null}`, `{"_id":6,"a":true}`}, `{"$jsonSchema":{"properties":{"a":{"bsonType":["objectId","date","bool"]}}}}`, "3,4,6"},
		{[]string{`{"_id":1,"a":1}`, `{"_id":2,"a":1.5}`, `{"_id":5,"a":null}`}, `{"$jsonSchema":{"properties":{"a":{"bsonType":"number"}}}}`, "1,2"},
		{[]string{`{"_id":1,"a":1}`, `{"_id":5,"a":null}`}, `{"$jsonSchema":{"properties":{"a":{"type":["null","string"]}}}}`, "5"},
		{[]string{`{"_id":1,"a":6}`, `{"_id":2,"a":7}`, `{"_id":3,"a":1.5}`}, `{"$jsonSchema":{"properties":{"a":{"multipleOf":3}}}}`, "1"},
		{[]string{`{"_id":1,"a":5}`, `{"_id":2,"a":6}`}, `{"$jsonSchema":{"properties":{"a":{"minimum":5,"exclusiveMinimum":true}}}}`, "2"},
	} {
		if got := schemaMatches(t, tc.filter, tc.docs); got != tc.want {
			t.Errorf("%s: matched _ids %q, want %q", tc.filter, got, tc.want)
		}
	}
}

// TestJSONSchema_Errors: schemas MongoDB refuses (json_schema.js,
// misc_validation.js).
func TestJSONSchema_Errors(t *testing.T) {
	for _, bad := range []string{
		`"foo"`, `[]`, `{"type":3}`, `{"type":{}}`, `{"type":"integer"}`, `{"properties":3}`, `{"properties":[]}`,
		`{"properties":{"num":"number"}}`, `{"properties":{"num":{"maximum":"0"}}}`, `{"properties":{"num":{"maxLength":"0"}}}`,
		`{"properties":{"num":{"minLength":{}}}}`, `{"properties":{"num":{"pattern":0}}}`, `{"default":{"_id":0}}`,
		`{"definitions":{"n":{"type":"number"}}}`, `{"format":"email"}`, `{"id":"someschema.json"}`,
		`{"properties":{"a":{"$ref":"#/definitions/positiveInt"}}}`, `{"$schema":"hyper-schema"}`,
		`{"required":["\u0000a"]}`, `{"required":[]}`, `{"required":["a","a"]}`, `{"type":"object","bsonType":"object"}`,
		`{"exclusiveMinimum":true}`, `{"multipleOf":0}`, `{"allOf":[]}`, `{"enum":[]}`, `{"bsonType":"fancy"}`, `{"frob":1}`,
	} {
		if _, err := query.CompileFilter(value.MustParse(`{"$jsonSchema":` + bad + `}`)); err == nil {
			t.Errorf("$jsonSchema %s compiled", bad)
		}
	}
	if _, err := query.CompileFilter(value.MustParse(`{"a":{"$elemMatch":{"$jsonSchema":{}}}}`)); err == nil {
		t.Error("$jsonSchema inside $elemMatch compiled")
	}
	for _, ok := range []string{`{"description":"test"}`, `{"title":"insert title"}`, `{"properties":{"a":{"description":"d","title":"t"}}}`} {
		if got := schemaMatches(t, `{"$jsonSchema":`+ok+`}`, []string{`{"_id":1,"a":{}}`}); got != "1" {
			t.Errorf("%s: %q", ok, got)
		}
	}
}
