package mcpserver_test

import (
	"os"
	"testing"
)

// TestMongo_MCPPast drives time travel over MongoDB through the official
// SDK's client at read-write scope: snapshots, find, count and aggregate
// with at, diff, plan_revert then apply; redacted values stay out of every
// result (at, diff, revert samples) and the audit log; denied collections
// and delete_snapshot (dangerous scope) are refused.
func TestMongo_MCPPast(t *testing.T) {
	cs, tools, db, _, audit := mongoRW(t)
	orig := rawDocs(t, db, "visits")
	snap, _ := callMongo(t, cs, tools, mongoCase{tool: "create_snapshot", args: m{"name": "s0"}})
	all(wantField("name", "s0"), wantField("seq", 0.0))(t, snap)
	if _, ok := snap["change"]; ok {
		t.Errorf("snapshot before any change names a change: %v", snap)
	}
	// Two changes: visits 1 gets a ward and a long; patients 1 (whose ssn
	// and card.number are redacted) gets an age as a long.
	for _, c := range []m{
		{"collection": "visits", "filter": m{"_id": 1}, "update": m{"$set": m{"ward": "Q", "n": m{"$numberLong": "7"}}}},
		{"collection": "patients", "filter": m{"_id": 1}, "update": m{"$set": m{"age": m{"$numberLong": "31"}}}},
	} {
		plan, _ := callMongo(t, cs, tools, mongoCase{tool: "plan_update", args: c})
		callMongo(t, cs, tools, mongoCase{tool: "apply", args: m{"token": plan["token"]}})
	}
	var texts []string
	cases := []mongoCase{
		{name: "find_at_s0", tool: "find", args: m{"collection": "visits", "filter": m{"_id": 1}, "at": "s0"},
			check: wantDoc(0, `{"_id":1,"patient":1,"ward":"A","note":null}`)},
		{name: "find_now", tool: "find", args: m{"collection": "visits", "filter": m{"_id": 1}},
			check: wantDoc(0, `{"_id":1,"patient":1,"ward":"Q","note":null,"n":7}`)},
		{name: "find_at_seq_1", tool: "find", args: m{"collection": "patients", "filter": m{"_id": 1}, "at": "1"},
			check: wantDoc(0, `{"_id":1,"name":"ana","card":{"exp":"12/30"},"age":30}`)},
		// A filter on a redacted field sees it missing, at a revision too.
		{name: "probe_at", tool: "find", args: m{"collection": "patients", "filter": m{"ssn": "111-11"}, "at": "s0"}, check: wantIDs()},
		{name: "probe_null_at", tool: "count", args: m{"collection": "patients", "filter": m{"ssn": nil}, "at": "s0"}, check: wantField("count", 3.0)},
		{name: "count_at", tool: "count", args: m{"collection": "visits", "filter": m{"ward": "A"}, "at": "s0"}, check: wantField("count", 1.0)},
		{name: "count_now", tool: "count", args: m{"collection": "visits", "filter": m{"ward": "A"}}, check: wantField("count", 0.0)},
		{name: "aggregate_at", tool: "aggregate", args: m{"collection": "patients", "at": "s0",
			"pipeline": []any{m{"$group": m{"_id": nil, "n": m{"$sum": 1}, "ssns": m{"$push": "$ssn"}}}}},
			check: wantDoc(0, `{"_id":null,"n":3,"ssns":[]}`)},
		{name: "at_unknown", tool: "find", args: m{"collection": "visits", "at": "s9"}, code: "NOT_FOUND", check: wantMessage(`unknown revision "s9"`)},
		{name: "at_denied", tool: "find", args: m{"collection": "secrets", "at": "s0"}, code: "POLICY_DENIED"},
		{name: "diff_denied", tool: "diff", args: m{"from": "s0", "collection": "secrets"}, code: "POLICY_DENIED"},
		{name: "diff_reversed", tool: "diff", args: m{"from": "2", "to": "s0"}, code: "INVALID_ARGUMENT", check: wantMessage("is after revision s0")},
		{name: "snapshot_taken", tool: "create_snapshot", args: m{"name": "s0"}, code: "CONFLICT"},
		{name: "snapshot_bad_name", tool: "create_snapshot", args: m{"name": "../x"}, code: "INVALID_ARGUMENT"},
		{name: "revert_two_collections", tool: "plan_revert", args: m{"revision": "s0"}, code: "INVALID_ARGUMENT", check: wantMessage("wrote 2 collections (patients, visits)")},
		{name: "revert_denied", tool: "plan_revert", args: m{"revision": "s0", "collection": "secrets"}, code: "POLICY_DENIED"},
		{name: "delete_snapshot_dangerous", tool: "delete_snapshot", args: m{"name": "s0"}, code: "SCOPE_DENIED"},
	}
	texts = append(texts, runMongoCases(t, cs, tools, cases)...)

	diff, text := callMongo(t, cs, tools, mongoCase{tool: "diff", args: m{"from": "s0"}})
	texts = append(texts, text)
	all(wantField("inserted", 0.0), wantField("deleted", 0.0), wantField("updated", 2.0))(t, diff)
	docs, _ := diff["documents"].([]any)
	if len(docs) != 2 {
		t.Fatalf("diff s0: %v", diff)
	}
	pd, vd := docs[0].(map[string]any), docs[1].(map[string]any)
	if pd["collection"] != "patients" || pd["fields"] != nil || !jsonEqual(pd["after"], m{"_id": 1, "name": "ana", "card": m{"exp": "12/30"}, "age": 31}) {
		t.Errorf("diff of the redacted patient: %v", pd)
	}
	if vd["collection"] != "visits" || !jsonEqual(vd["fields"], []any{
		m{"path": "ward", "op": "changed", "before": "A", "after": "Q"}, m{"path": "n", "op": "added", "after": 7}}) {
		t.Errorf("diff of the visit: %v", vd)
	}
	if from, _ := diff["from"].(map[string]any); from["kind"] != "snapshot" || from["seq"] != 0.0 {
		t.Errorf("diff from: %v", diff["from"])
	}

	// Revert the visits to s0: a plan, then its apply gives back the
	// exact originals (the long n removed, the ward back).
	plan, text := callMongo(t, cs, tools, mongoCase{tool: "plan_revert", args: m{"revision": "s0", "collection": "visits"}})
	texts = append(texts, text)
	all(wantField("kind", "revert"), wantField("matched", 1.0), wantField("modified", 1.0), wantField("collections", []any{"visits"}))(t, plan)
	wantRaw(t, db, "visits", append(orig[:0:0], `{"_id":{"$numberInt":"1"},"patient":{"$numberLong":"1"},"ward":"Q","note":null,"n":{"$numberLong":"7"}}`, orig[1], orig[2])...)
	callMongo(t, cs, tools, mongoCase{tool: "apply", args: m{"token": plan["token"]}})
	wantRaw(t, db, "visits", orig...)
	// The patients' revert: its samples are redacted.
	plan, text = callMongo(t, cs, tools, mongoCase{tool: "plan_revert", args: m{"revision": "s0", "collection": "patients"}})
	texts = append(texts, text)
	if s, _ := plan["sampleBeforeAfter"].([]any); len(s) != 1 || !jsonEqual(s[0].(map[string]any)["after"], m{"_id": 1, "name": "ana", "card": m{"exp": "12/30"}, "age": 30}) {
		t.Errorf("revert samples: %v", plan["sampleBeforeAfter"])
	}
	log, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"111-11", "4111", "4222", "4333"} {
		for _, s := range append(texts, string(log)) {
			if containsLeak(s, secret) {
				t.Errorf("redacted value %s appears in %s", secret, s)
			}
		}
	}
}

// TestMongo_MCPReadScope_Past: a read-scope server offers at and diff,
// and no snapshot or revert tool.
func TestMongo_MCPReadScope_Past(t *testing.T) {
	cs, _, _ := startMongoMCP(t)
	tools := listTools(t, cs)
	runMongoCases(t, cs, tools, []mongoCase{
		{name: "find_now", tool: "find", args: m{"collection": "visits", "filter": m{"_id": 2}, "at": "now"}, check: wantIDs(2)},
		{name: "diff_empty", tool: "diff", args: m{"from": "now"}, check: all(wantField("updated", 0.0), wantField("documents", []any{}))},
		{name: "create_snapshot", tool: "create_snapshot", args: m{"name": "x"}, code: "SCOPE_DENIED"},
		{name: "plan_revert", tool: "plan_revert", args: m{"revision": "now"}, code: "SCOPE_DENIED"},
		{name: "delete_snapshot", tool: "delete_snapshot", args: m{"name": "x"}, code: "SCOPE_DENIED"},
	})
}
