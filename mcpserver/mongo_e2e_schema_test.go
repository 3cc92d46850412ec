package mcpserver_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// Collections and indexes over MongoDB through the MCP server, driven by
// the official SDK's client: create_collection, create_index and
// rename_collection at read-write scope, drop_collection and drop_index
// at dangerous scope, each journaled and rolled back to the exact
// original (documents read with the driver, type for type; indexes with
// their options); the policy (deny list, redactions, omgdb's own
// collections) and the scopes, at tools/list and tools/call.

func indexNames(t *testing.T, db *mongo.Database, coll string) string {
	t.Helper()
	cur, err := db.Collection(coll).Indexes().List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var specs []struct {
		Name   string `bson:"name"`
		Unique bool   `bson:"unique"`
	}
	if err := cur.All(context.Background(), &specs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range specs {
		if s.Unique {
			s.Name += "(unique)"
		}
		out = append(out, s.Name)
	}
	return strings.Join(out, ",")
}

func collNames(t *testing.T, db *mongo.Database) string {
	t.Helper()
	names, err := db.ListCollectionNames(context.Background(), bson.D{}, options.ListCollections().SetNameOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		if !strings.HasPrefix(n, "omgdb") {
			out = append(out, n)
		}
	}
	return strings.Join(sortStrings(out), ",")
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// callCheck is callMongo, then the case's check.
func callCheck(t *testing.T, cs *mcp.ClientSession, tools []*mcp.Tool, tc mongoCase) map[string]any {
	t.Helper()
	sc, _ := callMongo(t, cs, tools, tc)
	if tc.check != nil {
		tc.check(t, sc)
	}
	return sc
}

func TestMongo_MCPDangerous_Tools(t *testing.T) {
	cs, _, _ := startMongoMCP(t, "--scope", "dangerous")
	tools := listTools(t, cs)
	want := "describe,find,count,distinct,aggregate,export,insert,insert_many,create_collection,rename_collection,explain,diagnose,vsearch,search,context_pack,stats,list_indexes,suggest_indexes,create_index,drop_index,history,diff,plans,plan_update,plan_delete,plan_aggregate,plan_revert,apply,rollback,create_snapshot,delete_snapshot,drop_collection,prune_history"
	if got := toolNames(tools); got != want {
		t.Fatalf("tools/list over MongoDB at dangerous: %s, want %s", got, want)
	}
	for _, name := range []string{"drop_collection", "drop_index"} {
		tl := findTool(tools, name)
		if tl.Annotations == nil || tl.Annotations.DestructiveHint == nil || !*tl.Annotations.DestructiveHint {
			t.Errorf("%s is not marked destructive", name)
		}
	}
	for _, tc := range []mongoCase{
		{tool: "prune_history", args: m{"history_before": "1"}, code: "NOT_FOUND", check: wantMessage("past the end of the journal")},
		{tool: "create_snapshot", args: m{"name": "before"}, check: wantField("name", "before")},
		{tool: "delete_snapshot", args: m{"name": "before"}},
		{tool: "delete_snapshot", args: m{"name": "before"}, code: "NOT_FOUND"},
		{tool: "find", args: m{"collection": "visits", "at": "before"}, code: "NOT_FOUND"},
		{tool: "drop_index", args: m{"collection": "visits", "name": "x", "collation": m{"locale": "en"}}, code: "INVALID_ARGUMENT"},
		// The collation is sent with the index; FerretDB has none.
		{tool: "create_index", args: m{"collection": "visits", "fields": "ward", "collation": m{"locale": "en"}}, code: "INVALID_ARGUMENT",
			check: wantMessage("does not support collations: it answered NotImplemented")},
		{tool: "create_index", args: m{"collection": "visits", "fields": "ward", "collation": m{"locale": "en", "strenght": 1}}, code: "INVALID_ARGUMENT",
			check: wantMessage("collation: invalid collation: unknown field `strenght`")},
		// prune_history removes the journal through a revision: the index
		// change made here (seq 2: the refused index above took seq 1 and
		// journaled nothing), then nothing is left to list.
		{tool: "create_index", args: m{"collection": "visits", "fields": "ward"}},
		{tool: "prune_history", args: m{"history_before": "now"}, check: all(wantField("changes_pruned", 1.0), wantField("history_starts_at_seq", 2.0))},
		{tool: "history", args: m{}, check: wantField("returned", 0.0)},
		{tool: "find", args: m{"collection": "visits", "at": "0"}, code: "NOT_FOUND", check: wantMessage("before the history kept")},
	} {
		sc, _ := callMongo(t, cs, tools, tc)
		if tc.check != nil {
			tc.check(t, sc)
		}
	}
}

// TestMongo_MCPDangerous_Lifecycle creates, renames and drops, with
// indexes, then rolls every change back, newest first: the database
// holds exactly what it held.
func TestMongo_MCPDangerous_Lifecycle(t *testing.T) {
	cs, uri, audit := startMongoMCP(t, "--scope", "dangerous")
	tools := listTools(t, cs)
	db := mongotest.Client(t, uri).Database(uri[strings.LastIndex(uri, "/")+1:])
	orig, origNames, origIx := rawDocs(t, db, "visits"), collNames(t, db), indexNames(t, db, "visits")
	var ids []string
	step := func(tc mongoCase) map[string]any {
		t.Helper()
		sc, _ := callMongo(t, cs, tools, tc)
		if tc.check != nil {
			tc.check(t, sc)
		}
		id, _ := sc["change_id"].(string)
		if len(id) != 24 {
			t.Fatalf("%s: no change_id: %v", tc.tool, sc)
		}
		ids = append(ids, id)
		return sc
	}
	step(mongoCase{tool: "create_collection", args: m{"collection": "events"}, check: wantField("collection", "events")})
	callMongo(t, cs, tools, mongoCase{tool: "create_collection", args: m{"collection": "events"}, code: "CONFLICT"})
	step(mongoCase{tool: "create_index", args: m{"collection": "visits", "fields": "ward,patient:-1", "unique": true}, check: wantField("name", "ward_1_patient_-1")})
	if got := indexNames(t, db, "visits"); got != "_id_,ward_1_patient_-1(unique)" {
		t.Fatalf("indexes after create_index: %s", got)
	}
	step(mongoCase{tool: "drop_index", args: m{"collection": "visits", "name": "ward,patient:-1"}, check: wantField("dropped", "ward_1_patient_-1")})
	step(mongoCase{tool: "create_index", args: m{"collection": "visits", "fields": "ward", "name": "by_ward"}, check: wantField("name", "by_ward")})
	step(mongoCase{tool: "rename_collection", args: m{"collection": "visits", "to": "stays"},
		check: all(wantField("renamed_to", "stays"), wantField("documents", 3.0), wantField("indexes", 1.0))})
	wantRaw(t, db, "stays", orig...)
	step(mongoCase{tool: "drop_collection", args: m{"collection": "stays"}, check: all(wantField("dropped", 3.0), wantField("next_valid_actions", []any{"rollback", "history"}))})
	if got := collNames(t, db); got != "events,patients,secrets" {
		t.Fatalf("collections after the drop: %s", got)
	}
	callMongo(t, cs, tools, mongoCase{tool: "find", args: m{"collection": "stays"}, code: "NOT_FOUND"})
	hist, _ := callMongo(t, cs, tools, mongoCase{tool: "history", args: m{}})
	changes, _ := hist["changes"].([]any)
	if len(changes) != len(ids) || changes[0].(map[string]any)["kind"] != "drop" || changes[0].(map[string]any)["note"] != "drop stays" {
		t.Fatalf("history: %v", hist)
	}
	for i := len(ids) - 1; i >= 0; i-- {
		callCheck(t, cs, tools, mongoCase{tool: "rollback", args: m{"change_id": ids[i]}, check: all(wantField("rolled_back", ids[i]), wantMessage("undid "))})
	}
	wantRaw(t, db, "visits", orig...)
	if got := collNames(t, db); got != origNames {
		t.Errorf("collections after the rollbacks: %s, want %s", got, origNames)
	}
	if got := indexNames(t, db, "visits"); got != origIx {
		t.Errorf("indexes after the rollbacks: %s, want %s", got, origIx)
	}
	log, _ := os.ReadFile(audit)
	if strings.Contains(string(log), "111-11") {
		t.Error("the audit log holds a redacted value")
	}
}

// TestMongo_MCPSchema_Refusals: the policy and the scopes. A read-write
// server lists no drop tool and refuses one (SCOPE_DENIED); denied
// collections, redacted fields, omgdb's own collections and bad input
// are refused before anything is written.
func TestMongo_MCPSchema_Refusals(t *testing.T) {
	cs, tools, db, _, _ := mongoRW(t)
	before := collNames(t, db)
	cases := []mongoCase{
		{name: "drop_at_rw", tool: "drop_collection", args: m{"collection": "visits"}, code: "SCOPE_DENIED"},
		{name: "drop_index_at_rw", tool: "drop_index", args: m{"collection": "visits", "name": "_id_"}, code: "SCOPE_DENIED"},
		{name: "create_denied", tool: "create_collection", args: m{"collection": "secrets"}, code: "POLICY_DENIED"},
		{name: "rename_denied", tool: "rename_collection", args: m{"collection": "secrets", "to": "open"}, code: "POLICY_DENIED"},
		{name: "rename_to_denied", tool: "rename_collection", args: m{"collection": "visits", "to": "secrets"}, code: "POLICY_DENIED"},
		{name: "rename_redaction", tool: "rename_collection", args: m{"collection": "patients", "to": "people"}, code: "POLICY_DENIED"},
		{name: "index_redacted", tool: "create_index", args: m{"collection": "patients", "fields": "ssn", "unique": true}, code: "POLICY_DENIED"},
		{name: "index_denied", tool: "create_index", args: m{"collection": "secrets", "fields": "key"}, code: "POLICY_DENIED"},
		{name: "rename_missing", tool: "rename_collection", args: m{"collection": "vists", "to": "x"}, code: "NOT_FOUND", check: wantMessage("did you mean `visits`?")},
		{name: "rename_to_other_redactions", tool: "rename_collection", args: m{"collection": "visits", "to": "patients"}, code: "POLICY_DENIED"},
		{name: "rename_omgdb", tool: "rename_collection", args: m{"collection": "omgdb.changes", "to": "x"}, code: "NOT_FOUND"},
		{name: "create_omgdb", tool: "create_collection", args: m{"collection": "omgdb.x"}, code: "INVALID_ARGUMENT"},
		{name: "index_missing", tool: "create_index", args: m{"collection": "nope", "fields": "a"}, code: "NOT_FOUND"},
		{name: "index_bad_fields", tool: "create_index", args: m{"collection": "visits", "fields": "a:2"}, code: "INVALID_ARGUMENT"},
		{name: "index_named", tool: "create_index", args: m{"collection": "visits", "fields": "patient", "name": "ward_1"}, check: wantField("name", "ward_1")},
		{name: "unique_dup_name", tool: "create_index", args: m{"collection": "visits", "fields": "note", "name": "ward_1"}, code: "CONFLICT"},
		{name: "index_unique_on_staff", tool: "create_index", args: m{"collection": "staff", "fields": "name", "unique": true}, check: wantField("name", "name_1")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc, _ := callMongo(t, cs, tools, tc)
			if tc.check != nil {
				tc.check(t, sc)
			}
		})
	}
	if got := collNames(t, db); got != before {
		t.Errorf("collections after the refusals: %s, want %s", got, before)
	}
	// A taken name is a conflict, and changes nothing.
	callMongo(t, cs, tools, mongoCase{tool: "create_collection", args: m{"collection": "wards"}})
	callCheck(t, cs, tools, mongoCase{tool: "rename_collection", args: m{"collection": "visits", "to": "wards"}, code: "CONFLICT", check: wantMessage("collection `wards` already exists")})
	if got := collNames(t, db); got != "patients,secrets,staff,visits,wards" {
		t.Errorf("collections after a refused rename: %s", got)
	}
	// A unique index the documents break (ward is A, B, C: make two equal).
	if _, err := db.Collection("visits").UpdateOne(context.Background(), bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "ward", Value: "A"}}}}); err != nil {
		t.Fatal(err)
	}
	sc, text := callMongo(t, cs, tools, mongoCase{tool: "create_index", args: m{"collection": "visits", "fields": "ward", "unique": true, "name": "u"}, code: "CONFLICT"})
	if !strings.Contains(text, "some documents have the same key") || strings.Contains(text, `"A"`) {
		t.Errorf("unique violation: %s (%v)", text, sc)
	}
	if got := indexNames(t, db, "visits"); strings.Contains(got, ",u") {
		t.Errorf("the refused index exists: %s", got)
	}
}
