package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// The MCP server over Streamable HTTP (bearer token, SSE answers) with a
// MongoDB engine: the read-scope hostile suite (write routes refused,
// redaction probes, deny-list joins, caps, cursors, fencing, the audit
// log) and a read-write lifecycle (plan, apply, rollback, insert,
// export), checked with the driver.

func TestMongo_MCPReadScope_HostileHTTP(t *testing.T) { runMongoHostile(t, startHTTP) }

func TestMongo_MCPReadWrite_HTTP(t *testing.T) {
	cs, uri, audit := startMongoMCPWith(t, startHTTP, "--scope", "read-write")
	tools := listTools(t, cs)
	if got, want := toolNames(tools), mongoReadWriteTools; got != want {
		t.Fatalf("tools/list over HTTP: %s, want %s", got, want)
	}
	c := mongotest.Client(t, uri)
	db := c.Database(uri[strings.LastIndex(uri, "/")+1:])
	orig := rawDocs(t, db, "visits")
	origPatients := rawDocs(t, db, "patients")
	var texts []string
	call := func(tc mongoCase) map[string]any {
		t.Helper()
		sc, text := callMongo(t, cs, tools, tc)
		texts = append(texts, text)
		return sc
	}

	// An update of documents matched through an array and by null
	// against missing, then its rollback.
	plan := call(mongoCase{tool: "plan_update", args: m{"collection": "visits", "filter": m{"patient": 2},
		"update": m{"$inc": m{"n": m{"$numberLong": "1"}}, "$set": m{"d": 0.5}}}})
	all(wantField("matched", 2.0), wantField("modified", 2.0))(t, plan)
	wantRaw(t, db, "visits", orig...)
	applied := call(mongoCase{tool: "apply", args: m{"token": plan["token"]}})
	all(wantField("updated", 2.0), wantField("conflicts", []any{}), wantField("transaction", false))(t, applied)
	wantRaw(t, db, "visits", orig[0],
		`{"_id":{"$numberInt":"2"},"patient":{"$numberLong":"2"},"ward":"B","d":{"$numberDouble":"0.5"},"n":{"$numberLong":"1"}}`,
		strings.TrimSuffix(orig[2], "}")+`,"d":{"$numberDouble":"0.5"},"n":{"$numberLong":"1"}}`)
	rb := call(mongoCase{tool: "rollback", args: m{"change_id": applied["change_id"]}})
	all(wantField("rolled_back", applied["change_id"]), wantField("updated", 2.0))(t, rb)
	wantRaw(t, db, "visits", orig...)

	// A plan that tests a redacted field is refused; one that does not
	// keeps the redacted values, and the samples hide them.
	call(mongoCase{tool: "plan_update", args: m{"collection": "patients", "filter": m{"ssn": "111-11"}, "update": m{"$set": m{"x": 1}}}, code: "POLICY_DENIED"})
	plan = call(mongoCase{tool: "plan_delete", args: m{"collection": "patients", "filter": m{"_id": 1}}})
	applied = call(mongoCase{tool: "apply", args: m{"token": plan["token"]}})
	wantRaw(t, db, "patients", origPatients[1:]...)
	call(mongoCase{tool: "rollback", args: m{"change_id": applied["change_id"]}})
	wantRaw(t, db, "patients", origPatients...)

	// An insert, then its rollback; a write to a denied collection.
	ins := call(mongoCase{tool: "insert_many", args: m{"collection": "visits", "documents": []any{m{"_id": 9, "ward": nil}, m{"_id": m{"$numberLong": "10"}}}}})
	wantField("inserted_ids", []any{9.0, 10.0})(t, ins)
	if got := rawDocs(t, db, "visits"); len(got) != 5 || got[4] != `{"_id":{"$numberLong":"10"}}` {
		t.Errorf("after insert_many: %v", got)
	}
	call(mongoCase{tool: "rollback", args: m{"change_id": ins["change_id"]}})
	wantRaw(t, db, "visits", orig...)
	call(mongoCase{tool: "insert", args: m{"collection": "secrets", "document": m{"x": 1}}, code: "POLICY_DENIED"})
	call(mongoCase{tool: "plan_delete", args: m{"collection": "secrets", "filter": m{}}, code: "POLICY_DENIED"})

	// History over HTTP lists the changes, newest first.
	hist := call(mongoCase{tool: "history", args: m{"limit": 10}})
	if changes, _ := hist["changes"].([]any); len(changes) != 6 || changes[0].(map[string]any)["kind"] != "rollback" || changes[1].(map[string]any)["kind"] != "insert" {
		t.Errorf("history: %v", hist)
	}

	// An export read page by page over HTTP, redacted.
	exp := call(mongoCase{tool: "export", args: m{"collection": "patients", "project": m{"name": 1, "ssn": 1}}})
	pages := readExport(t, cs, exp["uri"].(string))
	if strings.Join(pages, "") != `{"_id":1,"name":"ana"}`+"\n"+`{"_id":2,"name":"bob"}`+"\n"+`{"_id":3,"name":"cy"}`+"\n" {
		t.Errorf("export over HTTP: %q", pages)
	}
	texts = append(texts, pages...)
	for _, leak := range []string{"111-11", "4111", "topsecret"} {
		if containsLeak(strings.Join(texts, "\n"), leak) {
			t.Errorf("a result shows %q", leak)
		}
	}
	// The audit log has a line per call and no data.
	checkLeaks(t, texts[:len(texts)-len(pages)], "Untrusted planned documents", audit, len(texts)-len(pages),
		[]string{"111-11", "4111", "topsecret"}, []string{"111-11", "ignore previous", "topsecret", uri})
}
