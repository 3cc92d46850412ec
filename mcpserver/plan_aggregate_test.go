package mcpserver

import (
	"strings"
	"testing"
)

// TestPlanAggregate_RoundTrip: plan_aggregate plans the writes of $out
// and $merge without writing, apply writes them, rollback undoes them.
// The pipeline groups on a field that is missing in one document (a null
// group) and sums ages stored as a long, a string and an int32.
func TestPlanAggregate_RoundTrip(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite})
	path := f.standardStore()
	f.ok("insert", `{"path":"app.omgdb","collection":"users","document":{"_id":4,"name":"di","age":{"$numberInt":"7"},"city":"Lyon"}}`)
	before := dump(t, path)
	plan := f.ok("plan_aggregate", `{"path":"app.omgdb","collection":"users","pipeline":[`+
		`{"$group":{"_id":"$city","total":{"$sum":"$age"},"n":{"$sum":1}}},{"$sort":{"_id":1}},{"$out":"by_city"}]}`)
	if plan["matched"] != 2.0 || plan["modified"] != 2.0 || plan["kind"] != "aggregate" || nextActions(plan) != "apply,plans" {
		t.Fatalf("plan: %v", plan)
	}
	if dump(t, path) != before {
		t.Fatal("planning wrote documents")
	}
	tok := plan["token"].(string)
	shown := f.ok("plans", `{"path":"app.omgdb","token":"`+tok+`"}`)
	if p := shown["plan"].(map[string]any); p["source"] != "users" || p["collection"] != "by_city" {
		t.Errorf("plans shows %v", p)
	}
	applied := f.ok("apply", `{"path":"app.omgdb","token":"`+tok+`"}`)
	got := dump(t, path)
	// Paris: 36 + 25 (longs); Lyon: "30" is a string, which $sum skips,
	// and the int32 7 alone sums to an int32, as in MongoDB.
	for _, want := range []string{`{"_id":"Lyon","total":{"$numberInt":"7"},"n":2}`, `{"_id":"Paris","total":61,"n":2}`} {
		if !strings.Contains(got, want) {
			t.Errorf("after apply, by_city lacks %s:\n%s", want, got)
		}
	}
	// $merge into orders: _id 10 matches and is merged, _id 1 is inserted;
	// a group on a missing field is the null group.
	merge := f.ok("plan_aggregate", `{"path":"app.omgdb","collection":"users","pipeline":[`+
		`{"$group":{"_id":"$address.zip","n":{"$sum":1}}},{"$match":{"_id":null}},{"$set":{"_id":10}},{"$merge":{"into":"orders","whenMatched":"merge"}}]}`)
	if merge["matched"] != 1.0 || merge["modified"] != 1.0 {
		t.Fatalf("merge plan: %v", merge)
	}
	f.ok("apply", `{"path":"app.omgdb","token":"`+merge["token"].(string)+`"}`)
	if got := dump(t, path); !strings.Contains(got, `{"_id":10,"user":1,"total":12.5,"n":3}`) {
		t.Errorf("after the merge:\n%s", got)
	}
	hist := f.ok("history", `{"path":"app.omgdb","limit":1}`)
	last := hist["changes"].([]any)[0].(map[string]any)["change"].(string)
	f.ok("rollback", `{"path":"app.omgdb","change_id":"`+last+`"}`)
	f.ok("rollback", `{"path":"app.omgdb","change_id":"`+applied["change_id"].(string)+`"}`)
	if got := dump(t, path); strings.Contains(got, `"n":`) {
		t.Errorf("after both rollbacks:\n%s", got)
	}
}

// TestPlanAggregate_Policy: every collection a pipeline names is judged
// by the deny list before the store is opened (source, target, $lookup,
// $unionWith, $graphLookup, at any depth), a collection with redacted
// fields is refused wherever it appears, and a refused call leaves no
// plan behind.
func TestPlanAggregate_Policy(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, DenyCollections: []string{"orders"}, Redact: []string{"users.ssn"}})
	path := f.standardStore()
	makeStore(t, path[:len(path)-len("app.omgdb")]+"more.omgdb", map[string][]string{
		"items": {`{"_id":1,"sku":"a"}`}, "orders": {`{"_id":1}`}, "users": {`{"_id":1,"ssn":"x"}`}})
	more := `"path":"more.omgdb","collection":"items"`
	denied := []string{
		`{"path":"app.omgdb","collection":"orders","pipeline":[{"$out":"copy"}]}`,
		`{` + more + `,"pipeline":[{"$out":"orders"}]}`,
		`{` + more + `,"pipeline":[{"$merge":{"into":{"db":"x","coll":"orders"}}}]}`,
		`{` + more + `,"pipeline":[{"$lookup":{"from":"orders","localField":"_id","foreignField":"_id","as":"o"}},{"$out":"copy"}]}`,
		`{` + more + `,"pipeline":[{"$unionWith":"orders"},{"$out":"copy"}]}`,
		`{` + more + `,"pipeline":[{"$unionWith":{"coll":"items","pipeline":[{"$lookup":{"from":"orders","pipeline":[],"as":"o"}}]}},{"$out":"copy"}]}`,
		`{` + more + `,"pipeline":[{"$graphLookup":{"from":"orders","startWith":"$_id","connectFromField":"_id","connectToField":"_id","as":"g"}},{"$out":"copy"}]}`,
		`{` + more + `,"pipeline":[{"$facet":{"a":[{"$lookup":{"from":"orders","pipeline":[{"$unionWith":"orders"}],"as":"o"}}]}},{"$out":"copy"}]}`,
		// redacted users: as source, target, or read by a stage
		`{"path":"app.omgdb","collection":"users","pipeline":[{"$project":{"leak":"$ssn"}},{"$out":"copy"}]}`,
		`{` + more + `,"pipeline":[{"$merge":{"into":"users","on":"_id"}}]}`,
		`{` + more + `,"pipeline":[{"$lookup":{"from":"users","localField":"_id","foreignField":"_id","as":"u"}},{"$out":"copy"}]}`,
	}
	for _, args := range denied {
		res := f.callTool("plan_aggregate", args)
		if errorCode(res) != CodePolicyDenied {
			t.Errorf("%s: %s, want POLICY_DENIED", args, resultText(res))
		}
		if strings.Contains(resultText(res), "x\"") && strings.Contains(args, "users") {
			t.Errorf("%s: the refusal shows a redacted value: %s", args, resultText(res))
		}
	}
	for _, p := range []string{"app.omgdb", "more.omgdb"} {
		if plans := f.ok("plans", `{"path":"`+p+`","all":true}`)["plans"].([]any); len(plans) != 0 {
			t.Errorf("%s: refused calls left plans: %v", p, plans)
		}
	}
	invalid := []struct{ args, want string }{
		{`{` + more + `,"pipeline":[{"$match":{}}]}`, "must end in $out or $merge"},
		{`{` + more + `,"pipeline":[{"$out":{"$concat":["or","ders"]}}]}`, "needs a collection name"},
		{`{` + more + `,"pipeline":[{"$lookup":{"from":7,"as":"o"}},{"$out":"c"}]}`, "$lookup.from needs a collection name"},
		{`{` + more + `,"pipeline":[{"$frob":1},{"$out":"c"}]}`, "$frob"},
		{`{` + more + `,"pipeline":{"$out":"c"}}`, "pipeline"},
		{`{` + more + `}`, "pipeline"},
		{`{` + more + `,"pipeline":[{"$out":"c"}],"sample":99}`, "sample"},
	}
	for _, tc := range invalid {
		res := f.callTool("plan_aggregate", tc.args)
		if errorCode(res) != CodeInvalidArgument || !strings.Contains(resultText(res), tc.want) {
			t.Errorf("%s: %s, want INVALID_ARGUMENT naming %q", tc.args, resultText(res), tc.want)
		}
	}
	res := f.callTool("plan_aggregate", `{"path":"more.omgdb","collection":"itemz","pipeline":[{"$out":"c"}]}`)
	if errorCode(res) != CodeNotFound || !strings.Contains(resultText(res), "items") || strings.Contains(resultText(res), "orders") {
		t.Errorf("a missing source: %s", resultText(res))
	}
	// The items pipeline itself works, and the plan's samples are fenced.
	ok := f.ok("plan_aggregate", `{`+more+`,"pipeline":[{"$set":{"seen":true}},{"$merge":"items"}]}`)
	if ok["modified"] != 1.0 {
		t.Errorf("items merge: %v", ok)
	}
}

// TestAggregate_OutHint: aggregate refuses $out and $merge at every scope;
// its hint names plan_aggregate where it is listed, and says the server
// cannot write where it is not.
func TestAggregate_OutHint(t *testing.T) {
	for _, tc := range []struct {
		scope Scope
		hint  string
	}{{ScopeRead, "cannot write"}, {ScopeReadWrite, "call plan_aggregate"}} {
		f := newFixture(t, Config{Scope: tc.scope})
		f.standardStore()
		res := f.callTool("aggregate", `{"path":"app.omgdb","collection":"users","pipeline":[{"$out":"copy"}]}`)
		if errorCode(res) != CodeInvalidArgument || !strings.Contains(resultText(res), tc.hint) {
			t.Errorf("scope %v: %s, want a hint with %q", tc.scope, resultText(res), tc.hint)
		}
	}
}
