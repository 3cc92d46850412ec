package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/mongotest"
	"github.com/omgdb/omgdb/query/value"
)

// planFields decodes a plan's JSON output without what differs between
// two stores by design: the token and the expiry.
func planFields(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("plan output %q: %v", out, err)
	}
	delete(m, "token")
	delete(m, "expires")
	return m
}

// planAndApply plans with args (STORE is the store) and applies the
// plan; it returns the plan's output.
func planAndApply(t *testing.T, store string, args []string) string {
	t.Helper()
	a := append([]string(nil), args...)
	a[1] = store
	code, out, stderr := runCLI(t, "", a...)
	if code != 0 {
		t.Fatalf("omgdb %s: exit %d: %s", strings.Join(a, " "), code, stderr)
	}
	var p struct{ Token string }
	if err := json.Unmarshal([]byte(out), &p); err != nil || len(p.Token) != 24 {
		t.Fatalf("plan output %q: no token (%v)", out, err)
	}
	code, aout, stderr := runCLI(t, "", "apply", store, p.Token)
	if code != 0 {
		t.Fatalf("apply %s: exit %d: %s%s", p.Token, code, aout, stderr)
	}
	return out
}

// dump is every document of users in canonical Extended JSON, in _id
// order: what both stores must hold after the same change.
func dump(t *testing.T, store string) string { return dumpColl(t, store, "users") }

// dumpColl is dump of another collection.
func dumpColl(t *testing.T, store, coll string) string {
	t.Helper()
	code, out, stderr := runCLI(t, "", "find", store, coll, "{}", "--ejson", "canonical")
	if code != 0 {
		t.Fatalf("find on %s: exit %d: %s", store, code, stderr)
	}
	return out
}

// TestMongo_PlanApplyMatchesFile plans and applies the same change on a
// store file and on the deployment: the plans must say the same (matched,
// modified, the before/after samples) and the collections must then hold
// the same documents, type for type.
func TestMongo_PlanApplyMatchesFile(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
	}{
		// int + long gives a long; $set adds a field (the manual's $inc and $set).
		{"inc_long_set", []string{"plan-update", "STORE", "users", `{"city":"Paris"}`, `{"$set":{"tier":"gold"},"$inc":{"age":{"$numberLong":"1"}}}`}},
		// int * double gives a double (jstests/core/write/update/update_mul_examples.js); a
		// missing field becomes 0 of the multiplier's type (the manual's $mul).
		{"mul_double", []string{"plan-update", "STORE", "users", `{}`, `{"$mul":{"age":1.5}}`}},
		{"array_filters", []string{"plan-update", "STORE", "users", `{"tags":"b"}`, `{"$set":{"tags.$[t]":"B"}}`, "--array-filters", `[{"t":"b"}]`}},
		{"pipeline", []string{"plan-update", "STORE", "users", `{"_id":{"$lte":2}}`, `[{"$set":{"n":{"$size":"$tags"}}}]`}},
		{"replacement", []string{"plan-update", "STORE", "users", `{"_id":2}`, `{"name":"bobby","age":{"$numberLong":"26"}}`}},
		{"upsert", []string{"plan-update", "STORE", "users", `{"_id":9}`, `{"$set":{"name":"new"},"$setOnInsert":{"age":1}}`, "--upsert"}},
		{"upsert_new_collection", []string{"plan-update", "STORE", "fresh", `{"_id":{"$numberLong":"5"}}`, `{"$set":{"d":{"$date":"2024-01-02T03:04:05.678Z"}}}`, "--upsert"}},
		{"upsert_matches", []string{"plan-update", "STORE", "users", `{"_id":1}`, `{"$set":{"name":"ana2"}}`, "--upsert"}},
		{"multi_false", []string{"plan-update", "STORE", "users", `{"city":"Paris"}`, `{"$set":{"first":true}}`, "--multi=false"}},
		{"push_unset", []string{"plan-update", "STORE", "users", `{"_id":1}`, `{"$push":{"tags":"c"},"$unset":{"city":""}}`}},
		// null matches a missing field; $set writes an explicit null (jstests/core/query/null_query_semantics.js).
		{"null_missing", []string{"plan-update", "STORE", "users", `{"age":null}`, `{"$set":{"age":null,"seen":null}}`}},
		{"unchanged", []string{"plan-update", "STORE", "users", `{"city":"Lyon"}`, `{"$set":{"city":"Lyon"}}`}},
		{"delete", []string{"plan-delete", "STORE", "users", `{"tags":"b"}`}},
		{"delete_first", []string{"plan-delete", "STORE", "users", `{}`, "--multi=false"}},
		{"delete_none", []string{"plan-delete", "STORE", "users", `{"age":{"$gt":99}}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { planApplyParity(t, mongoUsers, c.args) })
	}
}

// planApplyParity plans and applies args on a store file and on the
// deployment, both holding users: the plans and then the documents must
// be the same.
func planApplyParity(t *testing.T, users []string, args []string) string {
	t.Helper()
	file, uri := mongoStoresWith(t, users)
	fplan := planFields(t, planAndApply(t, file, args))
	mplan := planFields(t, planAndApply(t, uri, args))
	if !reflect.DeepEqual(fplan, mplan) {
		t.Errorf("plans differ:\n file  %v\n mongo %v", fplan, mplan)
	}
	if f, m := dumpColl(t, file, args[2]), dumpColl(t, uri, args[2]); f != m || f == "" {
		t.Errorf("after apply:\n file:\n%s mongo:\n%s", f, m)
	}
	return uri
}

// jstestUsers are the documents of the cases ported from MongoDB's
// jstests below.
var jstestUsers = []string{
	`{"_id":1,"a":{"$numberInt":"2147483647"}}`,
	`{"_id":2,"a":{"$numberInt":"-2147483648"}}`,
	`{"_id":3,"a":2}`,
	`{"_id":4,"a":{"$date":"2021-08-11T12:29:31.757Z"}}`,
	`{"_id":5,"a":1e-15}`,
	`{"_id":7,"y":[{"a":2},{"a":6},{"a":[9,1,1]}]}`,
	`{"_id":9,"a":{"$numberLong":"9223372036854775807"}}`,
}

// TestMongo_PlanApplyJSTests ports update cases of MongoDB's jstests to
// plan and apply on both stores (planApplyParity); the expected values
// are the jstests' own, checked on the deployment after the apply.
func TestMongo_PlanApplyJSTests(t *testing.T) {
	t.Parallel()
	cases := []struct {
		from, filter, update, want string
	}{
		// jstests/core/inc-SERVER-7446.js: an int32 overflow or underflow spills to a long.
		{"inc-SERVER-7446.js", `{"_id":1}`, `{"$inc":{"a":{"$numberInt":"1"}}}`, `{"_id":1,"a":{"$numberLong":"2147483648"}}`},
		{"inc-SERVER-7446.js", `{"_id":2}`, `{"$inc":{"a":{"$numberInt":"-1"}}}`, `{"_id":2,"a":{"$numberLong":"-2147483649"}}`},
		// jstests/core/query/set/set_type_change.js: $set changing only the type is a modification.
		{"set_type_change.js", `{"_id":3}`, `{"$set":{"a":{"$numberLong":"2"}}}`, `{"_id":3,"a":{"$numberLong":"2"}}`},
		// jstests/core/write/update/update_min_max_examples.js
		{"update_min_max_examples.js", `{"_id":3}`, `{"$min":{"a":1}}`, `{"_id":3,"a":1}`},
		{"update_min_max_examples.js", `{"_id":3}`, `{"$max":{"a":1}}`, `{"_id":3,"a":2}`},
		{"update_min_max_examples.js", `{"_id":4}`, `{"$min":{"a":{"$date":"2021-08-11T12:29:31.759Z"}}}`, `{"_id":4,"a":{"$date":"2021-08-11T12:29:31.757Z"}}`},
		{"update_min_max_examples.js", `{"_id":4}`, `{"$max":{"a":{"$date":"2021-08-11T12:29:31.759Z"}}}`, `{"_id":4,"a":{"$date":"2021-08-11T12:29:31.759Z"}}`},
		{"update_min_max_examples.js", `{"_id":5}`, `{"$max":{"a":1.000000000000001e-15}}`, `{"_id":5,"a":1.000000000000001e-15}`},
		{"update_min_max_examples.js", `{"_id":7,"y.a":6}`, `{"$max":{"y.$.a":7}}`, `{"_id":7,"y":[{"a":2},{"a":7},{"a":[9,1,1]}]}`},
		{"update_min_max_examples.js", `{"_id":7,"y.a":6}`, `{"$min":{"y.$.a":5}}`, `{"_id":7,"y":[{"a":2},{"a":5},{"a":[9,1,1]}]}`},
		// jstests/core/write/update/update_mul_examples.js
		{"update_mul_examples.js", `{"_id":3}`, `{"$mul":{"a":1.1}}`, `{"_id":3,"a":2.2}`},
		{"update_mul_examples.js", `{"_id":3}`, `{"$mul":{"a":-10}}`, `{"_id":3,"a":-20}`},
	}
	for _, c := range cases {
		t.Run(c.from+" "+c.update, func(t *testing.T) {
			args := []string{"plan-update", "STORE", "users", c.filter, c.update}
			uri := planApplyParity(t, jstestUsers, args)
			want, err := value.ParseInput([]byte(c.want))
			if err != nil {
				t.Fatal(err)
			}
			code, out, _ := runCLI(t, "", "find", uri, "users", `{"_id":`+want.Get("_id").String()+`}`, "--ejson", "canonical")
			got, perr := value.ParseInput([]byte(out))
			if code != 0 || perr != nil || string(value.AppendJSON(nil, got)) != string(value.AppendJSON(nil, want)) {
				t.Errorf("on the deployment: %s, want %s (exit %d, %v)", out, c.want, code, perr)
			}
		})
	}
	// jstests/core/inc-SERVER-7446.js: a long overflow is an error, on
	// both stores alike, and nothing is planned.
	file, uri := mongoStoresWith(t, jstestUsers)
	var got []string
	for _, store := range []string{file, uri} {
		code, out, stderr := runCLI(t, "", "plan-update", store, "users", `{"_id":9}`, `{"$inc":{"a":{"$numberInt":"1"}}}`)
		got = append(got, fmt.Sprintf("exit %d %s%s", code, out, strings.ReplaceAll(stderr, store, "STORE")))
	}
	if got[0] != got[1] || !strings.HasPrefix(got[0], "exit 65 error: update of _id 9") {
		t.Errorf("long overflow:\n file  %s\n mongo %s", got[0], got[1])
	}
}

// mongoPlan plans on the deployment and returns the token.
func mongoPlan(t *testing.T, args ...string) string {
	t.Helper()
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("omgdb %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	var p struct{ Token string }
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	return p.Token
}

type applyOut struct {
	ChangeID   string `json:"change_id"`
	RolledBack string `json:"rolled_back"`
	Inserted   int64
	Updated    int64
	Deleted    int64
	Conflicts  []struct {
		ID     any `json:"_id"`
		Reason string
	}
	Transaction bool
}

func decodeApply(t *testing.T, out string) applyOut {
	t.Helper()
	var a applyOut
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("apply output %q: %v", out, err)
	}
	return a
}

// TestMongo_ApplyConflicts changes documents around omgdb between the
// plan and the apply: without transactions (FerretDB) the others are
// written, each changed one is reported with its reason and left as the
// other writer left it, and the command exits 69.
func TestMongo_ApplyConflicts(t *testing.T) {
	t.Parallel()
	_, uri := mongoStoresWith(t, append(mongoUsers, `{"_id":5,"name":"eve"}`))
	c := mongotest.Client(t, strings.TrimSuffix(uri, "app"))
	users := c.Database("app").Collection("users")
	ctx := context.Background()
	tok := mongoPlan(t, "plan-update", uri, "users", `{}`, `{"$set":{"v":1}}`)
	// _id 2: a value changes; _id 3: only a type changes (int 35 to long
	// 35); _id 4: deleted; _id 5: a field is added.
	if _, err := users.UpdateOne(ctx, bson.M{"_id": 5}, bson.M{"$set": bson.M{"added": true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := users.UpdateOne(ctx, bson.M{"_id": 2}, bson.M{"$set": bson.M{"name": "other"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := users.UpdateOne(ctx, bson.M{"_id": 3}, bson.M{"$set": bson.M{"age": int64(35)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := users.DeleteOne(ctx, bson.M{"_id": 4}); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "apply", uri, tok)
	if code != cli.ExitConflict || !strings.Contains(stderr, "4 document(s) in `users` changed since the plan and were not written, the other 1 were written") {
		t.Fatalf("apply: exit %d, stderr %q; want 69 naming the conflicts", code, stderr)
	}
	a := decodeApply(t, out)
	got := []string{}
	for _, c := range a.Conflicts {
		b, _ := json.Marshal(c.ID)
		got = append(got, string(b)+" "+c.Reason)
	}
	want := []string{"2 changed since the plan", "3 changed since the plan", "4 deleted since the plan", "5 changed since the plan"}
	if a.Updated != 1 || a.Transaction || !reflect.DeepEqual(got, want) {
		t.Errorf("apply result %+v, conflicts %q; want 1 updated, conflicts %q", a, got, want)
	}
	wantDocs := `{"_id":{"$numberInt":"1"},"name":"ana","age":{"$numberInt":"30"},"tags":["a","b"],"city":"Paris","v":{"$numberInt":"1"}}
{"_id":{"$numberInt":"2"},"name":"other","age":{"$numberInt":"25"},"tags":["b"],"city":"Lyon"}
{"_id":{"$numberInt":"3"},"name":"cy","age":{"$numberLong":"35"},"tags":[],"city":"Paris"}
{"_id":{"$numberInt":"5"},"name":"eve","added":true}
`
	if got := dump(t, uri); got != wantDocs {
		t.Errorf("after the apply:\n%s\nwant:\n%s", got, wantDocs)
	}
	// The journal has the change with its conflicts; applying again is refused.
	code, out, _ = runCLI(t, "", "history", uri)
	if code != 0 || !strings.Contains(out, `"change":"`+tok+`","kind":"apply","collections":["users"],"inserted":0,"updated":1,"deleted":0,"conflicts":4`) {
		t.Errorf("history: exit %d, %s", code, out)
	}
	code, _, stderr = runCLI(t, "", "apply", uri, tok)
	if code != cli.ExitConflict || !strings.Contains(stderr, "already applied") {
		t.Errorf("second apply: exit %d, %q", code, stderr)
	}
}

// TestMongo_UpsertConflict: an upsert whose _id was taken around omgdb
// since the plan is a conflict, and the other document stays.
func TestMongo_UpsertConflict(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	tok := mongoPlan(t, "plan-update", uri, "users", `{"_id":7}`, `{"$set":{"name":"planned"}}`, "--upsert")
	mongotest.Insert(t, mongotest.Client(t, strings.TrimSuffix(uri, "app")), "app", "users", `{"_id":7,"name":"other"}`)
	code, out, _ := runCLI(t, "", "apply", uri, tok)
	a := decodeApply(t, out)
	if code != cli.ExitConflict || a.Inserted != 0 || len(a.Conflicts) != 1 || a.Conflicts[0].Reason != "a document with this _id exists now" {
		t.Errorf("apply: exit %d, %s", code, out)
	}
	code, out, _ = runCLI(t, "", "find", uri, "users", `{"_id":7}`)
	if code != 0 || out != "{\"_id\":7,\"name\":\"other\"}\n" {
		t.Errorf("_id 7 after the apply: %q", out)
	}
}

// TestMongo_Rollback applies a change, rolls it back (the documents are
// as before, type for type), rolls the rollback back (redo), and checks
// the journal and the refusals.
func TestMongo_Rollback(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	before := dump(t, uri)
	tok := mongoPlan(t, "plan-update", uri, "users", `{"city":"Paris"}`, `{"$inc":{"age":{"$numberLong":"1"}},"$set":{"x":1.5}}`)
	runCLI(t, "", "apply", uri, tok)
	changed := dump(t, uri)
	if changed == before {
		t.Fatal("the apply changed nothing")
	}
	code, out, stderr := runCLI(t, "", "rollback", uri, tok)
	rb := decodeApply(t, out)
	if code != 0 || rb.Updated != 2 || rb.RolledBack != tok || len(rb.Conflicts) != 0 {
		t.Fatalf("rollback: exit %d, %s%s", code, out, stderr)
	}
	if got := dump(t, uri); got != before {
		t.Errorf("after rollback:\n%s\nwant:\n%s", got, before)
	}
	code, _, stderr = runCLI(t, "", "rollback", uri, tok)
	if code != cli.ExitConflict || !strings.Contains(stderr, "already rolled back by "+rb.ChangeID) {
		t.Errorf("second rollback: exit %d, %q", code, stderr)
	}
	code, out, stderr = runCLI(t, "", "rollback", uri, rb.ChangeID)
	if code != 0 || dump(t, uri) != changed {
		t.Errorf("rollback of the rollback: exit %d, %s%s; documents:\n%s", code, out, stderr, dump(t, uri))
	}
	code, out, _ = runCLI(t, "", "history", uri, "--limit", "2")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], `"kind":"rollback"`) || !strings.Contains(lines[0], `"rollback_of":"`+rb.ChangeID+`"`) ||
		!strings.Contains(lines[1], `"status":"rolled back by `) {
		t.Errorf("history --limit 2: exit %d:\n%s", code, out)
	}
}

// TestMongo_RollbackDeleteAndConflict rolls back a deletion (the
// documents come back exactly), and a change whose document was edited
// since: a conflict, reported, unless --force.
func TestMongo_RollbackDeleteAndConflict(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	before := dump(t, uri)
	del := mongoPlan(t, "plan-delete", uri, "users", `{"city":"Paris"}`)
	runCLI(t, "", "apply", uri, del)
	if code, out, stderr := runCLI(t, "", "rollback", uri, del); code != 0 || dump(t, uri) != before {
		t.Fatalf("rollback of a delete: exit %d %s%s", code, out, stderr)
	}
	upd := mongoPlan(t, "plan-update", uri, "users", `{"_id":{"$in":[1,2]}}`, `{"$set":{"v":1}}`)
	runCLI(t, "", "apply", uri, upd)
	c := mongotest.Client(t, strings.TrimSuffix(uri, "app"))
	if _, err := c.Database("app").Collection("users").UpdateOne(context.Background(), bson.M{"_id": 2}, bson.M{"$set": bson.M{"v": 2}}); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "", "rollback", uri, upd)
	rb := decodeApply(t, out)
	if code != cli.ExitConflict || rb.Updated != 1 || len(rb.Conflicts) != 1 || rb.Conflicts[0].Reason != "changed since the plan" {
		t.Fatalf("rollback over a later edit: exit %d, %s", code, out)
	}
	code, out, _ = runCLI(t, "", "find", uri, "users", `{"_id":2}`, "--project", `{"v":1}`)
	if out != "{\"_id\":2,\"v\":2}\n" {
		t.Errorf("_id 2 after the refused rollback: %q", out)
	}
	// The change is not marked rolled back: --force restores the rest.
	code, out, stderr := runCLI(t, "", "rollback", uri, upd, "--force")
	if code != 0 || dump(t, uri) != before {
		t.Errorf("rollback --force: exit %d %s%s; documents:\n%s", code, out, stderr, dump(t, uri))
	}
}

// TestMongo_WriteErrors: bad input, unknown, expired and malformed tokens,
// flags that do not work over MongoDB, and omgdb's collections kept out
// of `collections`.
func TestMongo_WriteErrors(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plan-update", uri, "users", `{"age":{"$gtt":1}}`, `{"$set":{"a":1}}`}, cli.ExitData, "$gtt"},
		{[]string{"plan-update", uri, "users", `{}`, `{"$bogus":{"a":1}}`}, cli.ExitData, "$bogus"},
		{[]string{"plan-update", uri, "users", `{}`, `{"$set":{"_id":5}}`}, cli.ExitData, "immutable field '_id'"},
		{[]string{"plan-update", uri, "users", `{}`, `[{"$set":{"a":1}}]`, "--array-filters", `[{"t":1}]`}, cli.ExitData, "arrayFilters may not be specified for pipeline-style updates"},
		{[]string{"plan-update", uri, "usrs", `{}`, `{"$set":{"a":1}}`}, cli.ExitNotFound, "did you mean `users`?"},
		{[]string{"plan-delete", uri, "users", `{"$where":"1"}`}, cli.ExitData, "$where"},
		{[]string{"plan-update", uri, "omgdb.changes", `{"_id":1}`, `{"$set":{"a":1}}`, "--upsert"}, cli.ExitData, "is not one omgdb writes"},
		{[]string{"plan-delete", uri, "system.profile", `{}`}, cli.ExitData, "is not one omgdb writes"},
		{[]string{"plan-delete", uri, "users", `{}`, "--collation", `{"locale":"en"}`}, cli.ExitUsage, "does not support collations: it answered NotImplemented"},
		{[]string{"apply", uri, "665f1c2e9b1d4a0c8e7f6a5b"}, cli.ExitNotFound, "plan 665f1c2e9b1d4a0c8e7f6a5b not found"},
		{[]string{"apply", uri, "nope"}, cli.ExitData, "invalid plan token"},
		{[]string{"rollback", uri, "665f1c2e9b1d4a0c8e7f6a5b"}, cli.ExitNotFound, "writes made around omgdb are not in its journal"},
		{[]string{"history", uri, "--id", "1"}, cli.ExitNotFound, "no history for _id 1 in any collection"},
		{[]string{"plans", "show", uri, "nope"}, cli.ExitData, "invalid plan token"},
		{[]string{"insert", uri, "users", `{"_id":1,"a":1}`}, cli.ExitConflict, "duplicate _id 1 in collection `users`"},
		{[]string{"update", uri, "users", "{}", `{"x":1}`}, cli.ExitData, "update document requires update operators"},
		{[]string{"replace", uri, "users", "{}", `{"$set":{"x":1}}`}, cli.ExitData, "replacement document must not contain update operators"},
		{[]string{"replace", uri, "users", "{}", `[{"$set":{"x":1}}]`}, cli.ExitData, "a replacement must be a document"},
		{[]string{"delete", uri, "usrs", "{}"}, cli.ExitNotFound, "did you mean `users`?"},
	} {
		code, stdout, stderr := runCLI(t, "", c.args...)
		if code != c.code || stdout != "" || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "hint: ") {
			t.Errorf("omgdb %s: exit %d, stdout %q, stderr %q; want %d, %q and a hint", strings.Join(c.args, " "), code, stdout, stderr, c.code, c.want)
		}
	}
	if got := dump(t, uri); strings.Contains(got, `"a":`) {
		t.Errorf("a refused plan wrote: %s", got)
	}
	empty := mongoPlan(t, "plan-delete", uri, "users", `{"age":{"$gt":99}}`)
	code, out, stderr := runCLI(t, "", "apply", uri, empty)
	if code != 0 || !strings.Contains(out, `"message":"the plan changes nothing: no document was written"`) {
		t.Errorf("apply of an empty plan: exit %d, %s%s", code, out, stderr)
	}
	if code, out, _ := runCLI(t, "", "history", uri); code != 0 || out != "" {
		t.Errorf("history after an empty plan: %q; want no change", out)
	}
	tok := mongoPlan(t, "plan-delete", uri, "users", `{}`, "--expiry", "1ms")
	time.Sleep(20 * time.Millisecond)
	code, _, stderr = runCLI(t, "", "apply", uri, tok)
	if code != cli.ExitConflict || !strings.Contains(stderr, "expired") {
		t.Errorf("expired plan: exit %d, %q", code, stderr)
	}
	if code, out, _ := runCLI(t, "", "count", uri, "users"); code != 0 || out != "4\n" {
		t.Errorf("after the refused applies: count %q", out)
	}
	code, out, _ = runCLI(t, "", "collections", uri)
	if code != 0 || out != "users\n" {
		t.Errorf("collections: %q; want users only (omgdb.* hidden)", out)
	}
	for _, coll := range []string{"omgdb.plans", "omgdb.plan_items"} {
		if code, out, stderr := runCLI(t, "", "find", uri, coll); code != cli.ExitNotFound || out != "" {
			t.Errorf("find %s: exit %d, %q %q; want 66 (omgdb's collections are not readable)", coll, code, out, stderr)
		}
	}
	code, out, _ = runCLI(t, "", "shell", uri, "--eval", "db.getCollectionNames()")
	if code != 0 || strings.Contains(out, "omgdb.") || !strings.Contains(out, "users") {
		t.Errorf("shell getCollectionNames: exit %d, %q; want no omgdb.* collection", code, out)
	}
}

// TestMongo_WriteCredentialsNeverPrinted: the write commands over a URI
// with a user and password never print them, on success or failure.
func TestMongo_WriteCredentialsNeverPrinted(t *testing.T) {
	t.Parallel()
	s := mongotest.Own(t)
	mongotest.Insert(t, mongotest.Client(t, s.URI), "app", "users", mongoUsers...)
	const user, pw = "omgdbadmin", "Hunter2Secret"
	up := strings.Replace(s.URI, "mongodb://", "mongodb://"+user+":"+pw+"@", 1) + "app?authMechanism=PLAIN"
	tok := mongoPlan(t, "plan-update", up, "users", `{"_id":2}`, `{"$set":{"v":1}}`)
	var all string
	for _, args := range [][]string{
		{"plan-update", up, "users", `{"_id":1}`, `{"$set":{"v":1}}`},
		{"plan-update", up, "usrs", `{}`, `{"$set":{"v":1}}`},
		{"apply", up, tok},
		{"apply", up, tok},
		{"apply", up, "665f1c2e9b1d4a0c8e7f6a5b"},
		{"history", up},
		{"rollback", up, tok},
		{"rollback", up, "665f1c2e9b1d4a0c8e7f6a5b"},
	} {
		_, stdout, stderr := runCLI(t, "", args...)
		all += stdout + stderr
	}
	if strings.Contains(all, pw) || strings.Contains(all, user) || !strings.Contains(all, "mongodb://***@") || !strings.Contains(all, `"rolled_back":"`+tok) {
		t.Errorf("write commands printed the credentials, or did not run:\n%s", all)
	}
}

// TestMongo_OneStepMatchesFile runs update, replace and delete (and their
// --dry-run) on a store file and on the deployment: the results say the
// same and the collections then hold the same documents; rolling the
// change back over MongoDB restores the documents.
func TestMongo_OneStepMatchesFile(t *testing.T) {
	t.Parallel()
	cases := [][]string{
		{"update", "STORE", "users", `{"city":"Paris"}`, `{"$inc":{"age":1},"$set":{"seen":{"$date":"2024-01-02T03:04:05Z"}}}`},
		{"update", "STORE", "users", `{"_id":8}`, `{"$set":{"name":"h"}}`, "--one", "--upsert"},
		{"update", "STORE", "users", `{"tags":"b"}`, `{"$set":{"tags.$[t]":"B"}}`, "--array-filters", `[{"t":"b"}]`},
		{"update", "STORE", "users", `{}`, `[{"$set":{"n":{"$size":{"$ifNull":["$tags",[]]}}}}]`},
		{"update", "STORE", "users", `{"age":{"$gt":99}}`, `{"$set":{"x":1}}`},
		{"update", "STORE", "users", `{"city":"Lyon"}`, `{"$set":{"city":"Lyon"}}`},
		{"replace", "STORE", "users", `{"name":"bob"}`, `{"name":"robert","age":{"$numberLong":"26"}}`},
		{"replace", "STORE", "users", `{"_id":9}`, `{"name":"new"}`, "--upsert"},
		{"delete", "STORE", "users", `{"city":"Paris"}`},
		{"delete", "STORE", "users", `{}`, "--one"},
		{"delete", "STORE", "users", `{"city":"Paris"}`, "--dry-run"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args[3:], " "), func(t *testing.T) {
			file, uri := mongoStores(t)
			before := dump(t, uri)
			res := map[string]map[string]any{}
			for _, store := range []string{file, uri} {
				a := append([]string(nil), args...)
				a[1] = store
				code, out, stderr := runCLI(t, "", a...)
				if code != 0 {
					t.Fatalf("omgdb %s: exit %d: %s", strings.Join(a, " "), code, stderr)
				}
				m := planFields(t, out)
				if store == uri {
					if id, _ := m["change_id"].(string); id != "" {
						defer func() {
							if code, out, stderr := runCLI(t, "", "rollback", uri, id); code != 0 || dump(t, uri) != before {
								t.Errorf("rollback of %s: exit %d %s%s", id, code, out, stderr)
							}
						}()
					}
				}
				for _, k := range []string{"change_id", "lsn", "conflicts", "transaction"} {
					delete(m, k)
				}
				res[store] = m
			}
			if !reflect.DeepEqual(res[file], res[uri]) {
				t.Errorf("results differ:\n file  %v\n mongo %v", res[file], res[uri])
			}
			if f, m := dump(t, file), dump(t, uri); f != m {
				t.Errorf("after the write:\n file:\n%s mongo:\n%s", f, m)
			}
		})
	}
}
