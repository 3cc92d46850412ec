package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// TestMongo_MCPPast_FollowFence: a read at a revision follows a
// collection through the renames made since, but a read-scope server
// does not follow an allowed name to where its documents now sit under a
// name its policy redacts otherwise (patients) or denies (secrets):
// visits renamed onto patients (written around omgdb since, a new ssn
// there) and onto secrets are POLICY_DENIED at the revision before, for
// find, count, aggregate and diff, and no value written there reaches a
// result; a collection followed through nothing but its own name, or
// through the collection a drop kept aside, is read. The test makes new
// collections under the old names: a new one is read now, and is not
// what the name held at the revision (mongo_e2e_past_dropped_test.go
// reads with no collection under the old name).
func TestMongo_MCPPast_FollowFence(t *testing.T) {
	cs, uri, _ := startMongoMCP(t)
	tools := listTools(t, cs)
	omgdbCLI := func(args ...string) { t.Helper(); runOmgdb(t, args...) }
	c := mongotest.Client(t, uri)
	db := c.Database(uri[strings.LastIndex(uri, "/")+1:])
	omgdbCLI("snapshot", "create", uri, "s0")
	runMongoCases(t, cs, tools, []mongoCase{
		{name: "before_any_rename", tool: "count", args: m{"collection": "visits", "at": "s0"}, check: wantField("count", 3.0)},
	})
	// visits onto patients (redacted: ssn): patients is kept aside.
	// A new visits is made, read now only.
	omgdbCLI("rename", uri, "visits", "patients", "--drop-target")
	if _, err := db.Collection("patients").UpdateOne(t.Context(), m{"_id": 1}, m{"$set": m{"ssn": "999-99"}}); err != nil {
		t.Fatal(err)
	}
	mongotest.Insert(t, c, db.Name(), "visits", `{"_id":9,"ward":"new"}`)
	var texts []string
	texts = append(texts, runMongoCases(t, cs, tools, []mongoCase{
		{name: "find_renamed_onto_redacted", tool: "find", args: m{"collection": "visits", "at": "s0"}, code: "POLICY_DENIED",
			check: wantMessage("collection `visits` was renamed after that revision, and its documents are now under a name that this server's policy hides or redacts otherwise")},
		{name: "aggregate_renamed_onto_redacted", tool: "aggregate", args: m{"collection": "visits", "at": "s0", "pipeline": []any{m{"$project": m{"ssn": 1}}}}, code: "POLICY_DENIED"},
		{name: "diff_renamed_onto_redacted", tool: "diff", args: m{"from": "s0"}, code: "POLICY_DENIED"},
		{name: "diff_of_visits", tool: "diff", args: m{"from": "s0", "collection": "visits"}, code: "POLICY_DENIED"},
		// patients at s0: read from the collection the rename kept aside, redacted.
		{name: "patients_from_aside", tool: "find", args: m{"collection": "patients", "at": "s0", "filter": m{"_id": 1}},
			check: wantDoc(0, `{"_id":1,"name":"ana","card":{"exp":"12/30"},"age":30}`)},
	})...)
	// patients (the renamed visits) onto secrets (denied).
	omgdbCLI("snapshot", "create", uri, "s1")
	omgdbCLI("rename", uri, "patients", "secrets", "--drop-target")
	if _, err := db.Collection("secrets").UpdateOne(t.Context(), m{"_id": 2}, m{"$set": m{"key": "leaked-key"}}); err != nil {
		t.Fatal(err)
	}
	mongotest.Insert(t, c, db.Name(), "patients", `{"_id":9,"name":"new"}`)
	texts = append(texts, runMongoCases(t, cs, tools, []mongoCase{
		{name: "count_renamed_onto_denied", tool: "count", args: m{"collection": "patients", "at": "s1"}, code: "POLICY_DENIED"},
		{name: "find_twice_renamed", tool: "find", args: m{"collection": "visits", "at": "s0"}, code: "POLICY_DENIED"},
		{name: "diff_from_s1", tool: "diff", args: m{"from": "s1"}, code: "POLICY_DENIED"},
		{name: "new_visits_now", tool: "find", args: m{"collection": "visits", "at": "now"}, check: wantIDs(9)},
	})...)
	for _, s := range texts {
		for _, secret := range []string{"999-99", "leaked-key", "topsecret"} {
			if strings.Contains(s, secret) {
				t.Errorf("%s appears in %s", secret, s)
			}
		}
	}
}
