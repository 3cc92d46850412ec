package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/mongotest"
)

// typedDocs are NDJSON documents with every numeric type FerretDB stores
// side by side, null against missing, arrays and nested documents
// (jstests/core/query/null_query_semantics.js, numberlong.js,
// type_array.js), and one without _id.
var typedDocs = []string{
	`{"_id":1,"i":1,"l":{"$numberLong":"1"},"d":1.5,"n":null,"a":[1,{"$numberLong":"2"},2.5,"x",null],"o":{"p":{"$numberInt":"7"}}}`,
	`{"_id":{"$numberLong":"2"},"i":2147483647,"big":2147483648,"a":[],"o":{}}`,
	`{"_id":"three","d":-0.0,"when":{"$date":"2024-05-01T00:00:00Z"},"nested":[[]] }`,
	`{"_id":{"$oid":"665f1c2e9b1d4a0c8e7f6a5b"},"s":"é","b":true,"missing_here":1}`,
}

// changeID matches a change id or generated ObjectId in an output.
var changeID = regexp.MustCompile(`[0-9a-f]{24}`)

// sameOutput runs args on a fresh store file and a fresh database of srv
// (STORE replaced by each) and requires the same exit code, the same
// standard output (ids of changes aside) and the same documents in coll
// after, in canonical Extended JSON.
// emptyLeft allows an empty collection on the deployment where the file
// has none (an insert rolled back: docs/mongodb.md).
func sameOutput(t *testing.T, srv *mongotest.Server, db, stdin, coll string, emptyLeft bool, args ...string) (uri, out string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "app.omgdb")
	uri = srv.URI + db
	var outs [2]string
	var codes [2]int
	for i, store := range []string{file, uri} {
		a := append([]string(nil), args...)
		a[1] = store
		code, stdout, stderr := runCLI(t, stdin, a...)
		codes[i], outs[i] = code, changeID.ReplaceAllString(stdout, "ID")
		if code != 0 && !strings.Contains(stderr, "hint: ") {
			t.Errorf("%s: exit %d without a hint: %s", store, code, stderr)
		}
	}
	if codes[0] != codes[1] || outs[0] != outs[1] {
		t.Errorf("omgdb %s:\nfile:  exit %d %q\nmongo: exit %d %q", strings.Join(args, " "), codes[0], outs[0], codes[1], outs[1])
	}
	if f, m := dumpOrNone(t, file, coll), dumpOrNone(t, uri, coll); f != m && !(emptyLeft && f == "none" && m == "") {
		t.Errorf("omgdb %s: documents differ:\nfile:\n%s\nmongo:\n%s", strings.Join(args, " "), f, m)
	}
	return uri, outs[1]
}

// dumpOrNone is dumpColl, or "none" when the collection (or store) does
// not exist.
func dumpOrNone(t *testing.T, store, coll string) string {
	t.Helper()
	code, out, _ := runCLI(t, "", "find", store, coll, "{}", "--ejson", "canonical")
	if code != 0 {
		return "none"
	}
	return out
}

// TestMongo_InsertImportMatchesFile runs insert and import on a store
// file and on the deployment: the same output and then the same
// documents, type for type.
func TestMongo_InsertImportMatchesFile(t *testing.T) {
	t.Parallel()
	srv := mongotest.Own(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nd := write("typed.ndjson", strings.Join(typedDocs[:2], "\n")+"\n"+typedDocs[3]+"\n")
	arr := write("arr.json", "["+strings.Join([]string{typedDocs[0], typedDocs[1]}, ",\n")+"]")
	csv := write("p.csv", "_id,name,age,score\n1,ana,30,1.5\n2,bob,,7\n3,\"c, y\",25,-1\n")
	bad := write("bad.ndjson", `{"_id":1}`+"\n"+`{"_id":2}`+"\n"+`{"_id":3,}`+"\n"+`{"_id":4}`+"\n"+`{"_id":5}`+"\n")
	dup := write("dup.ndjson", `{"_id":1}`+"\n"+`{"_id":2}`+"\n"+`{"_id":1,"again":true}`+"\n"+`{"_id":4}`+"\n")
	multi := write("multi.ndjson", `{"_id":1} {"_id":2}`+"\n"+`{"_id":3}`+"\n"+`{"_id":4} {"_id":5} {"_id":6}`+"\n")
	cases := []struct {
		name      string
		stdin     string
		args      []string
		emptyLeft bool
	}{
		{"insert_one_typed", "", []string{"insert", "STORE", "items", typedDocs[0]}, false},
		{"insert_one_int32_long", "", []string{"insert", "STORE", "items", `{"_id":7,"small":5,"large":5000000000,"neg":-2147483648}`}, false},
		{"insert_stdin", strings.Join(typedDocs[:2], "\n"), []string{"insert", "STORE", "items", "-"}, false},
		{"insert_stdin_bad_line", `{"_id":1}` + "\n{nope}\n", []string{"insert", "STORE", "items", "-"}, false},
		{"insert_stdin_dup_in_input", `{"_id":1}` + "\n" + `{"_id":1}` + "\n", []string{"insert", "STORE", "items", "-"}, true},
		{"insert_not_object", "", []string{"insert", "STORE", "items", `[1,2]`}, false},
		{"insert_array_id", "", []string{"insert", "STORE", "items", `{"_id":[1]}`}, false},
		{"import_ndjson", "", []string{"import", "STORE", "items", nd}, false},
		{"import_stdin_batches", strings.Join(typedDocs[:2], "\n") + "\n" + typedDocs[3], []string{"import", "STORE", "items", "--batch-size", "1"}, false},
		{"import_json_array", "", []string{"import", "STORE", "items", arr, "--jsonArray"}, false},
		{"import_csv_headerline", "", []string{"import", "STORE", "items", csv, "--type", "csv", "--headerline"}, false},
		{"import_csv_typed_ignore_blanks", "", []string{"import", "STORE", "items", csv, "--type", "csv", "--ignoreBlanks",
			"--columnsHaveTypes", "--fields", "_id.int32(),name.string(),age.int64(),score.double()", "--resume-from-line", "2"}, false},
		{"import_bad_line_abort", "", []string{"import", "STORE", "items", bad, "--batch-size", "2"}, false},
		{"import_bad_line_skip", "", []string{"import", "STORE", "items", bad, "--batch-size", "2", "--on-error", "skip"}, false},
		{"import_resume", "", []string{"import", "STORE", "items", bad, "--resume-from-line", "4"}, false},
		{"import_dup_abort", "", []string{"import", "STORE", "items", dup, "--batch-size", "10"}, false},
		{"import_dup_skip", "", []string{"import", "STORE", "items", dup, "--on-error", "skip"}, false},
		{"import_dup_skip_batches", "", []string{"import", "STORE", "items", dup, "--on-error", "skip", "--batch-size", "2"}, false},
		{"import_multi_per_line", "", []string{"import", "STORE", "items", multi, "--batch-size", "2"}, false},
		{"import_empty", "", []string{"import", "STORE", "items", "--jsonArray"}, false},
		{"import_not_json", "a,b\n1,2\n", []string{"import", "STORE", "items"}, false},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sameOutput(t, srv, fmt.Sprintf("db%d", i), c.stdin, "items", c.emptyLeft, c.args...)
		})
	}
}

// summary is an import's JSON summary.
type summary struct {
	Inserted, Skipped, Failed, Lines int64
	Batches                          int
	Committed                        int64 `json:"committed_through_line"`
	Stopped                          int64 `json:"stopped_at_line"`
	Change                           string
	Errors                           []struct {
		Line  int64
		Error string
	}
}

func decodeSummary(t *testing.T, out string) summary {
	t.Helper()
	var s summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("import summary %q: %v", out, err)
	}
	return s
}

// TestMongo_ImportStopsAtBadLine: what the summary says was written is
// what the server holds, for a bad line and for a taken _id mid-batch,
// and --resume-from-line goes on from committed_through_line + 1.
func TestMongo_ImportStopsAtBadLine(t *testing.T) {
	t.Parallel()
	srv := mongotest.Own(t)
	uri := srv.URI + "app"
	in := `{"_id":1}` + "\n" + `{"_id":2}` + "\n" + `{"_id":3}` + "\n" + `{"_id":4,` + "\n" + `{"_id":5}` + "\n"
	code, out, stderr := runCLI(t, in, "import", uri, "items", "--batch-size", "2")
	s := decodeSummary(t, out)
	if code != cli.ExitData || s.Inserted != 3 || s.Committed != 3 || s.Stopped != 4 || s.Failed != 1 || len(s.Errors) != 1 || s.Errors[0].Line != 4 ||
		!strings.Contains(stderr, "line 4: ") || !strings.Contains(stderr, "--resume-from-line 4") {
		t.Fatalf("bad line 4: exit %d, %s%s", code, out, stderr)
	}
	if got := dumpColl(t, uri, "items"); got != "{\"_id\":{\"$numberInt\":\"1\"}}\n{\"_id\":{\"$numberInt\":\"2\"}}\n{\"_id\":{\"$numberInt\":\"3\"}}\n" {
		t.Errorf("on the server after the bad line: %q", got)
	}
	fixed := strings.Replace(in, `{"_id":4,`, `{"_id":4}`, 1)
	code, out, stderr = runCLI(t, fixed, "import", uri, "items", "--resume-from-line", "4")
	r := decodeSummary(t, out)
	if code != 0 || r.Inserted != 2 || r.Committed != 5 || r.Change == s.Change {
		t.Fatalf("resume: exit %d, %s%s", code, out, stderr)
	}
	// A taken _id in the middle of a batch: the documents before it in
	// the batch are written, the summary counts exactly them.
	in = `{"_id":6}` + "\n" + `{"_id":7}` + "\n" + `{"_id":2,"dup":true}` + "\n" + `{"_id":8}` + "\n"
	code, out, stderr = runCLI(t, in, "import", uri, "items")
	s = decodeSummary(t, out)
	if code != cli.ExitConflict || s.Inserted != 2 || s.Committed != 2 || s.Stopped != 3 || !strings.Contains(stderr, "line 3: duplicate _id 2 in collection `items`") {
		t.Fatalf("duplicate on line 3: exit %d, %s%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", "count", uri, "items")
	if out != "7\n" {
		t.Errorf("count after the duplicate: %q; want 7 (1-7, no 8, _id 2 untouched)", out)
	}
	if code, out, _ = runCLI(t, "", "find", uri, "items", `{"dup":true}`); out != "" {
		t.Errorf("the refused duplicate was written: %q", out)
	}
	hist := mongoHistoryRows(t, uri)
	if len(hist) != 3 || hist[0].Inserted != 2 || hist[1].Inserted != 2 || hist[2].Inserted != 3 || hist[0].Kind != "import" || hist[0].Status != "applied" {
		t.Errorf("history: %+v; want three applied imports of 2, 2 and 3 documents", hist)
	}
}

type historyRow struct {
	Change, Kind, Status, Actor string
	Inserted, Deleted           int64
}

func mongoHistoryRows(t *testing.T, uri string) []historyRow {
	t.Helper()
	code, out, stderr := runCLI(t, "", "history", uri)
	if code != 0 {
		t.Fatalf("history: exit %d %s", code, stderr)
	}
	var rows []historyRow
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r historyRow
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("history line %q: %v", l, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// TestMongo_InsertImportRollback: rollback removes exactly the documents
// an insert or import wrote (the others stay), and the rollback of the
// rollback puts them back, type for type.
func TestMongo_InsertImportRollback(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	before := dump(t, uri)
	in := strings.Join(typedDocs[:2], "\n") + "\n" + typedDocs[3]
	in = strings.NewReplacer(`"_id":1,`, `"_id":11,`, `"_id":{"$numberLong":"2"}`, `"_id":{"$numberLong":"12"}`).Replace(in)
	code, out, stderr := runCLI(t, in, "import", uri, "users", "--batch-size", "2")
	s := decodeSummary(t, out)
	if code != 0 || s.Inserted != 3 || s.Batches != 2 || len(s.Change) != 24 {
		t.Fatalf("import: exit %d %s%s", code, out, stderr)
	}
	imported := dump(t, uri)
	code, out, stderr = runCLI(t, "", "rollback", uri, s.Change)
	rb := decodeApply(t, out)
	if code != 0 || rb.Deleted != 3 || len(rb.Conflicts) != 0 {
		t.Fatalf("rollback of the import: exit %d %s%s", code, out, stderr)
	}
	if got := dump(t, uri); got != before {
		t.Errorf("after the rollback:\n%s\nwant:\n%s", got, before)
	}
	if code, out, stderr = runCLI(t, "", "rollback", uri, rb.ChangeID); code != 0 || dump(t, uri) != imported {
		t.Errorf("rollback of the rollback: exit %d %s%s:\n%s\nwant:\n%s", code, out, stderr, dump(t, uri), imported)
	}
	code, out, _ = runCLI(t, "", "insert", uri, "users", `{"_id":50,"v":{"$numberLong":"5"}}`)
	if code != 0 || out != "50\n" {
		t.Fatalf("insert: exit %d %q", code, out)
	}
	hist := mongoHistoryRows(t, uri)
	if hist[0].Kind != "insert" || hist[0].Inserted != 1 {
		t.Fatalf("history after the insert: %+v", hist[0])
	}
	if code, out, stderr = runCLI(t, "", "rollback", uri, hist[0].Change); code != 0 || dump(t, uri) != imported {
		t.Errorf("rollback of the insert: exit %d %s%s", code, out, stderr)
	}
}

// TestMongo_ImportRollbackConflict: another writer changes one imported
// document; the rollback deletes the others, reports that one as a
// conflict and leaves it as the other writer left it; --force removes it.
func TestMongo_ImportRollbackConflict(t *testing.T) {
	t.Parallel()
	srv := mongotest.Own(t)
	uri := srv.URI + "app"
	code, out, _ := runCLI(t, `{"_id":1,"v":1}`+"\n"+`{"_id":2,"v":1}`+"\n"+`{"_id":3,"v":1}`, "import", uri, "items")
	s := decodeSummary(t, out)
	if code != 0 || s.Inserted != 3 {
		t.Fatalf("import: exit %d %s", code, out)
	}
	c := mongotest.Client(t, srv.URI)
	if _, err := c.Database("app").Collection("items").UpdateOne(context.Background(), bson.M{"_id": 2}, bson.M{"$set": bson.M{"v": int64(1)}}); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "", "rollback", uri, s.Change)
	rb := decodeApply(t, out)
	if code != cli.ExitConflict || rb.Deleted != 2 || len(rb.Conflicts) != 1 || rb.Conflicts[0].Reason != "changed since the plan" {
		t.Fatalf("rollback after an int became a long: exit %d %s", code, out)
	}
	if got := dumpColl(t, uri, "items"); got != "{\"_id\":{\"$numberInt\":\"2\"},\"v\":{\"$numberLong\":\"1\"}}\n" {
		t.Errorf("after the refused rollback: %q", got)
	}
	// The import created items: rolled back whole, it leaves no collection
	// behind, as on a file.
	if code, out, stderr := runCLI(t, "", "rollback", uri, s.Change, "--force"); code != 0 || dumpOrNone(t, uri, "items") != "none" {
		t.Errorf("rollback --force: exit %d %s%s; left %q", code, out, stderr, dumpOrNone(t, uri, "items"))
	}
}

// TestMongo_ImportRefusals: the options a MongoDB store (FerretDB) does
// not serve are refused before anything is written, with exit 64.
func TestMongo_ImportRefusals(t *testing.T) {
	t.Parallel()
	srv := mongotest.Own(t)
	uri := srv.URI + "app"
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import", uri, "items", "--drop", "--mode", "upsert"}, cli.ExitUsage, "--drop works over MongoDB with --mode insert only"},
		{[]string{"import", uri, "items", "--atomic"}, cli.ExitUsage, "--atomic needs a multi-document transaction"},
		{[]string{"import", uri, "items", "--atomic", "--mode", "merge"}, cli.ExitUsage, "--atomic needs a multi-document transaction"},
		{[]string{"import", uri, "omgdb.changes"}, cli.ExitData, "is not one omgdb writes"},
		{[]string{"insert", uri, "system.x", `{"a":1}`}, cli.ExitData, "is not one omgdb writes"},
		{[]string{"insert", uri, "items", `{"a":1`}, cli.ExitData, "document: "},
		{[]string{"insert", uri, "items", `{"$a":1}`}, cli.ExitData, "$a"},
	} {
		code, stdout, stderr := runCLI(t, `{"_id":1}`, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "hint: ") || strings.Contains(stdout, `"inserted":1`) {
			t.Errorf("omgdb %s: exit %d, %q %q; want %d and %q", strings.Join(c.args, " "), code, stdout, stderr, c.code, c.want)
		}
	}
	if code, out, _ := runCLI(t, "", "collections", uri); code != 0 || out != "" {
		t.Errorf("collections after the refusals: %q", out)
	}
	if code, out, _ := runCLI(t, "", "history", uri); code != 0 || out != "" {
		t.Errorf("history after the refusals: %q", out)
	}
}

// TestMongo_InsertCredentialsNeverPrinted: insert and import over a URI
// with a user and password never print them, on success or failure.
func TestMongo_InsertCredentialsNeverPrinted(t *testing.T) {
	t.Parallel()
	s := mongotest.Own(t)
	const user, pw = "omgdbadmin", "Hunter2Secret"
	up := strings.Replace(s.URI, "mongodb://", "mongodb://"+user+":"+pw+"@", 1) + "app?authMechanism=PLAIN"
	var all string
	for _, a := range []struct{ stdin, args []string }{
		{nil, []string{"insert", up, "items", `{"_id":1}`}},
		{nil, []string{"insert", up, "items", `{"_id":1}`}},
		{[]string{`{"_id":2}`, `{"_id":1}`}, []string{"insert", up, "items", "-"}},
		{[]string{`{"_id":3}`, `{"_id":1}`}, []string{"import", up, "items"}},
		{[]string{`{"_id":3`}, []string{"import", up, "items"}},
	} {
		_, stdout, stderr := runCLI(t, strings.Join(a.stdin, "\n"), a.args...)
		all += stdout + stderr
	}
	if strings.Contains(all, pw) || strings.Contains(all, user) || !strings.Contains(all, "duplicate _id 1") || !strings.Contains(all, "removed again") {
		t.Errorf("insert and import printed the credentials, or did not run:\n%s", all)
	}
}

// shellWrites are the shell's writes that run over MongoDB, each printed
// (with its change id) and followed by a read of what it did.
var shellWrites = []string{
	`db.items.insertOne({_id: 1, i: NumberInt(5), l: NumberLong(6), d: 1.5, n: null, a: [1, NumberLong(2), 'x', null], o: {p: 1}})`,
	`db.items.insertMany([{_id: 2, v: NumberInt(1)}, {_id: 3, v: NumberLong(1)}, {_id: 4, v: 1.0}, {_id: 5}])`,
	`db.items.insertOne({_id: 2, again: true})`,
	`db.items.insertMany([{_id: 6}, {_id: 2, again: true}])`,
	`db.items.insertOne([1, 2])`,
	`db.items.updateOne({_id: 2}, {$inc: {v: NumberLong(1)}})`,
	`db.items.updateMany({v: {$exists: true}}, {$mul: {v: 2.5}})`,
	`db.items.updateMany({n: null}, {$set: {seen: true}})`,
	`db.items.updateOne({_id: 9}, {$set: {u: NumberInt(1)}}, {upsert: true})`,
	`db.items.updateOne({_id: 1}, {$set: {'a.$[e]': 0}}, {arrayFilters: [{e: null}]})`,
	`db.items.updateOne({}, {$set: {first: true}}, {sort: {_id: -1}})`,
	`db.items.updateOne({_id: 42}, {$set: {x: 1}})`,
	`db.items.updateOne({_id: 1}, {$set: {i: NumberInt(5)}})`,
	`db.items.replaceOne({_id: 3}, {w: NumberInt(3), z: [[]].length})`,
	`db.items.replaceOne({_id: 3}, {$set: {w: 1}})`,
	`db.items.updateOne({_id: 3}, {w: 1})`,
	`db.items.updateOne({_id: 3}, {$bogus: {w: 1}})`,
	`db.items.deleteOne({v: {$gt: 0}})`,
	`db.items.deleteMany({_id: {$in: [4, 5, 77]}})`,
	`db.items.deleteMany({nothing: 1})`,
	`db.omgdb.changes.insertOne({x: 1})`,
	`db.items.find().toArray()`,
}

// TestMongo_ShellWritesMatchFile runs the shell's writes on a store file
// and on the deployment, statement by statement: the same output (change
// ids aside), the same errors and exit codes, and the same documents
// after. Each change id printed over MongoDB is in history, and rolling
// the insertMany back removes its documents.
func TestMongo_ShellWritesMatchFile(t *testing.T) {
	t.Parallel()
	srv := mongotest.Own(t)
	file, uri := filepath.Join(t.TempDir(), "app.omgdb"), srv.URI+"app"
	var changes [][]string
	for _, code := range shellWrites {
		mout := shellSameOutput(t, file, uri, code)
		changes = append(changes, regexp.MustCompile(`changeId: '([0-9a-f]{24})'`).FindAllStringSubmatch(mout, -1)...)
	}
	if f, m := dumpColl(t, file, "items"), dumpColl(t, uri, "items"); f != m {
		t.Errorf("after the shell's writes:\nfile:\n%s\nmongo:\n%s", f, m)
	}
	// History holds each printed change, in order, and the insertMany
	// refused half-way with the rollback that removed its first document.
	var kept []historyRow
	rolledBack := 0
	for _, h := range mongoHistoryRows(t, uri) {
		switch {
		case h.Kind == "rollback":
			rolledBack++
		case strings.HasPrefix(h.Status, "rolled back by "):
			rolledBack++
		default:
			kept = append([]historyRow{h}, kept...)
		}
	}
	if len(changes) != len(kept) || rolledBack != 2 || len(kept) < 10 {
		t.Fatalf("%d change ids printed, %d changes in history and %d rolled back or rollbacks", len(changes), len(kept), rolledBack)
	}
	for i, c := range changes {
		if kept[i].Change != c[1] {
			t.Errorf("change %d: printed %s, history has %s", i, c[1], kept[i].Change)
		}
	}
	if kept[1].Kind != "insert" || kept[1].Inserted != 4 {
		t.Errorf("the insertMany in history: %+v", kept[1])
	}
}

// shellSameOutput runs code in the shell on the store file and on the
// deployment uri and requires the same exit code, output (change ids
// and the store's name aside) and error; it returns the output over
// MongoDB.
func shellSameOutput(t *testing.T, file, uri, code string) string {
	t.Helper()
	fcode, fout, ferr := runCLI(t, "", "shell", file, "--eval", code)
	mcode, mout, merr := runCLI(t, "", "shell", uri, "--eval", code)
	norm := func(s, store string) string {
		return changeID.ReplaceAllString(strings.ReplaceAll(s, store, "STORE"), "ID")
	}
	// The errors must say the same; over MongoDB the hint says more
	// (what was written and rolled back), and the file is created.
	errLine := func(s, store string) string {
		return norm(strings.SplitN(strings.TrimPrefix(s, "created store "+file+"\n"), "\nhint: ", 2)[0], store)
	}
	if mcode != fcode || norm(mout, uri) != norm(fout, file) || errLine(merr, uri) != errLine(ferr, file) {
		t.Errorf("shell --eval %s:\n file  exit %d: %q %q\n mongo exit %d: %q %q", code, fcode, fout, ferr, mcode, mout, merr)
	}
	return mout
}

// TestMongo_ShellWritesMatchCLI: the same writes from the shell and from
// the CLI over MongoDB leave the same documents.
func TestMongo_ShellWritesMatchCLI(t *testing.T) {
	t.Parallel()
	srv := mongotest.Own(t)
	sh, cl := srv.URI+"shell", srv.URI+"cli"
	for _, step := range []struct {
		code string
		args []string
	}{
		{`db.items.insertMany([{_id: 1, v: NumberInt(1), t: ['a']}, {_id: 2, v: NumberLong(2)}, {_id: 3, v: 3.5}])`,
			[]string{"insert", "STORE", "items", "-"}},
		{`db.items.updateMany({v: {$gte: 2}}, {$inc: {v: NumberInt(1)}, $push: {t: 'b'}})`,
			[]string{"update", "STORE", "items", `{"v":{"$gte":2}}`, `{"$inc":{"v":{"$numberInt":"1"}},"$push":{"t":"b"}}`}},
		{`db.items.replaceOne({_id: 1}, {w: null})`, []string{"replace", "STORE", "items", `{"_id":1}`, `{"w":null}`}},
		{`db.items.deleteOne({_id: 2})`, []string{"delete", "STORE", "items", `{"_id":2}`, "--one"}},
	} {
		if code, _, stderr := runCLI(t, "", "shell", sh, "--eval", step.code); code != 0 {
			t.Fatalf("shell %s: exit %d %s", step.code, code, stderr)
		}
		a := append([]string(nil), step.args...)
		a[1] = cl
		stdin := `{"_id":1,"v":1,"t":["a"]}` + "\n" + `{"_id":2,"v":{"$numberLong":"2"}}` + "\n" + `{"_id":3,"v":3.5}`
		if code, _, stderr := runCLI(t, stdin, a...); code != 0 {
			t.Fatalf("omgdb %v: exit %d %s", a, code, stderr)
		}
		if s, c := dumpColl(t, sh, "items"), dumpColl(t, cl, "items"); s != c {
			t.Fatalf("after %s:\nshell:\n%s\ncli:\n%s", step.code, s, c)
		}
	}
}
