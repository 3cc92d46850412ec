package mcpserver_test

import (
	"strings"
	"testing"
)

// TestMongo_MCPReadWrite_Insert: insert and insert_many over MongoDB,
// each one change that history lists and rollback undoes, the documents
// read back with the driver type for type; all or none on a duplicate
// _id; the file tools' caps, the deny list, omgdb's collections and a
// redacted field under a unique index refused with nothing written; a
// redacted field elsewhere written and hidden from reads; no redacted
// value in a result or the audit log.
func TestMongo_MCPReadWrite_Insert(t *testing.T) {
	cs, tools, db, uri, audit := mongoRW(t)
	origVisits, origStaff := rawDocs(t, db, "visits"), rawDocs(t, db, "staff")
	var texts []string
	calls := 0
	call := func(tc mongoCase) map[string]any {
		t.Helper()
		sc, text := callMongo(t, cs, tools, tc)
		texts = append(texts, text)
		calls++
		return sc
	}

	// One document with int, long, double, null, an array of mixed
	// numbers and a nested document: stored type for type.
	one := call(mongoCase{tool: "insert", args: m{"collection": "visits", "document": m{"_id": 4, "i": m{"$numberInt": "7"},
		"l": m{"$numberLong": "8"}, "d": 2.5, "n": nil, "a": []any{1, m{"$numberLong": "2"}, "x", nil}, "o": m{"p": m{}}}}})
	all(wantField("collection", "visits"), wantField("inserted_id", 4.0), wantField("created_collection", false))(t, one)
	doc4 := `{"_id":{"$numberInt":"4"},"a":[{"$numberInt":"1"},{"$numberLong":"2"},"x",null],"d":{"$numberDouble":"2.5"},` +
		`"i":{"$numberInt":"7"},"l":{"$numberLong":"8"},"n":null,"o":{"p":{}}}`
	wantRaw(t, db, "visits", append(append([]string(nil), origVisits...), doc4)...)

	// Without _id, into a collection that does not exist: an ObjectId,
	// and the collection is created.
	gen := call(mongoCase{tool: "insert", args: m{"collection": "wards", "document": m{"name": "east"}}})
	wantField("created_collection", true)(t, gen)
	oid, _ := gen["inserted_id"].(map[string]any)["$oid"].(string)
	wantRaw(t, db, "wards", `{"_id":{"$oid":"`+oid+`"},"name":"east"}`)

	many := call(mongoCase{tool: "insert_many", args: m{"collection": "visits", "documents": []any{
		m{"_id": 5, "ward": "D"}, m{"_id": m{"$numberLong": "6"}, "ward": nil}, m{"_id": 7.5}}}})
	all(wantField("inserted", 3.0), wantField("inserted_ids", []any{5.0, 6.0, 7.5}), wantField("created_collection", false))(t, many)
	if got := rawDocs(t, db, "visits"); len(got) != 7 || got[5] != `{"_id":{"$numberLong":"6"},"ward":null}` {
		t.Errorf("after insert_many: %v", got)
	}

	// History lists each insert as one change; rollback removes exactly
	// its documents.
	hist := call(mongoCase{tool: "history", args: m{"limit": 3}})
	changes, _ := hist["changes"].([]any)
	if len(changes) != 3 {
		t.Fatalf("history %v", hist)
	}
	for i, want := range []struct {
		id       any
		inserted float64
	}{{many["change_id"], 3}, {gen["change_id"], 1}, {one["change_id"], 1}} {
		h := changes[i].(map[string]any)
		if h["change"] != want.id || h["kind"] != "insert" || h["inserted"] != want.inserted || !strings.HasPrefix(h["actor"].(string), "mcp:") {
			t.Errorf("history[%d] = %v, want change %v inserting %v", i, h, want.id, want.inserted)
		}
	}
	rb := call(mongoCase{tool: "rollback", args: m{"change_id": many["change_id"]}})
	all(wantField("rolled_back", many["change_id"]), wantField("deleted", 3.0), wantField("conflicts", []any{}))(t, rb)
	rb = call(mongoCase{tool: "rollback", args: m{"change_id": one["change_id"]}})
	wantField("deleted", 1.0)(t, rb)
	wantRaw(t, db, "visits", origVisits...)

	// All or none: a taken _id after a new one writes nothing.
	dup := call(mongoCase{tool: "insert_many", args: m{"collection": "visits", "documents": []any{m{"_id": 10}, m{"_id": 1}, m{"_id": 11}}}, code: "CONFLICT"})
	wantMessage("duplicate _id 1")(t, dup)
	wantRaw(t, db, "visits", origVisits...)

	for _, tc := range []mongoCase{
		{name: "empty", tool: "insert_many", args: m{"collection": "visits", "documents": []any{}}, code: "INVALID_ARGUMENT"},
		{name: "too_many", tool: "insert_many", args: m{"collection": "visits", "documents": make([]any, 1001)}, code: "INVALID_ARGUMENT"},
		{name: "not_an_object", tool: "insert_many", args: m{"collection": "visits", "documents": []any{m{"_id": 20}, 5}}, code: "INVALID_ARGUMENT",
			check: wantMessage("documents[1] must be a JSON object")},
		{name: "array_id", tool: "insert", args: m{"collection": "visits", "document": m{"_id": []any{1}}}, code: "INVALID_ARGUMENT"},
		{name: "denied", tool: "insert", args: m{"collection": "secrets", "document": m{"x": 1}}, code: "POLICY_DENIED"},
		{name: "denied_many", tool: "insert_many", args: m{"collection": "secrets", "documents": []any{m{"x": 1}}}, code: "POLICY_DENIED"},
		{name: "omgdb_collection", tool: "insert", args: m{"collection": "omgdb.changes", "document": m{"x": 1}}, code: "NOT_FOUND"},
		{name: "system_collection", tool: "insert_many", args: m{"collection": "system.js", "documents": []any{m{"x": 1}}}, code: "NOT_FOUND"},
		{name: "other_path", tool: "insert", args: m{"path": "app.omgdb", "collection": "visits", "document": m{"x": 1}}, code: "PATH_DENIED"},
		// staff.email is redacted and under a unique index: whether it met
		// a duplicate would tell another document's address.
		{name: "unique_redacted", tool: "insert", args: m{"collection": "staff", "document": m{"_id": 3, "email": "a@x.org"}}, code: "POLICY_DENIED",
			check: wantMessage("a redacted field of `staff` under the unique index")},
		{name: "unique_redacted_many", tool: "insert_many", args: m{"collection": "staff", "documents": []any{m{"_id": 3}, m{"_id": 4, "email": "c@x.org"}}}, code: "POLICY_DENIED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, text := callMongo(t, cs, tools, tc)
			texts = append(texts, text)
			calls++
			if tc.check != nil {
				tc.check(t, sc)
			}
		})
	}
	wantRaw(t, db, "visits", origVisits...)
	wantRaw(t, db, "staff", origStaff...)
	if got := rawDocs(t, db, "secrets"); len(got) != 1 {
		t.Errorf("secrets holds %v", got)
	}

	// A redacted field not under a unique index is written, and reads
	// hide it.
	call(mongoCase{tool: "insert", args: m{"collection": "staff", "document": m{"_id": 5, "name": "e"}}})
	call(mongoCase{tool: "insert", args: m{"collection": "patients", "document": m{"_id": 4, "name": "dee", "ssn": "999-99"}}})
	if got := rawDocs(t, db, "patients"); len(got) != 4 || got[3] != `{"_id":{"$numberInt":"4"},"name":"dee","ssn":"999-99"}` {
		t.Errorf("patients after the insert: %v", got)
	}
	found := call(mongoCase{tool: "find", args: m{"collection": "patients", "filter": m{"_id": 4}}})
	wantDoc(0, `{"_id":4,"name":"dee"}`)(t, found)

	checkLeaks(t, texts, "Untrusted documents of `patients`", audit, calls,
		[]string{"999-99", "a@x.org", "c@x.org", "111-11", "topsecret"},
		[]string{"999-99", "c@x.org", `"dee"`, `"east"`, uri})
}
