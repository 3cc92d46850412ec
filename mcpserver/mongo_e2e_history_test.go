package mcpserver_test

import (
	"testing"
)

// TestMongo_MCPReadScope_History: a read-scope server over MongoDB
// serves history (it only reads the journal, through an interface with no
// write method, as on a file where history is a read tool): a change
// applied by a read-write server is listed with its id and counts; a
// denied collection is POLICY_DENIED; the id argument (a document's
// versions) is not offered.
func TestMongo_MCPReadScope_History(t *testing.T) {
	rw, tools, _, uri, _ := mongoRW(t)
	plan, _ := callMongo(t, rw, tools, mongoCase{tool: "plan_update", args: m{"collection": "visits", "filter": m{"_id": 1}, "update": m{"$set": m{"ward": "Z"}}}})
	applied, _ := callMongo(t, rw, tools, mongoCase{tool: "apply", args: m{"token": plan["token"]}})

	ro := startStdio(t, t.TempDir(), "--store", uri, "--deny-collections", "secrets")
	roTools := listTools(t, ro)
	if tl := findTool(roTools, "history"); tl == nil {
		t.Fatal("history is not listed at read scope")
	} else if props, _ := tl.InputSchema.(map[string]any)["properties"].(map[string]any); props["id"] != nil {
		t.Error("history offers id over MongoDB")
	}
	sc, _ := callMongo(t, ro, roTools, mongoCase{tool: "history", args: m{}})
	chs, _ := sc["changes"].([]any)
	if len(chs) != 1 || sc["returned"] != 1.0 {
		t.Fatalf("history at read scope: %v", sc)
	}
	ch := chs[0].(map[string]any)
	if ch["change"] != applied["change_id"] || ch["updated"] != 1.0 || ch["status"] != "applied" {
		t.Errorf("the change: %v, want %v applied with 1 update", ch, applied["change_id"])
	}
	callMongo(t, ro, roTools, mongoCase{tool: "history", args: m{"collection": "secrets"}, code: "POLICY_DENIED"})
	callMongo(t, ro, roTools, mongoCase{tool: "history", args: m{"id": 1}, code: "INVALID_ARGUMENT"})
	callMongo(t, ro, roTools, mongoCase{tool: "rollback", args: m{"change_id": applied["change_id"]}, code: "SCOPE_DENIED"})
}
