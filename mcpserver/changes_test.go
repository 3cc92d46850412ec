package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// dump returns every collection's documents, as canonical JSON lines.
func dump(t testing.TB, path string) string {
	t.Helper()
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	err = db.View(func(tx *store.Tx) error {
		for _, name := range tx.Collections() {
			col, err := tx.Collection(name)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "# %s\n", name)
			src := col.Find(context.Background(), store.Query{})
			for src.Next() {
				b.Write(value.AppendJSON(nil, src.Doc()))
				b.WriteByte('\n')
			}
			if err := src.Err(); err != nil {
				return err
			}
			src.Close()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// ok calls a tool, fails the test on an error result, and returns the
// structuredContent.
func (f *fixture) ok(name, args string) map[string]any {
	f.t.Helper()
	res := f.callTool(name, args)
	if res["isError"] == true {
		f.t.Fatalf("%s %s: %s", name, args, resultText(res))
	}
	sc := structured(f.t, res)
	f.checkOutput(name, sc)
	return sc
}

// checkOutput checks a result against the tool's outputSchema.
func (f *fixture) checkOutput(name string, sc map[string]any) {
	f.t.Helper()
	var schema any
	json.Unmarshal(value.AppendJSON(nil, f.srv.known[name].Output), &schema)
	if err := validateSchema(schema, sc); err != nil {
		f.t.Errorf("%s: structuredContent does not match outputSchema: %v\n%v", name, err, sc)
	}
}

func nextActions(sc map[string]any) string {
	var names []string
	for _, n := range sc["next_valid_actions"].([]any) {
		names = append(names, n.(string))
	}
	return join(names)
}

// TestChanges_RoundTrip: plan_update -> apply -> rollback through the
// server leaves the store as it was, and each step says what is next.
func TestChanges_RoundTrip(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite})
	path := f.standardStore()
	before := dump(t, path)

	plan := f.ok("plan_update", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"},"update":{"$inc":{"visits":1}}}`)
	if plan["matched"] != 2.0 || plan["modified"] != 2.0 || nextActions(plan) != "apply,plans" {
		t.Fatalf("plan: %v", plan)
	}
	if dump(t, path) != before {
		t.Fatal("planning wrote documents")
	}
	token := plan["token"].(string)
	shown := f.ok("plans", `{"path":"app.omgdb","token":"`+token+`"}`)
	if docs := shown["documents"].([]any); len(docs) != 2 || nextActions(shown) != "apply" {
		t.Errorf("plans token: %v", shown)
	}
	if list := f.ok("plans", `{"path":"app.omgdb"}`); len(list["plans"].([]any)) != 1 {
		t.Errorf("plans: %v", list)
	}

	applied := f.ok("apply", `{"path":"app.omgdb","token":"`+token+`"}`)
	if applied["change_id"] != token || applied["updated"] != 2.0 || !strings.Contains(nextActions(applied), "rollback") {
		t.Fatalf("apply: %v", applied)
	}
	if shown := f.ok("plans", `{"path":"app.omgdb","token":"`+token+`"}`); nextActions(shown) != "rollback,history" {
		t.Errorf("plans of an applied plan: %v", shown)
	}
	if n := f.ok("count", `{"path":"app.omgdb","collection":"users","filter":{"visits":1}}`)["count"]; n != 2.0 {
		t.Errorf("after apply, %v documents have visits", n)
	}
	hist := f.ok("history", `{"path":"app.omgdb","limit":1}`)
	if chs := hist["changes"].([]any); len(chs) != 1 || chs[0].(map[string]any)["change"] != token {
		t.Errorf("history: %v", hist)
	}
	first := hist["changes"].([]any)[0].(map[string]any)["first_lsn"].(float64)
	diff := f.ok("diff", fmt.Sprintf(`{"path":"app.omgdb","from":"%d","to":"%s"}`, int64(first)-1, token))
	if diff["updated"] != 2.0 || len(diff["documents"].([]any)) != 2 {
		t.Errorf("diff: %v", diff)
	}

	rb := f.ok("rollback", `{"path":"app.omgdb","change_id":"`+token+`"}`)
	if rb["rolled_back"] != token || rb["updated"] != 2.0 || nextActions(rb) == "" {
		t.Fatalf("rollback: %v", rb)
	}
	if got := dump(t, path); got != before {
		t.Errorf("after the round trip:\n%s\nwant:\n%s", got, before)
	}
	// A second apply of the same token is refused.
	if res := f.callTool("apply", `{"path":"app.omgdb","token":"`+token+`"}`); res["isError"] != true {
		t.Errorf("second apply: %v", res)
	}
}

// TestChanges_Conflict: a document changed after planning makes apply
// a CONFLICT that names it, and writes nothing.
func TestChanges_Conflict(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite})
	path := f.standardStore()
	token := f.ok("plan_delete", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"}}`)["token"].(string)
	f.ok("insert", `{"path":"app.omgdb","collection":"orders","document":{"_id":11}}`)
	other := f.ok("plan_update", `{"path":"app.omgdb","collection":"users","filter":{"_id":3},"update":{"$set":{"age":26}}}`)["token"].(string)
	f.ok("apply", `{"path":"app.omgdb","token":"`+other+`"}`)
	before := dump(t, path)
	res := f.callTool("apply", `{"path":"app.omgdb","token":"`+token+`"}`)
	if errorCode(res) != CodeConflict {
		t.Fatalf("apply after a change: %v", res)
	}
	ctx := structured(t, res)["context"].(map[string]any)
	b, _ := json.Marshal(ctx["documents"])
	if string(b) != `[{"_id":3,"collection":"users"}]` || ctx["conflicts"] != 1.0 {
		t.Errorf("conflict context: %v", ctx)
	}
	if dump(t, path) != before {
		t.Error("a conflicting apply wrote")
	}
	// Rolling back the first change after a later one touched the same
	// document conflicts too, unless forced.
	upd := f.ok("plan_update", `{"path":"app.omgdb","collection":"users","filter":{"_id":3},"update":{"$set":{"age":27}}}`)["token"].(string)
	f.ok("apply", `{"path":"app.omgdb","token":"`+upd+`"}`)
	if res := f.callTool("rollback", `{"path":"app.omgdb","change_id":"`+other+`"}`); errorCode(res) != CodeConflict {
		t.Errorf("rollback over a later change: %v", res)
	}
	if rb := f.ok("rollback", `{"path":"app.omgdb","change_id":"`+other+`","force":true}`); len(rb["overwritten"].([]any)) != 1 {
		t.Errorf("forced rollback: %v", rb)
	}
}

// TestChanges_Tools: each tool, once valid and once invalid.
func TestChanges_Tools(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeDangerous})
	path := f.standardStore()
	f.ok("create_snapshot", `{"path":"app.omgdb","name":"start"}`)
	ins := f.ok("insert", `{"path":"app.omgdb","collection":"users","document":{"_id":4,"name":"dee"}}`)["change_id"].(string)

	for _, tc := range []struct{ tool, args, code string }{
		{"history", `{"path":"app.omgdb","collection":"users","id":"4"}`, ""},
		{"history", `{"path":"app.omgdb","limit":0}`, CodeInvalidArgument},
		{"diff", `{"path":"app.omgdb","from":"start","collection":"users"}`, ""},
		{"diff", `{"path":"app.omgdb","from":"no-such-snapshot"}`, CodeNotFound},
		{"plans", `{"path":"app.omgdb","all":true}`, ""},
		{"plans", `{"path":"app.omgdb","token":"000000000000000000000000"}`, CodeNotFound},
		{"plan_update", `{"path":"app.omgdb","collection":"users","filter":{"_id":9},"update":{"$set":{"a":1}},"upsert":true,"sample":0}`, ""},
		{"plan_update", `{"path":"app.omgdb","collection":"users","filter":{"age":{"$gtee":1}},"update":{"$set":{"a":1}}}`, CodeInvalidFilter},
		{"plan_update", `{"path":"app.omgdb","collection":"users","update":{"$set":{"langs.$[x]":"rust"}},"array_filters":[{"x":"c"}],"multi":false}`, ""},
		{"plan_delete", `{"path":"app.omgdb","collection":"users","filter":{"_id":4}}`, ""},
		{"plan_delete", `{"path":"app.omgdb","collection":"users"}`, CodeInvalidArgument},
		{"plan_revert", `{"path":"app.omgdb","revision":"start"}`, ""},
		{"plan_revert", `{"path":"app.omgdb","revision":"nope-nope"}`, CodeNotFound},
		{"apply", `{"path":"app.omgdb","token":"000000000000000000000000"}`, CodeNotFound},
		{"rollback", `{"path":"app.omgdb","change_id":"000000000000000000000000"}`, CodeNotFound},
		{"rollback", `{"path":"app.omgdb"}`, CodeInvalidArgument},
		{"create_snapshot", `{"path":"app.omgdb","name":"start"}`, CodeConflict},
		{"create_snapshot", `{"path":"app.omgdb","name":"9bad"}`, CodeInvalidArgument},
		{"create_snapshot", `{"path":"app.omgdb","name":"mid","revision":"` + ins + `"}`, ""},
		{"delete_snapshot", `{"path":"app.omgdb","name":"mid"}`, ""},
		{"delete_snapshot", `{"path":"app.omgdb","name":"mid"}`, CodeNotFound},
		{"drop_collection", `{"path":"app.omgdb","collection":"ghost"}`, CodeNotFound},
		{"prune_history", `{"path":"app.omgdb","history_before":"nope-nope"}`, CodeNotFound},
	} {
		res := f.callTool(tc.tool, tc.args)
		f.checkOutput(tc.tool, structured(t, res))
		if got := errorCode(res); got != tc.code {
			t.Errorf("%s %s: code %q, want %q: %s", tc.tool, tc.args, got, tc.code, resultText(res))
		}
	}

	// drop_collection is a change that rollback undoes.
	before := dump(t, path)
	drop := f.ok("drop_collection", `{"path":"app.omgdb","collection":"orders"}`)
	if drop["dropped"] != 1.0 {
		t.Errorf("drop_collection: %v", drop)
	}
	f.ok("rollback", `{"path":"app.omgdb","change_id":"`+drop["change_id"].(string)+`"}`)
	if dump(t, path) != before {
		t.Error("rollback did not bring the dropped collection back")
	}

	// prune_history drops the journal up to the insert.
	pruned := f.ok("prune_history", `{"path":"app.omgdb","history_before":"`+ins+`"}`)
	if pruned["records_pruned"].(float64) < 1 {
		t.Errorf("prune_history: %v", pruned)
	}
	if dump(t, path) != before {
		t.Error("prune_history changed documents")
	}
	if res := f.callTool("diff", `{"path":"app.omgdb","from":"1"}`); res["isError"] != true {
		t.Errorf("diff from pruned history: %v", res)
	}
}

// TestChanges_Scope: a read-scope server neither lists nor runs the
// write and dangerous lifecycle tools, and its read tools work.
func TestChanges_Scope(t *testing.T) {
	f := newFixture(t, Config{})
	path := f.standardStore()
	before := dump(t, path)
	for _, name := range []string{"plan_update", "plan_delete", "plan_aggregate", "plan_revert", "apply", "rollback", "create_snapshot",
		"delete_snapshot", "drop_collection", "prune_history"} {
		if f.srv.listed(name) {
			t.Errorf("read scope lists %s", name)
		}
		res := f.callTool(name, `{"path":"app.omgdb","collection":"users","filter":{},"update":{"$set":{"a":1}},"token":"x","change_id":"x","name":"x","revision":"1","history_before":"1","pipeline":[{"$out":"x"}]}`)
		if errorCode(res) != CodeScopeDenied {
			t.Errorf("read scope ran %s: %v", name, res)
		}
	}
	for _, name := range []string{"history", "diff", "plans"} {
		if !f.srv.listed(name) {
			t.Errorf("read scope does not list %s", name)
		}
	}
	f.ok("history", `{"path":"app.omgdb"}`)
	f.ok("plans", `{"path":"app.omgdb"}`)
	f.ok("diff", `{"path":"app.omgdb","from":"0"}`)
	if dump(t, path) != before {
		t.Error("the store changed")
	}
	rw := newFixture(t, Config{Scope: ScopeReadWrite, Root: f.root})
	if res := rw.callTool("drop_collection", `{"path":"app.omgdb","collection":"users"}`); errorCode(res) != CodeScopeDenied {
		t.Errorf("read-write ran drop_collection: %v", res)
	}
}

// TestChanges_Policy: denied collections cannot be planned, and their
// documents do not appear in a diff; redacted fields stay out of plans.
func TestChanges_Policy(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, DenyCollections: []string{"orders"}, Redact: []string{"users.ssn"}})
	f.standardStore()
	if res := f.callTool("plan_delete", `{"path":"app.omgdb","collection":"orders","filter":{}}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("plan_delete on a denied collection: %v", res)
	}
	plan := f.callTool("plan_update", `{"path":"app.omgdb","collection":"users","filter":{"_id":1},"update":{"$set":{"age":37}}}`)
	if strings.Contains(resultText(plan), "111-11-1111") {
		t.Errorf("a plan shows a redacted field: %s", resultText(plan))
	}
	token := structured(t, plan)["token"].(string)
	if text := resultText(f.callTool("plans", `{"path":"app.omgdb","token":"`+token+`"}`)); strings.Contains(text, "111-11-1111") {
		t.Errorf("plans shows a redacted field: %s", text)
	}
	f.ok("apply", `{"path":"app.omgdb","token":"`+token+`"}`)
	// A plan or change of a hidden collection, made elsewhere, can be
	// neither applied nor rolled back here.
	open := newFixture(t, Config{Scope: ScopeReadWrite, Root: f.root})
	hidden := open.ok("plan_delete", `{"path":"app.omgdb","collection":"orders","filter":{}}`)["token"].(string)
	if res := f.callTool("apply", `{"path":"app.omgdb","token":"`+hidden+`"}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("apply of a plan of a hidden collection: %v", res)
	}
	if res := f.callTool("plans", `{"path":"app.omgdb","token":"`+hidden+`"}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("plans of a plan of a hidden collection: %v", res)
	}
	ins := open.ok("insert", `{"path":"app.omgdb","collection":"orders","document":{"_id":12}}`)["change_id"].(string)
	if res := f.callTool("rollback", `{"path":"app.omgdb","change_id":"`+ins+`"}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("rollback of a change to a hidden collection: %v", res)
	}
	if text := resultText(f.callTool("history", `{"path":"app.omgdb"}`)); strings.Contains(text, ins) {
		t.Errorf("history shows a change to a hidden collection: %s", text)
	}
	if text := resultText(f.callTool("diff", `{"path":"app.omgdb","from":"0"}`)); strings.Contains(text, "111-11-1111") || strings.Contains(text, `"orders"`) {
		t.Errorf("diff shows denied data: %s", text)
	}
}

// TestChanges_At: find, count and aggregate read the past with at, under
// the same policy as the present.
func TestChanges_At(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, DenyCollections: []string{"orders"}, Redact: []string{"users.ssn"}})
	f.standardStore()
	f.ok("create_snapshot", `{"path":"app.omgdb","name":"start"}`)
	tok := f.ok("plan_delete", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"}}`)["token"].(string)
	f.ok("apply", `{"path":"app.omgdb","token":"`+tok+`"}`)

	if n := f.ok("count", `{"path":"app.omgdb","collection":"users"}`)["count"]; n != 1.0 {
		t.Errorf("count now = %v", n)
	}
	if n := f.ok("count", `{"path":"app.omgdb","collection":"users","at":"start","filter":{"city":"Paris"}}`)["count"]; n != 2.0 {
		t.Errorf("count at start = %v", n)
	}
	res := f.callTool("find", `{"path":"app.omgdb","collection":"users","at":"start","limit":2}`)
	sc := structured(t, res)
	if join(docIDs(t, sc)) != "1,2" || sc["matched"] != 3.0 || sc["cursor"] == nil || strings.Contains(resultText(res), "111-11-1111") {
		t.Errorf("find at start: %v", sc)
	}
	next := f.ok("find", `{"path":"app.omgdb","collection":"users","at":"start","limit":2,"cursor":"`+sc["cursor"].(string)+`"}`)
	if join(docIDs(t, next)) != "3" {
		t.Errorf("find at start, page 2: %v", next)
	}
	if res := f.callTool("find", `{"path":"app.omgdb","collection":"users","limit":2,"cursor":"`+sc["cursor"].(string)+`"}`); res["isError"] != true {
		t.Errorf("a cursor of a find at a revision continued a find now: %v", res)
	}
	if res := f.callTool("find", `{"path":"app.omgdb","collection":"users","at":"start","filter":{"ssn":"111-11-1111"}}`); structured(t, res)["returned"] != 0.0 {
		t.Errorf("a filter at a revision saw a redacted field: %v", res)
	}
	agg := f.ok("aggregate", `{"path":"app.omgdb","collection":"users","at":"start","pipeline":[{"$group":{"_id":"$city","n":{"$sum":1}}},{"$sort":{"_id":1}}]}`)
	if b, _ := json.Marshal(agg["documents"]); string(b) != `[{"_id":"Lyon","n":1},{"_id":"Paris","n":2}]` {
		t.Errorf("aggregate at start: %s", b)
	}
	for _, tc := range []struct{ tool, args, code string }{
		{"find", `{"path":"app.omgdb","collection":"orders","at":"start"}`, CodePolicyDenied},
		{"aggregate", `{"path":"app.omgdb","collection":"users","at":"start","pipeline":[{"$lookup":{"from":"orders","localField":"_id","foreignField":"user","as":"o"}}]}`, CodePolicyDenied},
		{"count", `{"path":"app.omgdb","collection":"users","at":"no-such-snapshot"}`, CodeNotFound},
	} {
		if res := f.callTool(tc.tool, tc.args); errorCode(res) != tc.code {
			t.Errorf("%s %s: %v", tc.tool, tc.args, res)
		}
	}
}

// TestChanges_ResourcesAndPrompts: the plan, history and snapshots
// resources, and the time_travel and analyze_changes prompts.
func TestChanges_ResourcesAndPrompts(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, Redact: []string{"users.ssn"}})
	f.standardStore()
	f.ok("create_snapshot", `{"path":"app.omgdb","name":"start"}`)
	token := f.ok("plan_delete", `{"path":"app.omgdb","collection":"users","filter":{"_id":1}}`)["token"].(string)
	read := func(uri string) string {
		out := f.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + uri + `"}}`)
		return out[0]
	}
	for uri, want := range map[string]string{
		"omgdb://app.omgdb/plans/" + token:                 `\"op\":\"delete\"`,
		"omgdb://app.omgdb/snapshots":                      `\"name\":\"start\"`,
		"omgdb://app.omgdb/history":                        `\"changes\":[`,
		"omgdb://app.omgdb/plans/000000000000000000000000": `"code":-32002`,
		"omgdb://ghost.omgdb/history":                      `"code":-32002`,
	} {
		if got := read(uri); !strings.Contains(got, want) {
			t.Errorf("read %s: %s, want %s", uri, got, want)
		}
	}
	if got := read("omgdb://app.omgdb/plans/" + token); strings.Contains(got, "111-11-1111") {
		t.Errorf("the plan resource shows a redacted field: %s", got)
	}
	for _, tc := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"time_travel","arguments":{"path":"app.omgdb","question":"who was in Paris?"}}}`, "their at argument"},
		{`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"analyze_changes","arguments":{"path":"app.omgdb","collection":"users"}}}`, "call rollback with its change_id only after the user confirms"},
		{`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"time_travel","arguments":{"path":"app.omgdb","when":"x"}}}`, `"code":-32602`},
	} {
		if out := f.send(tc.line); !strings.Contains(out[0], tc.want) {
			t.Errorf("%s: %s", tc.line, out[0])
		}
	}
	ro := newFixture(t, Config{Root: f.root})
	out := ro.send(`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"analyze_changes","arguments":{"path":"app.omgdb"}}}`)
	if !strings.Contains(out[0], "This server cannot undo changes") {
		t.Errorf("analyze_changes at read scope: %s", out[0])
	}
}

func validateSchema(schema, instance any) error {
	b, _ := json.Marshal(schema)
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return err
	}
	b, _ = json.Marshal(instance)
	var v any
	json.Unmarshal(b, &v)
	return rs.Validate(v)
}

// TestChanges_Caps: diffs, plans and versions are capped like a find.
func TestChanges_Caps(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, MaxDocs: 1, MaxString: 5})
	f.standardStore()
	tok := f.ok("plan_update", `{"path":"app.omgdb","collection":"users","update":{"$set":{"note":"a long note"}}}`)["token"].(string)
	shown := f.ok("plans", `{"path":"app.omgdb","token":"`+tok+`"}`)
	if len(shown["documents"].([]any)) != 1 || shown["applied_limits"] == nil {
		t.Errorf("plans token under caps: %v", shown)
	}
	f.ok("apply", `{"path":"app.omgdb","token":"`+tok+`"}`)
	diff := f.ok("diff", `{"path":"app.omgdb","from":"0"}`)
	limits, _ := diff["applied_limits"].(map[string]any)
	if len(diff["documents"].([]any)) != 1 || limits["max_docs"] != 1.0 || limits["max_string"] != 5.0 {
		t.Errorf("diff under caps: %v", diff)
	}
}

// TestPlanUpdate_Pipeline: plan_update takes an update pipeline, and
// refuses one on a collection with redacted fields (its expressions could
// copy a redacted value into another field).
func TestPlanUpdate_Pipeline(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite})
	f.standardStore()
	plan := f.ok("plan_update", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"},"update":[{"$set":{"tag":{"$concat":["$city","!"]}}}]}`)
	if plan["modified"] != 2.0 {
		t.Fatalf("pipeline plan: %v", plan)
	}
	if res := f.callTool("plan_update", `{"path":"app.omgdb","collection":"users","update":"$set"}`); errorCode(res) != CodeInvalidArgument {
		t.Errorf("a string update: %v", res)
	}
	r := newFixture(t, Config{Scope: ScopeReadWrite, Redact: []string{"users.city"}})
	r.standardStore()
	res := r.callTool("plan_update", `{"path":"app.omgdb","collection":"users","filter":{},"update":[{"$set":{"copy":"$city"}}]}`)
	if errorCode(res) != CodePolicyDenied {
		t.Errorf("a pipeline on a redacted collection: %v", res)
	}
}
