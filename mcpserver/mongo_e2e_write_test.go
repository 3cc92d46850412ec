package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// The read-write MCP server over a MongoDB deployment (the embedded
// FerretDB), driven by the official SDK's client: plan, apply, the
// documents as the driver reads them (values and types), history,
// rollback back to the exact originals; conflicts made by another writer
// between plan and apply; the redaction and deny-list policy on plans;
// omgdb's own collections out of reach. FerretDB has no transactions, so
// every apply here runs document by document with its preconditions.

// mongoRW starts `omgdb mcp --scope read-write` over the fixture of
// startMongoMCP plus a collection `staff` whose redacted `email` has a
// unique index; it returns the session, its tools, a driver handle on
// the database, the URI and the audit file.
func mongoRW(t *testing.T) (*mcp.ClientSession, []*mcp.Tool, *mongo.Database, string, string) {
	cs, uri, audit := startMongoMCP(t, "--scope", "read-write", "--redact", "staff.email")
	c := mongotest.Client(t, uri)
	db := c.Database(uri[strings.LastIndex(uri, "/")+1:])
	mongotest.Insert(t, c, db.Name(), "staff", `{"_id":1,"email":"a@x.org","name":"a"}`, `{"_id":2,"email":"b@x.org","name":"b"}`)
	ix := mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}, Options: options.Index().SetUnique(true)}
	if _, err := db.Collection("staff").Indexes().CreateOne(context.Background(), ix); err != nil {
		t.Fatal(err)
	}
	return cs, listTools(t, cs), db, uri, audit
}

// rawDocs returns a collection's documents as canonical Extended JSON, in
// _id order: every field, in order, with its type.
func rawDocs(t *testing.T, db *mongo.Database, coll string) []string {
	t.Helper()
	cur, err := db.Collection(coll).Find(context.Background(), bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for cur.Next(context.Background()) {
		b, err := bson.MarshalExtJSON(cur.Current, true, false)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func wantRaw(t *testing.T, db *mongo.Database, coll string, want ...string) {
	t.Helper()
	if got := rawDocs(t, db, coll); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s holds\n%s\nwant\n%s", coll, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// mongoReadWriteTools are the tools a read-write server over MongoDB
// lists, over stdio and HTTP alike.
const mongoReadWriteTools = "describe,find,count,distinct,aggregate,export,insert,insert_many,create_collection,rename_collection,explain,diagnose,vsearch,search,context_pack,stats,list_indexes,suggest_indexes,create_index,history,diff,plans,plan_update,plan_delete,plan_aggregate,plan_revert,apply,rollback,create_snapshot"

func TestMongo_MCPReadWrite_Tools(t *testing.T) {
	cs, tools, _, _, _ := mongoRW(t)
	if got, want := toolNames(tools), mongoReadWriteTools; got != want {
		t.Fatalf("tools/list over MongoDB at read-write: %s, want %s", got, want)
	}
	for _, tl := range tools {
		destructive := tl.Name == "apply" || tl.Name == "rollback"
		if tl.Annotations == nil || (tl.Annotations.DestructiveHint != nil && *tl.Annotations.DestructiveHint) != destructive {
			t.Errorf("%s: destructiveHint is not %v", tl.Name, destructive)
		}
		// Descriptions promise nothing the deployment does not keep: no
		// all-or-nothing apply without a transaction, no lsn.
		for _, promise := range []string{"If any planned document changed since, nothing is written", "lsn"} {
			if strings.Contains(tl.Description, promise) {
				t.Errorf("%s's description promises %q: %s", tl.Name, promise, tl.Description)
			}
		}
	}
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "written through reviewable plans") || !strings.Contains(got, "plan_update") {
		t.Errorf("instructions %q do not say how to write", got)
	}
}

// TestMongo_MCPReadWrite_Lifecycle plans, applies, lists and rolls back
// an update and a deletion, checking the documents with the driver.
func TestMongo_MCPReadWrite_Lifecycle(t *testing.T) {
	cs, tools, db, _, _ := mongoRW(t)
	orig := rawDocs(t, db, "visits")

	// null matches missing (null_query_semantics.js): documents 1 and 2;
	// $inc by a long makes a long (inc-SERVER-7446.js keeps the type).
	plan, _ := callMongo(t, cs, tools, mongoCase{tool: "plan_update", args: m{"collection": "visits", "filter": m{"note": nil},
		"update": m{"$set": m{"ward": "Z"}, "$inc": m{"n": m{"$numberLong": "5"}}}}})
	wantField("matched", 2.0)(t, plan)
	wantField("modified", 2.0)(t, plan)
	wantField("next_valid_actions", []any{"apply", "plans"})(t, plan)
	if s, _ := plan["sampleBeforeAfter"].([]any); len(s) != 2 {
		t.Fatalf("sampleBeforeAfter %v, want 2 pairs", plan["sampleBeforeAfter"])
	}
	wantRaw(t, db, "visits", orig...) // a plan writes nothing
	tok := plan["token"].(string)

	applied, _ := callMongo(t, cs, tools, mongoCase{tool: "apply", args: m{"token": tok}})
	all(wantField("change_id", tok), wantField("updated", 2.0), wantField("inserted", 0.0), wantField("deleted", 0.0),
		wantField("conflicts", []any{}), wantField("transaction", false),
		wantField("next_valid_actions", []any{"rollback", "history"}))(t, applied)
	wantRaw(t, db, "visits",
		`{"_id":{"$numberInt":"1"},"patient":{"$numberLong":"1"},"ward":"Z","note":null,"n":{"$numberLong":"5"}}`,
		`{"_id":{"$numberInt":"2"},"patient":{"$numberLong":"2"},"ward":"Z","n":{"$numberLong":"5"}}`,
		orig[2])

	again, _ := callMongo(t, cs, tools, mongoCase{tool: "apply", args: m{"token": tok}, code: "CONFLICT"})
	wantMessage("applied")(t, again)

	hist, _ := callMongo(t, cs, tools, mongoCase{tool: "history", args: m{}})
	changes, _ := hist["changes"].([]any)
	if len(changes) != 1 {
		t.Fatalf("history %v, want one change", hist)
	}
	h := changes[0].(map[string]any)
	if h["change"] != tok || h["kind"] != "apply" || h["updated"] != 2.0 || h["status"] != "applied" || !jsonEqual(h["collections"], []string{"visits"}) {
		t.Errorf("history entry %v", h)
	}
	if actor, _ := h["actor"].(string); !strings.HasPrefix(actor, "mcp:") {
		t.Errorf("history actor %q, want mcp:<client>", h["actor"])
	}

	rb, _ := callMongo(t, cs, tools, mongoCase{tool: "rollback", args: m{"change_id": tok}})
	all(wantField("rolled_back", tok), wantField("updated", 2.0), wantField("conflicts", []any{}))(t, rb)
	wantRaw(t, db, "visits", orig...)
	hist, _ = callMongo(t, cs, tools, mongoCase{tool: "history", args: m{"collection": "visits", "limit": 5}})
	changes, _ = hist["changes"].([]any)
	if len(changes) != 2 || changes[0].(map[string]any)["change"] != rb["change_id"] ||
		changes[1].(map[string]any)["status"] != "rolled back by "+rb["change_id"].(string) {
		t.Errorf("history after the rollback: %v", hist)
	}
	callMongo(t, cs, tools, mongoCase{tool: "rollback", args: m{"change_id": tok}, code: "CONFLICT"})

	// A deletion of the document whose array mixes a long and an int
	// (type_array.js), then its rollback: it comes back exactly.
	del, _ := callMongo(t, cs, tools, mongoCase{tool: "plan_delete", args: m{"collection": "visits", "filter": m{"patient": m{"$type": "array"}}}})
	all(wantField("matched", 1.0), wantField("modified", 1.0))(t, del)
	applied, _ = callMongo(t, cs, tools, mongoCase{tool: "apply", args: m{"token": del["token"]}})
	wantField("deleted", 1.0)(t, applied)
	wantRaw(t, db, "visits", orig[0], orig[1])
	callMongo(t, cs, tools, mongoCase{tool: "rollback", args: m{"change_id": applied["change_id"]}})
	wantRaw(t, db, "visits", orig...)

	// Plan samples are kept within max_bytes, and say so.
	capped, _ := callMongo(t, cs, tools, mongoCase{tool: "plan_update", args: m{"collection": "visits", "filter": m{}, "update": m{"$set": m{"x": 1}}, "max_bytes": 200}})
	wantField("applied_limits", m{"max_bytes": 200.0})(t, capped)
	wantField("matched", 3.0)(t, capped)
	if s, _ := capped["sampleBeforeAfter"].([]any); len(s) != 1 {
		t.Errorf("samples within 200 bytes: %v, want 1 pair", capped["sampleBeforeAfter"])
	}

	// An upsert into a collection that does not exist creates it; a plan
	// on a missing collection without upsert is NOT_FOUND.
	callMongo(t, cs, tools, mongoCase{tool: "plan_update", args: m{"collection": "wards", "filter": m{"_id": 1}, "update": m{"$set": m{"a": 1}}}, code: "NOT_FOUND"})
	up, _ := callMongo(t, cs, tools, mongoCase{tool: "plan_update", args: m{"collection": "wards", "filter": m{"_id": "A"},
		"update": m{"$set": m{"beds": m{"$numberDouble": "2.5"}}}, "upsert": true}})
	applied, _ = callMongo(t, cs, tools, mongoCase{tool: "apply", args: m{"token": up["token"]}})
	wantField("inserted", 1.0)(t, applied)
	wantRaw(t, db, "wards", `{"_id":"A","beds":{"$numberDouble":"2.5"}}`)
}

// TestMongo_MCPReadWrite_Conflicts changes documents between the plan
// and the apply: the apply writes the others, reports each conflict with
// its reason, and the change it made rolls back.
func TestMongo_MCPReadWrite_Conflicts(t *testing.T) {
	cs, tools, db, _, _ := mongoRW(t)
	orig := rawDocs(t, db, "visits")
	plan, _ := callMongo(t, cs, tools, mongoCase{tool: "plan_update", args: m{"collection": "visits", "filter": m{}, "update": m{"$set": m{"seen": true}}}})
	ctx := context.Background()
	// An int in place of an equal long is a change (set_type_change.js);
	// a deleted document is another.
	if _, err := db.Collection("visits").UpdateOne(ctx, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "patient", Value: int32(2)}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("visits").DeleteOne(ctx, bson.D{{Key: "_id", Value: 3}}); err != nil {
		t.Fatal(err)
	}
	sc, text := callMongo(t, cs, tools, mongoCase{tool: "apply", args: m{"token": plan["token"]}, code: "CONFLICT"})
	wantMessage("2 document(s) in `visits` changed since the plan and were not written, the other 1 were written")(t, sc)
	res, _ := sc["context"].(map[string]any)["result"].(map[string]any)
	if res["updated"] != 1.0 || res["change_id"] != plan["token"] || res["transaction"] != false ||
		!jsonEqual(res["conflicts"], []any{m{"_id": 2.0, "reason": "changed since the plan"}, m{"_id": 3.0, "reason": "deleted since the plan"}}) {
		t.Errorf("conflict result %v", res)
	}
	if next, _ := sc["next_valid_actions"].([]any); len(next) == 0 || next[0] != "rollback" {
		t.Errorf("next_valid_actions %v, want rollback first", sc["next_valid_actions"])
	}
	if !strings.Contains(text, "_id 2 (changed since the plan)") {
		t.Errorf("the error text does not name the conflicts: %s", text)
	}
	changed := `{"_id":{"$numberInt":"2"},"patient":{"$numberInt":"2"},"ward":"B"}`
	wantRaw(t, db, "visits", strings.TrimSuffix(orig[0], "}")+`,"seen":true}`, changed)

	callMongo(t, cs, tools, mongoCase{tool: "rollback", args: m{"change_id": plan["token"]}})
	wantRaw(t, db, "visits", orig[0], changed)
}

// TestMongo_MCPReadWrite_Policy: plans that test or write a redacted
// field are refused, plan samples are redacted, the deny list holds for
// plans, apply, rollback and history, omgdb's collections are out of
// reach, tools the engine cannot serve are refused, and no redacted
// value reaches a result, an error or the audit log.
func TestMongo_MCPReadWrite_Policy(t *testing.T) {
	cs, tools, db, uri, audit := mongoRW(t)
	origPatients := rawDocs(t, db, "patients")

	// A plan on `secrets` made with the CLI, applied there: the agent can
	// neither apply the plan nor roll back or list the change.
	cliToken := func(args ...string) string {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "OMGDB_TEST_MAIN=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("omgdb %v: %v", args, err)
		}
		var r struct{ Token string }
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("omgdb %v printed %s", args, out)
		}
		return r.Token
	}
	secretPlan := cliToken("plan-delete", uri, "secrets", "{}")
	secretChange := cliToken("plan-update", uri, "secrets", "{}", `{"$set":{"k":1}}`)
	cmd := exec.Command(os.Args[0], "apply", uri, secretChange)
	cmd.Env = append(os.Environ(), "OMGDB_TEST_MAIN=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("apply on secrets: %v %s", err, out)
	}
	origSecrets := rawDocs(t, db, "secrets")

	cases := []mongoCase{
		// Redaction: a plan cannot test or write a redacted field.
		{name: "filter_redacted", tool: "plan_update", args: m{"collection": "patients", "filter": m{"ssn": "111-11"}, "update": m{"$set": m{"x": 1}}},
			code: "POLICY_DENIED", check: wantMessage("names a redacted field")},
		{name: "filter_redacted_regex_array", tool: "plan_delete", args: m{"collection": "patients", "filter": m{"card.number": m{"$regex": "^43"}}},
			code: "POLICY_DENIED"},
		{name: "filter_redacted_nested_or", tool: "plan_delete", args: m{"collection": "patients", "filter": m{"$or": []any{m{"name": "x"}, m{"ssn": nil}}}},
			code: "POLICY_DENIED"},
		{name: "update_sets_redacted", tool: "plan_update", args: m{"collection": "patients", "filter": m{}, "update": m{"$set": m{"ssn": "999"}}}, code: "POLICY_DENIED"},
		{name: "update_unsets_redacted_nested", tool: "plan_update", args: m{"collection": "patients", "filter": m{}, "update": m{"$unset": m{"card.number": ""}}}, code: "POLICY_DENIED"},
		{name: "update_renames_redacted", tool: "plan_update", args: m{"collection": "patients", "filter": m{}, "update": m{"$rename": m{"ssn": "s"}}}, code: "POLICY_DENIED"},
		{name: "update_pipeline_redacted_coll", tool: "plan_update", args: m{"collection": "patients", "filter": m{}, "update": []any{m{"$set": m{"x": "$name"}}}},
			code: "POLICY_DENIED", check: wantMessage("update pipeline")},
		{name: "replacement_redacted_coll", tool: "plan_update", args: m{"collection": "patients", "filter": m{"_id": 3}, "update": m{"_id": 3, "name": "cy", "age": 25.5}},
			code: "POLICY_DENIED", check: wantMessage("replacement document")},
		{name: "array_filter_redacted", tool: "plan_update", args: m{"collection": "patients", "filter": m{"_id": 2},
			"update": m{"$set": m{"card.$[c].exp": "x"}}, "array_filters": []any{m{"c.number": "4222"}}}, code: "POLICY_DENIED"},
		{name: "upsert_filter_redacted", tool: "plan_update", args: m{"collection": "patients", "filter": m{"_id": 9, "ssn": "123"},
			"update": m{"$set": m{"name": "z"}}, "upsert": true}, code: "POLICY_DENIED"},
		// The deny list.
		{name: "deny_plan_update", tool: "plan_update", args: m{"collection": "secrets", "filter": m{}, "update": m{"$set": m{"x": 1}}}, code: "POLICY_DENIED"},
		{name: "deny_plan_delete", tool: "plan_delete", args: m{"collection": "secrets", "filter": m{}}, code: "POLICY_DENIED"},
		{name: "deny_upsert", tool: "plan_update", args: m{"collection": "secrets", "filter": m{"_id": 5}, "update": m{"$set": m{"x": 1}}, "upsert": true}, code: "POLICY_DENIED"},
		{name: "deny_apply", tool: "apply", args: m{"token": secretPlan}, code: "POLICY_DENIED"},
		{name: "deny_rollback", tool: "rollback", args: m{"change_id": secretChange}, code: "POLICY_DENIED"},
		{name: "deny_history", tool: "history", args: m{"collection": "secrets"}, code: "POLICY_DENIED"},
		{name: "history_hides_denied", tool: "history", args: m{}, check: wantField("returned", 0.0)},
		// omgdb's and the server's collections.
		{name: "omgdb_plans_delete", tool: "plan_delete", args: m{"collection": "omgdb.plans", "filter": m{}}, code: "NOT_FOUND"},
		{name: "omgdb_changes_upsert", tool: "plan_update", args: m{"collection": "omgdb.changes", "filter": m{"_id": 1}, "update": m{"$set": m{"status": "applied"}}, "upsert": true},
			code: "NOT_FOUND"},
		{name: "omgdb_items_update", tool: "plan_update", args: m{"collection": "omgdb.plan_items", "filter": m{}, "update": m{"$set": m{"state": "applied"}}}, code: "NOT_FOUND"},
		{name: "system_upsert", tool: "plan_update", args: m{"collection": "system.js", "filter": m{"_id": 1}, "update": m{"$set": m{"a": 1}}, "upsert": true}, code: "NOT_FOUND"},
		{name: "omgdb_history", tool: "history", args: m{"collection": "omgdb.changes"}, check: wantField("returned", 0.0)},
		// Tools the engine does not serve, arguments it does not take, bad input.
		{name: "plan_aggregate_into_redacted", tool: "plan_aggregate", args: m{"collection": "visits", "pipeline": []any{m{"$out": "staff"}}}, code: "POLICY_DENIED"},
		{name: "plan_aggregate_from_redacted", tool: "plan_aggregate", args: m{"collection": "patients", "pipeline": []any{m{"$out": "x"}}}, code: "POLICY_DENIED"},
		{name: "plan_aggregate_into_denied", tool: "plan_aggregate", args: m{"collection": "visits", "pipeline": []any{m{"$merge": m{"into": "secrets"}}}}, code: "POLICY_DENIED"},
		{name: "plan_aggregate_lookup_denied", tool: "plan_aggregate", args: m{"collection": "visits", "pipeline": []any{m{"$unionWith": "secrets"}, m{"$out": "x"}}}, code: "POLICY_DENIED"},
		{name: "plan_aggregate_into_omgdb", tool: "plan_aggregate", args: m{"collection": "visits", "pipeline": []any{m{"$out": "omgdb.changes"}}}, code: "INVALID_ARGUMENT"},
		{name: "plan_aggregate_from_omgdb", tool: "plan_aggregate", args: m{"collection": "omgdb.plans", "pipeline": []any{m{"$out": "x"}}}, code: "NOT_FOUND"},
		{name: "plan_aggregate_not_last", tool: "plan_aggregate", args: m{"collection": "visits", "pipeline": []any{m{"$out": "x"}, m{"$match": m{}}}}, code: "INVALID_ARGUMENT"},
		{name: "drop_collection_scope", tool: "drop_collection", args: m{"collection": "visits"}, code: "SCOPE_DENIED"},
		{name: "history_id_denied_only", tool: "history", args: m{"id": "1"}, check: wantField("returned", 0.0)},
		{name: "collation_sent_ferretdb_refuses", tool: "plan_delete", args: m{"collection": "visits", "filter": m{}, "collation": m{"locale": "en"}}, code: "INVALID_ARGUMENT",
			check: wantMessage("does not support collations: it answered NotImplemented")},
		{name: "collation_bad", tool: "plan_update", args: m{"collection": "visits", "filter": m{}, "update": m{"$set": m{"a": 1}}, "collation": m{"locale": 1}}, code: "INVALID_ARGUMENT",
			check: wantMessage("collation: invalid collation: field `locale` must be a string")},
		{name: "other_path", tool: "plan_delete", args: m{"path": "app.omgdb", "collection": "visits", "filter": m{}}, code: "PATH_DENIED"},
		{name: "bad_update_operator", tool: "plan_update", args: m{"collection": "visits", "filter": m{}, "update": m{"$sett": m{"a": 1}}},
			code: "INVALID_ARGUMENT", check: wantMessage("did you mean `$set`?")},
		{name: "bad_filter", tool: "plan_delete", args: m{"collection": "visits", "filter": m{"a": m{"$gtee": 1}}}, code: "INVALID_FILTER"},
		{name: "bad_token", tool: "apply", args: m{"token": "nope"}, code: "INVALID_ARGUMENT"},
		{name: "unknown_token", tool: "apply", args: m{"token": "665f1c2e9b1d4a0c8e7f6a5b"}, code: "NOT_FOUND"},
		{name: "unknown_change", tool: "rollback", args: m{"change_id": "665f1c2e9b1d4a0c8e7f6a5b"}, code: "NOT_FOUND"},
	}
	texts := runMongoCases(t, cs, tools, cases)
	calls := len(cases)
	call := func(tc mongoCase) map[string]any {
		sc, text := callMongo(t, cs, tools, tc)
		texts = append(texts, text)
		calls++
		return sc
	}

	// A plan on a collection with redactions: its samples are redacted,
	// the apply leaves the redacted fields as they are, the rollback
	// restores the exact documents.
	plan := call(mongoCase{tool: "plan_update", args: m{"collection": "patients", "filter": m{"_id": m{"$lte": 2}}, "update": m{"$set": m{"name": "z"}}}})
	samples, _ := plan["sampleBeforeAfter"].([]any)
	if len(samples) != 2 || !jsonEqual(samples[0].(map[string]any)["before"], m{"_id": 1.0, "name": "ana", "card": m{"exp": "12/30"}, "age": 30.0}) ||
		!jsonEqual(samples[1].(map[string]any)["after"], m{"_id": 2.0, "name": "z", "card": []any{m{}, m{"exp": "01/31"}}, "age": 41.0}) {
		t.Errorf("samples %v", plan["sampleBeforeAfter"])
	}
	applied := call(mongoCase{tool: "apply", args: m{"token": plan["token"]}})
	wantField("updated", 2.0)(t, applied)
	after := rawDocs(t, db, "patients")
	if !strings.Contains(after[0], `"ssn":"111-11","card":{"number":"4111","exp":"12/30"}`) || !strings.Contains(after[0], `"name":"z"`) {
		t.Errorf("after the apply: %s", after[0])
	}
	call(mongoCase{tool: "rollback", args: m{"change_id": applied["change_id"]}})
	wantRaw(t, db, "patients", origPatients...)

	// A unique index on a redacted field refuses a rollback's insert: the
	// server's message, which may quote the key, is withheld.
	del := call(mongoCase{tool: "plan_delete", args: m{"collection": "staff", "filter": m{"_id": 1}}})
	applied = call(mongoCase{tool: "apply", args: m{"token": del["token"]}})
	if _, err := db.Collection("staff").InsertOne(context.Background(), bson.D{{Key: "_id", Value: 3}, {Key: "email", Value: "a@x.org"}}); err != nil {
		t.Fatal(err)
	}
	sc := call(mongoCase{tool: "rollback", args: m{"change_id": applied["change_id"]}, code: "CONFLICT"})
	res, _ := sc["context"].(map[string]any)["result"].(map[string]any)
	if !jsonEqual(res["conflicts"], []any{m{"_id": 1.0, "reason": "a unique index refuses it (the server's message is withheld: the collection has redacted fields)"}}) {
		t.Errorf("unique-index conflict %v", res["conflicts"])
	}

	wantRaw(t, db, "secrets", origSecrets...)
	checkLeaks(t, texts, "Untrusted planned documents", audit, calls,
		[]string{"111-11", "4111", "4222", "4333", "topsecret", "a@x.org", "b@x.org"},
		[]string{"111-11", "4111", "a@x.org", "topsecret", uri, `"z"`})
}

// TestMongo_MCPReadWrite_ApplyStopsAtTimeout: --timeout bounds an apply
// and its rollback. It plans 150 documents and applies them under a
// 100 ms limit, then checks consistency whatever happened (no timing is
// asserted): either the apply finished and every document is written,
// or it stopped between documents with LIMIT_EXCEEDED, and then its
// result's counts are exactly the documents written, the others are
// untouched, history shows the change "partial", and a rollback (from
// the CLI, without the limit) gives every document back.
func TestMongo_MCPReadWrite_ApplyStopsAtTimeout(t *testing.T) {
	_, uri := mongotest.Start(t)
	c := mongotest.Client(t, uri)
	db := c.Database(uri[strings.LastIndex(uri, "/")+1:])
	docs := make([]string, 150)
	for i := range docs {
		docs[i] = `{"_id":` + strconv.Itoa(i) + `,"n":{"$numberLong":"1"}}`
	}
	mongotest.Insert(t, c, db.Name(), "many", docs...)
	omgdb := func(args ...string) []byte { t.Helper(); return runOmgdb(t, args...) }
	var plan struct{ Token string }
	if err := json.Unmarshal(omgdb("plan-update", uri, "many", "{}", `{"$inc":{"n":{"$numberLong":"1"}}}`), &plan); err != nil {
		t.Fatal(err)
	}
	count := func(n int64) int64 {
		k, err := db.Collection("many").CountDocuments(context.Background(), bson.D{{Key: "n", Value: n}})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	cs := startStdio(t, t.TempDir(), "--store", uri, "--scope", "read-write", "--timeout", "100ms")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "apply", Arguments: m{"token": plan.Token}})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	if !res.IsError {
		if sc["updated"] != 150.0 || count(2) != 150 {
			t.Fatalf("apply finished: %v, %d documents written, want 150", sc, count(2))
		}
		t.Log("the apply finished within the limit: the stop was not exercised by this run")
		return
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if sc["code"] != "LIMIT_EXCEEDED" {
		t.Fatalf("apply: %v", sc)
	}
	if strings.Contains(text, "before it wrote any document") || strings.Contains(text, "took longer than the 100ms limit") {
		// It did not start writing: nothing is written and the plan is
		// still pending.
		if count(2) != 0 {
			t.Fatalf("nothing written, says %q, but %d documents changed", text, count(2))
		}
		t.Logf("the apply did not start writing: %s", text)
		omgdb("apply", uri, plan.Token)
		if count(2) != 150 {
			t.Errorf("the plan applied after the stop wrote %d documents, want 150", count(2))
		}
		return
	}
	result, _ := sc["context"].(map[string]any)["result"].(map[string]any)
	updated, _ := result["updated"].(float64)
	if result == nil || int64(updated) != count(2) || count(1) != 150-int64(updated) || result["unwritten"] != 150-updated ||
		!strings.Contains(text, "stopped because its deadline passed after") {
		t.Fatalf("stopped apply: %s; result %v; %d written, %d not", text, result, count(2), count(1))
	}
	t.Logf("the apply stopped after %v documents", updated)
	var h struct{ Status, Change string }
	if err := json.Unmarshal(omgdb("history", uri, "--limit", "1"), &h); err != nil || h.Status != "partial" || h.Change != plan.Token {
		t.Fatalf("history: %+v %v", h, err)
	}
	omgdb("rollback", uri, plan.Token)
	if count(1) != 150 {
		t.Errorf("after rollback %d documents have n 1, want 150", count(1))
	}
}
