package cli_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// TestMongo_AtFollowsDropAndRename makes the same history on a store file
// and on the deployment (pastSteps' updates, an insert with a long, a
// null and an array, a deletion, ints turned into longs, a double), then
// renames users to people, updates people (an array with null and a
// double), and drops people. Reads --at each revision give, on both
// stores, exactly what find printed at that time (captured then); the
// names that did not exist are not found on both; diff across the rename
// and the drop, count, distinct and aggregate --at give the same output
// on both; log lists the rename and the drop; revert to a revision
// before the drop brings the documents back on both; once the
// collection kept aside by the drop is removed by hand, a read before
// the drop is refused (exit 65), never empty.
func TestMongo_AtFollowsDropAndRename(t *testing.T) {
	t.Parallel()
	file, uri := pastStoresWith(t, pastSteps[:5])
	stores := []string{file, uri}
	then := map[string][2]string{} // "rev coll": find's output on each store at that time
	capture := func(rev, coll string) {
		var got [2]string
		for i, s := range stores {
			got[i] = dumpColl(t, s, coll)
		}
		if got[0] != got[1] || got[0] == "" {
			t.Fatalf("%s of %s differs between the stores (or is empty):\n file:\n%s mongo:\n%s", coll, rev, got[0], got[1])
		}
		then[rev+" "+coll] = got
	}
	capture("s5", "users")
	steps := [][]string{
		{"rename", "STORE", "users", "people"},
		{"plan-update", "STORE", "people", `{"_id":1}`, `{"$set":{"tags":[null,2.5],"age":{"$numberLong":"7"}},"$unset":{"city":""}}`},
		{"drop", "STORE", "people"},
	}
	for i, step := range steps {
		for _, s := range stores {
			a := append([]string(nil), step...)
			a[1] = s
			if a[0] == "plan-update" {
				planAndApply(t, s, a)
			} else {
				runOK(t, "", a...)
			}
			runOK(t, "", "snapshot", "create", s, "s"+string(rune('6'+i)))
		}
		if i < 2 {
			capture("s"+string(rune('6'+i)), "people")
		}
	}
	for key, want := range then {
		rev, coll, _ := strings.Cut(key, " ")
		for i, s := range stores {
			if got := runOK(t, "", "find", s, coll, "{}", "--at", rev, "--ejson", "canonical"); got != want[i] {
				t.Errorf("find %s --at %s on %s:\n%s want (printed then)\n%s", coll, rev, s, got, want[i])
			}
		}
	}
	same := [][]string{
		{"count", "STORE", "people", `{"tags":null}`, "--at", "s7"},
		{"distinct", "STORE", "people", "tags", "--at", "s7"},
		{"aggregate", "STORE", "people", `[{"$group":{"_id":{"$type":"$age"},"n":{"$sum":1}}},{"$sort":{"_id":1}}]`, "--at", "s7"},
		{"find", "STORE", "users", `{"age":{"$gte":30}}`, "--at", "s4", "--sort", `{"age":-1}`},
		{"diff", "STORE", "s5", "s6"},
		{"diff", "STORE", "s6", "s8", "--ejson", "canonical"},
		{"diff", "STORE", "s7", "s8", "--coll", "people"},
	}
	for _, c := range same {
		var got [2]string
		for i, s := range stores {
			a := append([]string(nil), c...)
			a[1] = s
			got[i] = runOK(t, "", a...)
		}
		if got[0] != got[1] || got[1] == "" {
			t.Errorf("omgdb %s differs:\n file:\n%s mongo:\n%s", strings.Join(c, " "), got[0], got[1])
		}
	}
	n := strings.TrimSpace(runOK(t, "", "count", uri, "people", "--at", "s7"))
	if out := runOK(t, "", "diff", uri, "s7", "s8", "--json"); n == "0" || !strings.Contains(out, `"inserted":0,"deleted":`+n+`,"updated":0`) {
		t.Errorf("diff --json across the drop: %s", out)
	}
	missing := [][]string{
		{"find", "STORE", "people", "--at", "s5"},
		{"count", "STORE", "people", "--at", "s8"},
		{"find", "STORE", "users", "--at", "s6"},
	}
	for _, m := range missing {
		for _, s := range stores {
			a := append([]string(nil), m...)
			a[1] = s
			if code, out, stderr := runCLI(t, "", a...); code != 66 || out != "" {
				t.Errorf("omgdb %s on %s: exit %d %q %s, want 66", strings.Join(m, " "), s, code, out, stderr)
			}
		}
	}
	log := runOK(t, "", "log", uri, "--since", "6")
	if !strings.Contains(log, `"kind":"rename","actor":"cli","status":"applied","note":"rename users to people","ops":[{"op":"rename_collection","coll":"users","to":"people"}]}`) ||
		!strings.Contains(log, `"kind":"drop","actor":"cli","status":"applied","note":"drop people","ops":[{"op":"rename_collection","coll":"people","to":"omgdb_dropped_`) {
		t.Errorf("log of the rename and the drop:\n%s", log)
	}

	// revert to before the drop, on both.
	planAndApply(t, file, []string{"revert", "STORE", "s7"})
	planAndApply(t, uri, []string{"revert", "STORE", "s7", "--coll", "people"})
	for i, s := range stores {
		if got := dumpColl(t, s, "people"); got != then["s7 people"][i] {
			t.Errorf("people after the revert to s7 on %s:\n%s want\n%s", s, got, then["s7 people"][i])
		}
	}

	// The collection the drop kept, removed by hand.
	db := mongotest.Client(t, strings.TrimSuffix(uri, "app")).Database("app")
	names, err := db.ListCollectionNames(t.Context(), map[string]any{"name": map[string]any{"$regex": "^omgdb_dropped_"}})
	if err != nil || len(names) != 1 {
		t.Fatalf("aside collections: %v, %v", names, err)
	}
	if err := db.Collection(names[0]).Drop(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, a := range [][]string{{"find", uri, "people", "--at", "s7"}, {"diff", uri, "s6", "s8"}} {
		code, out, stderr := runCLI(t, "", a...)
		if code != 65 || out != "" || !strings.Contains(stderr, "the collection the drop kept aside (`"+names[0]+"`) is gone: omgdb cannot rebuild it") || !strings.Contains(stderr, "hint: it was dropped by hand; read at a revision after change") {
			t.Errorf("omgdb %s without the aside collection: exit %d %q %s", strings.Join(a, " "), code, out, stderr)
		}
	}
	if got := runOK(t, "", "find", uri, "people", "--at", "now", "--ejson", "canonical"); got != then["s7 people"][1] {
		t.Errorf("people now (the revert's documents):\n%s", got)
	}
}

// checkAtKilled checks reads across a killed change tok of coll, once it
// was rolled back: find --at each revision of want prints what find
// printed then (the change itself only when it was journaled).
func checkAtKilled(t *testing.T, uri, coll, tok string, want map[string]string, journaled bool) {
	t.Helper()
	for rev, w := range want {
		if rev == tok && !journaled {
			continue
		}
		if got := runOK(t, "", "find", uri, coll, "--at", rev, "--ejson", "canonical"); got != w {
			t.Errorf("find %s --at %s across the killed apply:\n%s want (printed then)\n%s", coll, rev, got, w)
		}
	}
}

// checkImportKilled checks reads across a killed import into coll, once
// it was rolled back: the collection did not exist before it (exit 66),
// and at the import (when it was journaled) find exits as it did right
// after the kill (code: 66 when the import had not created the
// collection yet) and prints what it printed then (left).
func checkImportKilled(t *testing.T, db *mongo.Database, uri, coll string, code int, left string) {
	t.Helper()
	var ch struct {
		ID bson.ObjectID `bson:"_id"`
	}
	err := db.Collection("omgdb.changes").FindOne(t.Context(), bson.D{{Key: "collection", Value: coll}, {Key: "kind", Value: "import"}}).Decode(&ch)
	if err != nil && err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	before := "did not exist at revision before-" + coll
	if err == mongo.ErrNoDocuments {
		before = "collection `" + coll + "` not found" // no change: nothing says it was ever made
	}
	if gotCode, out, stderr := runCLI(t, "", "find", uri, coll, "--at", "before-"+coll); gotCode != 66 || out != "" || !strings.Contains(stderr, before) {
		t.Errorf("find %s --at before the killed import: exit %d %q %s, want 66 and %q", coll, gotCode, out, stderr, before)
	}
	if err == mongo.ErrNoDocuments {
		return
	}
	if gotCode, got, stderr := runCLI(t, "", "find", uri, coll, "--at", ch.ID.Hex(), "--ejson", "canonical"); gotCode != code || got != left {
		t.Errorf("find %s --at the killed import: exit %d %s\n%s want (after the kill) exit %d\n%s", coll, gotCode, stderr, got, code, left)
	}
}
