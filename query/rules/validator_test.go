package rules_test

import (
	"testing"

	"github.com/omgdb/omgdb/query/rules"
	"github.com/omgdb/omgdb/query/value"
)

// TestValidator checks the translation of omgdb's rules to a MongoDB
// validator ($jsonSchema as in the manual's "Specify JSON Schema
// Validation" and jstests core/json_schema/bsontype.js, required.js).
func TestValidator(t *testing.T) {
	cases := []struct{ rules, want, missed string }{
		{`{"required":["name"]}`, `{"$jsonSchema":{"required":["name"],"properties":{"name":{}}}}`, ""},
		{`{"fields":{"age":"long","tags":["array","null"]}}`,
			`{"$jsonSchema":{"properties":{"age":{"bsonType":["long","int"]},"tags":{"bsonType":["array","null"]}}}}`, ""},
		{`{"required":["a.b"],"fields":{"a.b":{"type":"number","min":0,"max":{"$numberLong":"10"},"enum":[1,2]},"s":{"type":"string","pattern":"^x"}}}`,
			`{"$jsonSchema":{"required":["a"],"properties":{"a":{"required":["b"],"properties":{"b":{"bsonType":"number","minimum":0,"maximum":10,"enum":[1,2]}}},"s":{"bsonType":"string","pattern":"^x"}}}}`, ""},
		{`{"validator":{"email":{"$regex":"@"}}}`, `{"email":{"$regex":"@"}}`, ""},
		{`{"required":["n"],"validator":{"n":{"$gt":0}}}`,
			`{"$and":[{"$jsonSchema":{"required":["n"],"properties":{"n":{}}}},{"n":{"$gt":0}}]}`, ""},
		{`{"fields":{"s":{"type":"string","min":"a"}},"collation":{"locale":"fr"}}`,
			`{"$jsonSchema":{"properties":{"s":{"bsonType":"string"}}}}`, "a min or max that is not a number and a collation"},
	}
	for _, c := range cases {
		spec, err := value.ParseString(c.rules)
		if err != nil {
			t.Fatal(err)
		}
		got, missed := rules.Validator(spec)
		if js := string(value.AppendEJSON(nil, got, value.EJSONRelaxed)); js != c.want || missed != c.missed {
			t.Errorf("rules.Validator(%s)\n got %s, %q\nwant %s, %q", c.rules, js, missed, c.want, c.missed)
		}
	}
	if v, missed := rules.Validator(value.Value{}); !v.IsMissing() || missed != "" {
		t.Errorf("no rules give %v, %q", v, missed)
	}
}
