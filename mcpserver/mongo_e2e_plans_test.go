package mcpserver_test

import (
	"strings"
	"testing"
)

// TestMongo_MCPPlansAndAggregate: plan_aggregate over MongoDB plans a
// $out and a $merge as on a store file (the target's documents read back
// with the driver, type for type, after apply and after rollback); the
// plans tool lists and shows the plans, at read-write scope and at read
// scope, where it is the only way to plans (no write tool is listed or
// callable).
func TestMongo_MCPPlansAndAggregate(t *testing.T) {
	cs, tools, db, uri, _ := mongoRW(t)

	// $group by ward with a count: a new target, created by apply (an
	// integer argument is a long, so $sum of 1 is a long).
	plan, _ := callMongo(t, cs, tools, mongoCase{tool: "plan_aggregate", args: m{"collection": "visits",
		"pipeline": []any{m{"$group": m{"_id": "$ward", "n": m{"$sum": 1}}}, m{"$out": "by_ward"}}}})
	all(wantField("kind", "aggregate"), wantField("collection", "by_ward"), wantField("matched", 3.0), wantField("modified", 3.0),
		wantField("creates_collection", true), wantField("next_valid_actions", []any{"apply", "plans"}))(t, plan)
	tok := plan["token"].(string)

	listed, _ := callMongo(t, cs, tools, mongoCase{tool: "plans", args: m{}})
	ps, _ := listed["plans"].([]any)
	if len(ps) != 1 || ps[0].(map[string]any)["token"] != tok || ps[0].(map[string]any)["source"] != "visits" || ps[0].(map[string]any)["pipeline"] != nil {
		t.Fatalf("plans: %v; want the plan, without its pipeline", listed)
	}
	shown, _ := callMongo(t, cs, tools, mongoCase{tool: "plans", args: m{"token": tok}})
	docs, _ := shown["documents"].([]any)
	if len(docs) != 3 || docs[0].(map[string]any)["op"] != "insert" || !jsonEqual(shown["next_valid_actions"], []any{"apply"}) {
		t.Fatalf("plans show: %v", shown)
	}

	applied, _ := callMongo(t, cs, tools, mongoCase{tool: "apply", args: m{"token": tok}})
	all(wantField("inserted", 3.0), wantField("conflicts", []any{}))(t, applied)
	wantRaw(t, db, "by_ward", `{"_id":"A","n":{"$numberLong":"1"}}`, `{"_id":"B","n":{"$numberLong":"1"}}`, `{"_id":"C","n":{"$numberLong":"1"}}`)

	// $merge with a whenMatched pipeline into the target: updates.
	merge, _ := callMongo(t, cs, tools, mongoCase{tool: "plan_aggregate", args: m{"collection": "visits",
		"pipeline": []any{m{"$match": m{"ward": m{"$in": []any{"A", "C"}}}}, m{"$group": m{"_id": "$ward"}},
			m{"$merge": m{"into": "by_ward", "whenMatched": []any{m{"$set": m{"n": m{"$add": []any{"$n", m{"$numberLong": "10"}}}}}}, "whenNotMatched": "fail"}}}}})
	all(wantField("matched", 2.0), wantField("modified", 2.0))(t, merge)
	applied, _ = callMongo(t, cs, tools, mongoCase{tool: "apply", args: m{"token": merge["token"]}})
	wantField("updated", 2.0)(t, applied)
	wantRaw(t, db, "by_ward", `{"_id":"A","n":{"$numberLong":"11"}}`, `{"_id":"B","n":{"$numberLong":"1"}}`, `{"_id":"C","n":{"$numberLong":"11"}}`)
	callMongo(t, cs, tools, mongoCase{tool: "rollback", args: m{"change_id": applied["change_id"]}})
	wantRaw(t, db, "by_ward", `{"_id":"A","n":{"$numberLong":"1"}}`, `{"_id":"B","n":{"$numberLong":"1"}}`, `{"_id":"C","n":{"$numberLong":"1"}}`)
	callMongo(t, cs, tools, mongoCase{tool: "rollback", args: m{"change_id": tok}})
	wantRaw(t, db, "by_ward")

	// whenNotMatched "fail" with no match: CONFLICT, nothing planned.
	callMongo(t, cs, tools, mongoCase{tool: "plan_aggregate", args: m{"collection": "visits",
		"pipeline": []any{m{"$group": m{"_id": "Z"}}, m{"$merge": m{"into": "by_ward", "whenNotMatched": "fail"}}}}, code: "CONFLICT"})

	// A pending plan, seen from a read-scope server on the same database:
	// plans lists and shows it; no write tool is there to apply it.
	pending, _ := callMongo(t, cs, tools, mongoCase{tool: "plan_update", args: m{"collection": "visits", "filter": m{"_id": 2}, "update": m{"$set": m{"ward": "Q"}}}})
	rcs := startStdio(t, t.TempDir(), "--store", uri)
	rtools := listTools(t, rcs)
	if got := toolNames(rtools); strings.Contains(got, "apply") || strings.Contains(got, "plan_") || !strings.Contains(got, "plans") {
		t.Fatalf("read scope lists %s", got)
	}
	rlisted, _ := callMongo(t, rcs, rtools, mongoCase{tool: "plans", args: m{}})
	rps, _ := rlisted["plans"].([]any)
	if len(rps) != 1 || rps[0].(map[string]any)["token"] != pending["token"] || rps[0].(map[string]any)["filter"] != nil {
		t.Errorf("read-scope plans: %v", rlisted)
	}
	all, _ := callMongo(t, rcs, rtools, mongoCase{tool: "plans", args: m{"all": true}})
	if aps, _ := all["plans"].([]any); len(aps) < 4 {
		t.Errorf("read-scope plans --all: %v", all)
	}
	rshown, _ := callMongo(t, rcs, rtools, mongoCase{tool: "plans", args: m{"token": pending["token"]}})
	if d, _ := rshown["documents"].([]any); len(d) != 1 || d[0].(map[string]any)["op"] != "update" {
		t.Errorf("read-scope plans show: %v", rshown)
	}
	callMongo(t, rcs, rtools, mongoCase{tool: "apply", args: m{"token": pending["token"]}, code: "SCOPE_DENIED"})
	callMongo(t, rcs, rtools, mongoCase{tool: "plan_aggregate", args: m{"collection": "visits", "pipeline": []any{m{"$out": "x"}}}, code: "SCOPE_DENIED"})
	callMongo(t, rcs, rtools, mongoCase{tool: "plans", args: m{"token": "nope"}, code: "INVALID_ARGUMENT"})
	wantRaw(t, db, "by_ward")
}
