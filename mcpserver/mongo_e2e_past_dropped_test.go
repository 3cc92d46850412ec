package mcpserver_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// runOmgdb runs `omgdb args…` (this test binary as omgdb) and returns
// its standard output; a failure stops the test.
func runOmgdb(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "OMGDB_TEST_MAIN=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("omgdb %v: %v %s", args, err, out)
	}
	return out
}

// wantNoMention checks that a result names none of names, anywhere in
// its structured content.
func wantNoMention(names ...string) func(*testing.T, map[string]any) {
	return func(t *testing.T, sc map[string]any) {
		t.Helper()
		js, _ := json.Marshal(sc)
		for _, n := range names {
			if strings.Contains(string(js), n) {
				t.Errorf("the result names %q: %s", n, js)
			}
		}
	}
}

// TestMongo_MCPPast_Dropped: a read-scope server reads with at a
// collection dropped (patients, redacted) or renamed (visits, now wards)
// through omgdb since, under the name it had then, through the
// redactions of that name; a name that held no collection at the
// revision (never, or not yet, or no longer) is NOT_FOUND without naming
// another collection, the collection a drop kept aside and omgdb's own
// are NOT_FOUND too, a denied name is POLICY_DENIED whatever existed
// then, and the fence still refuses an allowed name whose collection a
// rename has put under a denied one since, though no collection holds
// the old name now.
func TestMongo_MCPPast_Dropped(t *testing.T) {
	cs, uri, audit := startMongoMCP(t)
	tools := listTools(t, cs)
	c := mongotest.Client(t, uri)
	db := c.Database(uri[strings.LastIndex(uri, "/")+1:])
	runOmgdb(t, "snapshot", "create", uri, "s0")
	runOmgdb(t, "drop", uri, "patients")
	runOmgdb(t, "rename", uri, "visits", "wards")
	runOmgdb(t, "drop", uri, "secrets")
	runOmgdb(t, "snapshot", "create", uri, "s1")
	names, err := db.ListCollectionNames(t.Context(), m{})
	if err != nil {
		t.Fatal(err)
	}
	var aside []string
	for _, n := range names {
		if strings.HasPrefix(n, "omgdb_dropped_") {
			aside = append(aside, n)
		}
	}
	if len(aside) != 2 {
		t.Fatalf("collections after two drops: %v", names)
	}
	// Names a did-you-mean or a hint could give away.
	others := append([]string{"patients", "visits", "wards", "secrets", "topsecret", "omgdb_dropped", "did you mean"}, aside...)
	notFound := func(coll, at string) func(*testing.T, map[string]any) {
		return all(wantMessage("collection `"+coll+"` did not exist at revision "+at),
			wantNoMention(without(others, coll)...))
	}
	var texts []string
	texts = append(texts, runMongoCases(t, cs, tools, []mongoCase{
		// Dropped since: read as it was, its redacted fields absent,
		// numbers of each type, null and missing as they were.
		{name: "dropped_find", tool: "find", args: m{"collection": "patients", "at": "s0"},
			check: all(wantIDs(1, 2, 3), wantRedacted("ssn", "card.number"),
				wantDoc(0, `{"_id":1,"name":"ana","card":{"exp":"12/30"},"age":30}`),
				wantDoc(1, `{"_id":2,"name":"bob","card":[{},{"exp":"01/31"}],"age":41}`),
				wantDoc(2, `{"_id":3,"name":"cy","age":25.5}`))},
		{name: "dropped_probe", tool: "find", args: m{"collection": "patients", "at": "s0", "filter": m{"ssn": "111-11"}}, check: wantIDs()},
		{name: "dropped_probe_null", tool: "count", args: m{"collection": "patients", "at": "s0", "filter": m{"ssn": nil}}, check: wantField("count", 3.0)},
		{name: "dropped_mixed_numbers", tool: "count", args: m{"collection": "patients", "at": "s0", "filter": m{"age": m{"$gte": 30}}}, check: wantField("count", 2.0)},
		{name: "dropped_aggregate", tool: "aggregate", args: m{"collection": "patients", "at": "s0",
			"pipeline": []any{m{"$group": m{"_id": nil, "age": m{"$sum": "$age"}, "ssns": m{"$push": "$ssn"}, "cards": m{"$push": "$card.number"}}}}},
			check: wantDoc(0, `{"_id":null,"age":96.5,"ssns":[],"cards":[[]]}`)},
		{name: "dropped_now", tool: "find", args: m{"collection": "patients"}, code: "NOT_FOUND"},
		{name: "dropped_after_drop", tool: "find", args: m{"collection": "patients", "at": "s1"}, code: "NOT_FOUND", check: notFound("patients", "s1")},
		// Renamed since: under the old name; the new name did not exist then.
		{name: "renamed_find", tool: "find", args: m{"collection": "visits", "at": "s0", "filter": m{"patient": 2}}, check: wantIDs(2, 3)},
		{name: "renamed_null", tool: "find", args: m{"collection": "visits", "at": "s0", "filter": m{"note": nil}}, check: wantIDs(1, 2)},
		{name: "renamed_count", tool: "count", args: m{"collection": "visits", "at": "1"}, check: wantField("count", 3.0)},
		{name: "renamed_empty", tool: "find", args: m{"collection": "visits", "at": "s0", "filter": m{"ward": "Z"}},
			check: all(wantIDs(), wantField("empty_reason", "no document of `visits` matched the filter (the diagnose tool tells why, predicate by predicate)"))},
		{name: "renamed_aggregate", tool: "aggregate", args: m{"collection": "visits", "at": "s0",
			"pipeline": []any{m{"$sort": m{"_id": -1}}, m{"$project": m{"ward": 1}}}},
			check: all(wantIDs(3, 2, 1), wantDoc(0, `{"_id":3,"ward":"C"}`))},
		// Joins at a revision read their collections then.
		{name: "join_renamed", tool: "aggregate", args: m{"collection": "patients", "at": "s0",
			"pipeline": []any{m{"$unionWith": "visits"}, m{"$group": m{"_id": nil, "n": m{"$sum": 1}, "ssns": m{"$push": "$ssn"}}}}},
			check: wantDoc(0, `{"_id":null,"n":6,"ssns":[]}`)},
		{name: "join_new_name_before", tool: "aggregate", args: m{"collection": "patients", "at": "s0", "pipeline": []any{m{"$unionWith": "wards"}}},
			code: "NOT_FOUND", check: notFound("wards", "s0")},
		{name: "join_redacted", tool: "aggregate", args: m{"collection": "visits", "at": "s0", "pipeline": []any{m{"$unionWith": "patients"}}}, code: "POLICY_DENIED"},
		{name: "join_denied", tool: "aggregate", args: m{"collection": "visits", "at": "s0", "pipeline": []any{m{"$unionWith": "secrets"}}}, code: "POLICY_DENIED"},
		{name: "new_name_before", tool: "find", args: m{"collection": "wards", "at": "s0"}, code: "NOT_FOUND", check: notFound("wards", "s0")},
		{name: "new_name_now", tool: "count", args: m{"collection": "wards", "at": "s1"}, check: wantField("count", 3.0)},
		{name: "old_name_after", tool: "count", args: m{"collection": "visits", "at": "s1"}, code: "NOT_FOUND", check: notFound("visits", "s1")},
		// Never a collection: no did-you-mean, nothing named.
		{name: "never", tool: "find", args: m{"collection": "secret", "at": "s0"}, code: "NOT_FOUND", check: notFound("secret", "s0")},
		{name: "never_near_dropped", tool: "count", args: m{"collection": "patient", "at": "s0"}, code: "NOT_FOUND", check: notFound("patient", "s0")},
		{name: "never_aggregate", tool: "aggregate", args: m{"collection": "ward", "at": "s1", "pipeline": []any{}}, code: "NOT_FOUND", check: notFound("ward", "s1")},
		// What omgdb keeps: the aside collections (one holds patients'
		// ssns, unredacted), the journal, the server's own.
		{name: "aside_at", tool: "find", args: m{"collection": aside[0], "at": "s1"}, code: "NOT_FOUND", check: notFound(aside[0], "s1")},
		{name: "aside_at_now", tool: "find", args: m{"collection": aside[1], "at": "now"}, code: "NOT_FOUND",
			check: all(wantMessage("collection `"+aside[1]+"` does not exist now"), wantNoMention(without(others, aside[1])...))},
		{name: "journal_at", tool: "find", args: m{"collection": "omgdb.changes", "at": "s1"}, code: "NOT_FOUND", check: notFound("omgdb.changes", "s1")},
		{name: "system_at", tool: "count", args: m{"collection": "system.views", "at": "s0"}, code: "NOT_FOUND", check: notFound("system.views", "s0")},
		// Denied, whatever existed then, and dropped since.
		{name: "denied_at", tool: "find", args: m{"collection": "secrets", "at": "s0"}, code: "POLICY_DENIED", check: wantNoMention("topsecret")},
		{name: "denied_after", tool: "count", args: m{"collection": "secrets", "at": "s1"}, code: "POLICY_DENIED"},
		// diff across the drop: the documents deleted, redacted.
		{name: "diff_dropped", tool: "diff", args: m{"from": "s0", "to": "s1", "collection": "patients"},
			check: all(wantField("deleted", 3.0), wantField("inserted", 0.0))},
	})...)

	// wards (once visits) renamed onto the denied name, and changed there
	// around omgdb: visits at s0 and wards at s1 are fenced, though
	// no collection is named visits or wards now.
	runOmgdb(t, "rename", uri, "wards", "secrets")
	if _, err := db.Collection("secrets").UpdateOne(t.Context(), m{"_id": 1}, m{"$set": m{"ward": "leaked-ward"}}); err != nil {
		t.Fatal(err)
	}
	runOmgdb(t, "snapshot", "create", uri, "s2")
	fenced := wantMessage("collection `visits` was renamed after that revision, and its documents are now under a name that this server's policy hides or redacts otherwise")
	texts = append(texts, runMongoCases(t, cs, tools, []mongoCase{
		{name: "fence_find", tool: "find", args: m{"collection": "visits", "at": "s0"}, code: "POLICY_DENIED", check: fenced},
		{name: "fence_count", tool: "count", args: m{"collection": "wards", "at": "s1"}, code: "POLICY_DENIED"},
		{name: "fence_aggregate", tool: "aggregate", args: m{"collection": "visits", "at": "1", "pipeline": []any{m{"$match": m{"ward": "leaked-ward"}}}}, code: "POLICY_DENIED"},
		{name: "fence_diff", tool: "diff", args: m{"from": "s0", "collection": "visits"}, code: "POLICY_DENIED"},
		{name: "gone_after", tool: "find", args: m{"collection": "wards", "at": "s2"}, code: "NOT_FOUND", check: notFound("wards", "s2")},
		{name: "dropped_still", tool: "count", args: m{"collection": "patients", "at": "s0"}, check: wantField("count", 3.0)},
	})...)
	log, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"111-11", "4111", "4222", "4333", "topsecret", "leaked-ward"} {
		for _, s := range append(texts, string(log)) {
			if containsLeak(s, leak) {
				t.Errorf("%s appears in %s", leak, s)
			}
		}
	}
}

// without is names without drop and the names drop starts with.
func without(names []string, drop string) []string {
	var out []string
	for _, n := range names {
		if n != drop && !strings.HasPrefix(drop, n) {
			out = append(out, n)
		}
	}
	return out
}
