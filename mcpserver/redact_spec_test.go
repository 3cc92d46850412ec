package mcpserver

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/value"
)

// TestSpecRedactor: values a filter or update gives to a redacted path
// are hidden at any depth; others are kept.
func TestSpecRedactor(t *testing.T) {
	p, err := newPolicy(&Config{Redact: []string{"users.ssn", "users.cards.number", "users.profile.tax"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ kind, in, want string }{
		{"filter", `{"ssn":"987"}`, `{"ssn":"<redacted>"}`},
		{"filter", `{"ssn":{"$in":["1","2"]},"age":3}`, `{"ssn":"<redacted>","age":3}`},
		{"filter", `{"$and":[{"name":"a"},{"$or":[{"ssn":{"$gt":"5"}}]}]}`, `{"$and":[{"name":"a"},{"$or":[{"ssn":"<redacted>"}]}]}`},
		{"filter", `{"$nor":[{"ssn.part":1}]}`, `{"$nor":[{"ssn.part":"<redacted>"}]}`},
		{"filter", `{"cards":{"$elemMatch":{"number":"4111","brand":"visa"}}}`, `{"cards":{"$elemMatch":{"number":"<redacted>","brand":"visa"}}}`},
		{"filter", `{"cards":{"number":"4111","brand":"visa"}}`, `{"cards":{"number":"<redacted>","brand":"visa"}}`},
		{"filter", `{"cards":[{"number":"4111"}]}`, `{"cards":[{"number":"<redacted>"}]}`},
		{"filter", `{"cards.0.number":"4111"}`, `{"cards.0.number":"<redacted>"}`},
		{"filter", `{"cards.number":{"$not":{"$eq":"4111"}}}`, `{"cards.number":"<redacted>"}`},
		{"filter", `{"cards":{"$not":{"$elemMatch":{"number":"4111"}}}}`, `{"cards":{"$not":{"$elemMatch":{"number":"<redacted>"}}}}`},
		{"filter", `{"cards":{"$all":[{"$elemMatch":{"number":"4111"}}]}}`, `{"cards":{"$all":[{"$elemMatch":{"number":"<redacted>"}}]}}`},
		{"filter", `{"cards":{"$size":2,"$exists":true}}`, `{"cards":{"$size":2,"$exists":true}}`},
		{"filter", `{"profile":{"$eq":{"tax":"T1","city":"Lyon"}}}`, `{"profile":{"$eq":{"tax":"<redacted>","city":"Lyon"}}}`},
		{"filter", `{"profile.city":"Lyon","name":{"$regex":"^a"}}`, `{"profile.city":"Lyon","name":{"$regex":"^a"}}`},
		{"filter", `{"$expr":{"$eq":["$ssn","987"]}}`, `{"$expr":"<redacted>"}`},
		{"filter", `{"$expr":{"$eq":["$$ROOT.x","987"]}}`, `{"$expr":"<redacted>"}`},
		{"filter", `{"$expr":{"$gt":["$age",3]}}`, `{"$expr":{"$gt":["$age",3]}}`},
		{"filter", `{"$where":"this.ssn == '987'"}`, `{"$where":"<redacted>"}`},
		{"update", `{"$set":{"ssn":"987","age":4}}`, `{"$set":{"ssn":"<redacted>","age":4}}`},
		{"update", `{"$set":{"profile":{"tax":"T","city":"x"}}}`, `{"$set":{"profile":{"tax":"<redacted>","city":"x"}}}`},
		{"update", `{"$push":{"cards":{"$each":[{"number":"1"},{"brand":"b"}]}}}`, `{"$push":{"cards":{"$each":[{"number":"<redacted>"},{"brand":"b"}]}}}`},
		{"update", `{"$pull":{"cards":{"number":{"$in":["1"]}}}}`, `{"$pull":{"cards":{"number":"<redacted>"}}}`},
		{"update", `{"$set":{"cards.$[c].number":"9","cards.$.brand":"b"}}`, `{"$set":{"cards.$[c].number":"<redacted>","cards.$.brand":"b"}}`},
		{"update", `{"name":"new","ssn":"987"}`, `{"name":"new","ssn":"<redacted>"}`},
		{"update", `{"$inc":{"age":1}}`, `{"$inc":{"age":1}}`},
	} {
		r := p.specRedactor("users")
		in := value.MustParse(tc.in)
		var got value.Value
		if tc.kind == "filter" {
			got = r.filter(in, nil)
		} else {
			got = r.update(in)
		}
		if got.String() != tc.want {
			t.Errorf("%s %s = %s, want %s", tc.kind, tc.in, got, tc.want)
		}
		if r.hit != strings.Contains(tc.want, redactedMark) {
			t.Errorf("%s %s: hit = %v", tc.kind, tc.in, r.hit)
		}
	}
	r := p.specRedactor("users")
	afs := r.arrayFilters(value.MustParse(`{"$set":{"cards.$[c].brand":"b"}}`),
		value.MustParse(`[{"c.number":"4111","c.brand":"visa"},{"d.x":1}]`).Array())
	if got := value.ArrayValue(afs).String(); got != `[{"c.number":"<redacted>","c.brand":"visa"},{"d.x":"<redacted>"}]` {
		t.Errorf("array filters = %s", got)
	}
	if p.specRedactor("orders") != nil {
		t.Errorf("orders has no redacted field")
	}
}

// TestRedaction_PlansRefuseRedactedFields: a plan cannot test or write a
// redacted field, whose counts (matched, modified) would reveal it.
func TestRedaction_PlansRefuseRedactedFields(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, Redact: []string{"users.ssn"}})
	f.standardStore()
	for _, tc := range []struct{ tool, args string }{
		{"plan_update", `{"path":"app.omgdb","collection":"users","filter":{"ssn":"111-11-1111"},"update":{"$set":{"age":1}}}`},
		{"plan_update", `{"path":"app.omgdb","collection":"users","filter":{"$or":[{"ssn":{"$gt":"1"}}]},"update":{"$set":{"age":1}}}`},
		{"plan_update", `{"path":"app.omgdb","collection":"users","filter":{"_id":1},"update":{"$max":{"ssn":"5"}}}`},
		{"plan_update", `{"path":"app.omgdb","collection":"users","filter":{"_id":1},"update":{"$set":{"ssn":"111-11-1111"}}}`},
		{"plan_update", `{"path":"app.omgdb","collection":"users","filter":{"_id":1},"update":{"$rename":{"ssn":"tax"}}}`},
		{"plan_delete", `{"path":"app.omgdb","collection":"users","filter":{"ssn":"111-11-1111"}}`},
		// A replacement would remove the redacted fields, and whether it
		// modifies a document tells whether the document has them.
		{"plan_update", `{"path":"app.omgdb","collection":"users","filter":{"_id":1},"update":{"name":"ann"}}`},
	} {
		res := f.callTool(tc.tool, tc.args)
		if errorCode(res) != CodePolicyDenied || strings.Contains(resultText(res), "111-11-1111") {
			t.Errorf("%s %s: %v", tc.tool, tc.args, res)
		}
	}
	f.ok("plan_update", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"},"update":{"$set":{"age":1}}}`)
	// An error that quotes a value given to a redacted field hides it.
	res := f.callTool("find", `{"path":"app.omgdb","collection":"users","filter":{"ssn":{"$regex":"(secret-value"}}}`)
	if errorCode(res) == "" || strings.Contains(resultText(res), "secret-value") {
		t.Errorf("find with a bad regex on a redacted field: %v", res)
	}
}
