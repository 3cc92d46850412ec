package mcpserver_test

import (
	"testing"
)

// TestMongo_MCPReadScope_History: a read-scope server over MongoDB
// serves history (it only reads the journal, through an interface with no
// write method, as on a file where history is a read tool): a change
// applied by a read-write server is listed with its id and counts; a
// denied collection is POLICY_DENIED; with id, a document's versions,
// redacted, of the collections the policy shows.
func TestMongo_MCPReadScope_History(t *testing.T) {
	rw, tools, _, uri, _ := mongoRW(t)
	plan, _ := callMongo(t, rw, tools, mongoCase{tool: "plan_update", args: m{"collection": "visits", "filter": m{"_id": 1}, "update": m{"$set": m{"ward": "Z"}}}})
	applied, _ := callMongo(t, rw, tools, mongoCase{tool: "apply", args: m{"token": plan["token"]}})

	// A change on a collection with redacted fields, for the versions.
	pp, _ := callMongo(t, rw, tools, mongoCase{tool: "plan_update", args: m{"collection": "patients", "filter": m{"_id": 1}, "update": m{"$set": m{"name": "ann"}}}})
	callMongo(t, rw, tools, mongoCase{tool: "apply", args: m{"token": pp["token"]}})

	ro := startStdio(t, t.TempDir(), "--store", uri, "--deny-collections", "secrets", "--redact", "patients.ssn,patients.card.number")
	roTools := listTools(t, ro)
	if tl := findTool(roTools, "history"); tl == nil {
		t.Fatal("history is not listed at read scope")
	}
	sc, _ := callMongo(t, ro, roTools, mongoCase{tool: "history", args: m{"collection": "visits"}})
	chs, _ := sc["changes"].([]any)
	if len(chs) != 1 || sc["returned"] != 1.0 {
		t.Fatalf("history at read scope: %v", sc)
	}
	ch := chs[0].(map[string]any)
	if ch["change"] != applied["change_id"] || ch["updated"] != 1.0 || ch["status"] != "applied" {
		t.Errorf("the change: %v, want %v applied with 1 update", ch, applied["change_id"])
	}
	callMongo(t, ro, roTools, mongoCase{tool: "history", args: m{"collection": "secrets"}, code: "POLICY_DENIED"})
	// A document's versions: redacted as every read, only the collections
	// the policy shows.
	sc, text := callMongo(t, ro, roTools, mongoCase{tool: "history", args: m{"id": "1", "collection": "patients"}})
	vs, _ := sc["versions"].([]any)
	if len(vs) != 1 || !jsonEqual(vs[0].(map[string]any)["doc"], m{"_id": 1.0, "name": "ann", "card": m{"exp": "12/30"}, "age": 30.0}) {
		t.Errorf("versions of patient 1: %v", sc)
	}
	if containsLeak(text, "111-11") || containsLeak(text, "4111") {
		t.Errorf("a version shows a redacted value: %s", text)
	}
	sc, _ = callMongo(t, ro, roTools, mongoCase{tool: "history", args: m{"id": "1"}})
	if sc["returned"] != 2.0 {
		t.Errorf("versions of _id 1 in every visible collection: %v", sc)
	}
	callMongo(t, ro, roTools, mongoCase{tool: "history", args: m{"id": "1", "collection": "secrets"}, code: "POLICY_DENIED"})
	callMongo(t, ro, roTools, mongoCase{tool: "history", args: m{"id": "42"}, code: "NOT_FOUND"})
	callMongo(t, ro, roTools, mongoCase{tool: "rollback", args: m{"change_id": applied["change_id"]}, code: "SCOPE_DENIED"})
}
