package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// withoutIDs decodes a drop's or rename's JSON output without what
// differs between a file and a deployment by design: the change id and
// the file's lsn.
func withoutIDs(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	if id, _ := m["change_id"].(string); id == "" {
		t.Fatalf("output %q has no change_id", out)
	}
	delete(m, "change_id")
	delete(m, "lsn")
	delete(m, "next_valid_actions")
	return m
}

// both runs args (STORE is the store) on the file and on the deployment
// and returns both outputs, failing on an exit code other than want.
func both(t *testing.T, file, uri string, want int, args ...string) (fout, mout string) {
	t.Helper()
	outs := make([]string, 2)
	for i, store := range []string{file, uri} {
		a := append([]string(nil), args...)
		for j := range a {
			if a[j] == "STORE" {
				a[j] = store
			}
		}
		code, out, stderr := runCLI(t, "", a...)
		if code != want {
			t.Fatalf("omgdb %s: exit %d, want %d: %s%s", strings.Join(a, " "), code, want, out, stderr)
		}
		outs[i] = out + stderr
	}
	return outs[0], outs[1]
}

// TestMongo_SchemaMatchesFile creates and drops indexes, renames and
// drops a collection on a store file and on the deployment: the outputs
// say the same, the collections and indexes are the same after each
// step, and rolling every change back over MongoDB, newest first, gives
// back the original documents, type for type, and indexes.
func TestMongo_SchemaMatchesFile(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	original := dump(t, uri)
	_, origIndexes := both(t, file, uri, 0, "indexes", "STORE", "users")
	steps := [][]string{
		{"create-index", "STORE", "users", "age", "--unique"},
		{"create-index", "STORE", "users", `{"city":1,"age":-1}`, "--name", "city_age"},
		{"create-index", "STORE", "users", "name", "tags:-1"},
		{"drop-index", "STORE", "users", "city_age"},
		{"drop-index", "STORE", "users", "tags:-1"},
		{"rename", "STORE", "users", "people"},
		{"drop", "STORE", "people"},
	}
	var ids []string
	for _, s := range steps {
		fout, mout := both(t, file, uri, 0, s...)
		if s[0] == "rename" || s[0] == "drop" {
			fm, mm := withoutIDs(t, fout), withoutIDs(t, mout)
			if js1, js2 := jsonOf(fm), jsonOf(mm); js1 != js2 {
				t.Fatalf("%s: file %s, MongoDB %s", s[0], js1, js2)
			}
		} else if fout != mout {
			t.Fatalf("%s: file %q, MongoDB %q", strings.Join(s, " "), fout, mout)
		}
		if s[0] != "drop" {
			coll := "users"
			if s[0] == "rename" {
				coll = "people"
			}
			fi, mi := both(t, file, uri, 0, "indexes", "STORE", coll)
			if keysOf(fi) != keysOf(mi) {
				t.Fatalf("after %s: indexes file\n%s\nMongoDB\n%s", strings.Join(s, " "), fi, mi)
			}
		}
		rows := mongoHistoryRows(t, uri)
		if rows[0].Kind != strings.ReplaceAll(s[0], "-", "_") || rows[0].Status != "applied" {
			t.Fatalf("after %s: history %+v", s[0], rows[0])
		}
		ids = append(ids, rows[0].Change)
	}
	fh, mh := both(t, file, uri, 0, "history", "STORE", "--coll", "people", "--limit", "1")
	if !strings.Contains(fh, `"kind":"drop"`) || !strings.Contains(mh, `"kind":"drop"`) {
		t.Fatalf("history --coll people: file %s, MongoDB %s", fh, mh)
	}
	if _, mh = both(t, file, uri, 0, "history", "STORE", "--coll", "people", "--limit", "2"); !strings.Contains(mh, `"collections":["users","people"]`) {
		t.Fatalf("history --coll people lists the rename under both names: %s", mh)
	}
	fc, mc := both(t, file, uri, 0, "collections", "STORE")
	if fc != mc || mc != "" {
		t.Fatalf("collections after the drop: file %q, MongoDB %q", fc, mc)
	}
	for i := len(ids) - 1; i >= 0; i-- {
		code, out, stderr := runCLI(t, "", "rollback", uri, ids[i])
		if code != 0 || !strings.Contains(out, `"message":"undid `) {
			t.Fatalf("rollback of %s: exit %d %s%s", steps[i][0], code, out, stderr)
		}
	}
	if got := dump(t, uri); got != original {
		t.Fatalf("after the rollbacks:\n%s\nwant\n%s", got, original)
	}
	if _, mi := both(t, file, uri, 0, "indexes", uri, "users"); mi != origIndexes {
		t.Fatalf("indexes after the rollbacks:\n%s\nwant\n%s", mi, origIndexes)
	}
}

// jsonOf is m as JSON with sorted keys.
func jsonOf(m map[string]any) string {
	js, _ := json.Marshal(m)
	return string(js)
}

// keysOf is an `indexes` output reduced to each index's name, key and
// unique option (a file also prints entries and sizes, and not _id_).
func keysOf(out string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var ix struct {
			Name   string          `json:"name"`
			Key    json.RawMessage `json:"key"`
			Unique bool            `json:"unique"`
		}
		json.Unmarshal([]byte(l), &ix)
		if ix.Name == "_id_" {
			continue // a file does not list it
		}
		js, _ := json.Marshal(ix)
		lines = append(lines, string(js))
	}
	return strings.Join(lines, "\n")
}

// TestMongo_SchemaErrors: the same mistakes give the same exit code and
// message on a file and on the deployment, and write nothing.
func TestMongo_SchemaErrors(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	if code, _, stderr := runCLI(t, `{"_id":1}`, "insert", uri, "other", "-"); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runCLI(t, `{"_id":1}`, "insert", file, "other", "-"); code != 0 {
		t.Fatal(stderr)
	}
	before := len(mongoHistoryRows(t, uri))
	cases := []struct {
		want int
		msg  string
		args []string
	}{
		{66, "collection `userz` not found", []string{"drop", "STORE", "userz"}},
		{66, "collection `userz` not found", []string{"rename", "STORE", "userz", "x"}},
		{69, "cannot rename `users` to `other`: collection `other` already exists", []string{"rename", "STORE", "users", "other"}},
		{65, "cannot rename collection `users` to itself", []string{"rename", "STORE", "users", "users"}},
		{65, "invalid collection name", []string{"rename", "STORE", "users", "a$b"}},
		{69, "cannot create unique index `city_1` on `users`", []string{"create-index", "STORE", "users", "city", "--unique"}},
		{66, "no index `nope` on collection `users`", []string{"drop-index", "STORE", "users", "nope"}},
		{66, "collection `userz` not found", []string{"create-index", "STORE", "userz", "a"}},
		{64, "--name names one index", []string{"create-index", "STORE", "users", "a", "b", "--name", "x"}},
	}
	for _, c := range cases {
		fout, mout := both(t, file, uri, c.want, c.args...)
		if !strings.Contains(mout, c.msg) {
			t.Errorf("%s: MongoDB said %q, want %q (file: %q)", strings.Join(c.args, " "), mout, c.msg, fout)
		}
	}
	if after := len(mongoHistoryRows(t, uri)); after != before {
		t.Fatalf("refused commands left %d changes", after-before)
	}
	if _, mi := both(t, file, uri, 0, "indexes", "STORE", "users"); strings.Count(mi, "\n") != 1 {
		t.Fatalf("indexes after refusals: %s", mi)
	}
	// The collation is sent as the index's collation;
	// FerretDB refuses it, and nothing is created or journaled.
	if code, _, stderr := runCLI(t, "", "create-index", uri, "users", "name", "--collation", `{"locale":"fr"}`); code != 64 ||
		!strings.Contains(stderr, "does not support collations: it answered NotImplemented (Index option \"collation\"") {
		t.Errorf("create-index --collation: exit %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "create-index", uri, "users", "name", "--collation", `{"locale":"fr","strenght":1}`); code != 65 ||
		!strings.Contains(stderr, "unknown field `strenght`") {
		t.Errorf("create-index with a bad --collation: exit %d %s", code, stderr)
	}
	for _, a := range [][]string{
		{"drop", uri, "omgdb.changes"},
		{"rename", uri, "users", "omgdb.x"},
	} {
		code, _, stderr := runCLI(t, "", a...)
		if code == 0 || !strings.Contains(stderr, "hint:") {
			t.Errorf("%v: exit %d %s", a, code, stderr)
		}
	}
	if got := dump(t, uri); got == "" {
		t.Fatal("users is gone")
	}
}

// TestMongo_VerifyAndFileOnly: verify over MongoDB reports a clean
// deployment in the file's shape, then an interrupted change and a
// drop whose kept collection is gone (exit 74); compact, backup,
// salvage and restore are refused (exit 64) with a hint naming
// MongoDB's tool, before anything is sent.
func TestMongo_VerifyAndFileOnly(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	code, out, stderr := runCLI(t, "", "verify", uri, "--json")
	var rep struct {
		Path           string
		Collections    int
		Documents      int64
		JournalRecords int64 `json:"journal_records"`
		Problems       []string
		OK             bool
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || !rep.OK || rep.Collections != 1 || rep.Documents != 4 || rep.Problems == nil {
		t.Fatalf("verify: exit %d %s %s (%+v)", code, out, stderr, rep)
	}
	if code, out, _ := runCLI(t, "", "drop", uri, "users"); code != 0 {
		t.Fatal(out)
	}
	drop := mongoHistoryRows(t, uri)[0].Change
	db := mongotest.Client(t, uri).Database("app")
	if err := db.Collection("omgdb_dropped_" + drop).Drop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("omgdb.changes").InsertOne(context.Background(), bson.D{{Key: "_id", Value: bson.NewObjectID()},
		{Key: "kind", Value: "apply"}, {Key: "collection", Value: "users"}, {Key: "status", Value: "applying"}}); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "", "verify", uri)
	if code != 74 || !strings.Contains(out, "is applying: it was interrupted") || !strings.Contains(out, "the drop cannot be rolled back") ||
		!strings.Contains(stderr, "failed verification with 2 problem(s)") {
		t.Fatalf("verify with problems: exit %d\n%s%s", code, out, stderr)
	}
	for _, c := range []struct {
		args []string
		tool string
	}{
		{[]string{"compact", uri}, "`compact` command"},
		{[]string{"backup", uri, filepath.Join(t.TempDir(), "b.omgdb")}, "mongodump"},
		{[]string{"salvage", uri, filepath.Join(t.TempDir(), "s.omgdb")}, "mongod --repair"},
		{[]string{"restore", filepath.Join(t.TempDir(), "b.omgdb"), uri}, "mongorestore"},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != 64 || !strings.Contains(stderr, "does not run over MongoDB") || !strings.Contains(stderr, c.tool) {
			t.Errorf("%s: exit %d %s", c.args[0], code, stderr)
		}
	}
}

// shellSchema are the shell's collection and index statements run on a
// store file and over MongoDB.
var shellSchema = []string{
	`db.items.insertMany([{_id: 1, i: NumberInt(5), l: NumberLong(6), n: null, a: [1, 'x']}, {_id: 2, i: NumberInt(6), d: 2.5}])`,
	`db.items.createIndex({i: 1}, {unique: true})`,
	`db.items.createIndex({l: -1, n: 1}, {name: 'ln'})`,
	`db.items.createIndex({a: 1}, {name: 'i_1'})`,
	`db.items.getIndexes()`,
	`db.items.dropIndex('ln')`,
	`db.items.dropIndex({i: 1})`,
	`db.items.dropIndex('nope')`,
	`db.items.dropIndex(5)`,
	`db.createCollection('logs')`,
	`db.createCollection('logs')`,
	`db.createCollection('capped', {capped: true})`,
	`db.items.createIndexes([{d: 1}, {i: 1, d: -1}], {sparse: false})`,
	`db.items.getIndexes()`,
	`db.items.dropIndexes(['d_1'])`,
	`db.items.dropIndexes('_id_')`,
	`db.items.dropIndexes(['nope'])`,
	`db.items.dropIndexes()`,
	`db.items.getIndexes()`,
	`db.items.renameCollection('things')`,
	`db.nope.renameCollection('x')`,
	`db.things.find()`,
	`db.other.insertOne({_id: 1})`,
	`db.things.renameCollection('other')`,
	`db.things.renameCollection('other', true)`,
	`db.other.find()`,
	`db.other.drop()`,
	`db.other.drop()`,
	`show collections`,
}

// TestMongo_ShellSchemaMatchesFile runs shellSchema on a file and over
// MongoDB: the same output and errors (change ids and the store's name
// aside), every printed change in history, and rolling back every
// schema change over MongoDB leaves the documents as the inserts wrote
// them, under their first names.
func TestMongo_ShellSchemaMatchesFile(t *testing.T) {
	t.Parallel()
	srv := mongotest.Own(t)
	file, uri := filepath.Join(t.TempDir(), "app.omgdb"), srv.URI+"app"
	var printed []string
	for _, code := range shellSchema {
		fcode, fout, ferr := runCLI(t, "", "shell", file, "--eval", code)
		mcode, mout, merr := runCLI(t, "", "shell", uri, "--eval", code)
		for _, m := range regexp.MustCompile(`(// change |changeId: ')([0-9a-f]{24})`).FindAllStringSubmatch(mout, -1) {
			if !slices.Contains(printed, m[2]) {
				printed = append(printed, m[2])
			}
		}
		norm := func(s, store string) string {
			s = strings.TrimPrefix(s, "created store "+file+"\n")
			return changeID.ReplaceAllString(strings.ReplaceAll(s, store, "STORE"), "ID")
		}
		errLine := func(s, store string) string { return strings.SplitN(norm(s, store), "\nhint: ", 2)[0] }
		if mcode != fcode || norm(mout, uri) != norm(fout, file) || errLine(merr, uri) != errLine(ferr, file) {
			t.Errorf("shell --eval %s:\n file  exit %d: %q %q\n mongo exit %d: %q %q", code, fcode, fout, ferr, mcode, mout, merr)
		}
	}
	if len(printed) != 13 {
		t.Fatalf("%d change ids printed, want 13 (2 inserts, 2 createIndex, 2 dropIndex, createCollection, createIndexes, 2 dropIndexes, 2 renames and a drop): %v", len(printed), printed)
	}
	rows := mongoHistoryRows(t, uri)
	inHistory := map[string]string{}
	for _, r := range rows {
		inHistory[r.Change] = r.Kind
	}
	for _, id := range printed {
		if inHistory[id] == "" {
			t.Errorf("change %s printed but not in history", id)
		}
	}
	for i := len(printed) - 1; i >= 0; i-- {
		if inHistory[printed[i]] == "insert" {
			continue // the documents stay: only the schema changes are undone
		}
		if code, out, stderr := runCLI(t, "", "rollback", uri, printed[i]); code != 0 {
			t.Fatalf("rollback %s (%s): exit %d %s%s", printed[i], inHistory[printed[i]], code, out, stderr)
		}
	}
	want := `{"_id":{"$numberInt":"1"},"i":{"$numberInt":"5"},"l":{"$numberLong":"6"},"n":null,"a":[{"$numberInt":"1"},"x"]}
{"_id":{"$numberInt":"2"},"i":{"$numberInt":"6"},"d":{"$numberDouble":"2.5"}}
`
	if got := dumpColl(t, uri, "items"); got != want {
		t.Errorf("items after the rollbacks:\n%s\nwant\n%s", got, want)
	}
	if got := dumpColl(t, uri, "other"); got != `{"_id":{"$numberInt":"1"}}`+"\n" {
		t.Errorf("other after the rollbacks: %s", got)
	}
	if _, out, _ := runCLI(t, "", "collections", uri); out != "items\nother\n" {
		t.Errorf("collections after the rollbacks: %q", out)
	}
	if _, out, _ := runCLI(t, "", "indexes", uri, "items"); strings.Count(out, "\n") != 1 {
		t.Errorf("indexes after the rollbacks: %q", out)
	}
}
