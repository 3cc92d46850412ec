package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// defineRules are the rules the define tests set: types of every kind a
// value can break them with (long takes an int, int takes no long,
// number takes every number), null against missing (a required field
// may be null; a rule on a missing field does not apply), min, max, enum.
const defineRules = `{"required":["name"],"fields":{"age":{"type":"long","min":0,"max":150},"score":"number","tags":["array","null"],"city":{"type":"string","enum":["Paris","Lyon"]},"n":"int"}}`

// noNote removes the note a define over FerretDB adds (its rules are not
// the server's validator there), and fails when it is missing.
func noNote(t *testing.T, out string) string {
	t.Helper()
	var keep []string
	found := false
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(l, "note: ") {
			found = true
			if !strings.Contains(l, "writes made around omgdb are not checked on this deployment") {
				t.Errorf("note %q does not say what is not checked", l)
			}
			continue
		}
		keep = append(keep, l)
	}
	if !found {
		t.Errorf("no note that FerretDB does not enforce the rules in %q", out)
	}
	return strings.Join(keep, "")
}

// writeFile writes text to path.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstLine is the first line of s.
func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// onBoth runs args (STORE the store) on the file and on the deployment,
// with stdin, and checks that both exit with want and, when they fail,
// print the same error line.
func onBoth(t *testing.T, file, uri, stdin string, want int, args ...string) {
	t.Helper()
	var errs [2]string
	for i, store := range []string{file, uri} {
		a := append([]string(nil), args...)
		for j := range a {
			if a[j] == "STORE" {
				a[j] = store
			}
		}
		code, out, stderr := runCLI(t, stdin, a...)
		if code != want {
			t.Errorf("omgdb %s: exit %d, want %d: %s%s", strings.Join(a, " "), code, want, out, stderr)
		}
		errs[i] = firstLine(stderr)
	}
	if want != 0 && errs[0] != errs[1] {
		t.Errorf("%s: errors differ:\nfile    %s\nMongoDB %s", strings.Join(args, " "), errs[0], errs[1])
	}
}

// TestMongo_DefineMatchesFile defines the same rules on a store file and
// on the deployment, then writes through every CLI write path on both:
// each document that breaks the rules is refused with the file's error
// and exit code, nothing of a refused insert is written, good documents
// are accepted, and both hold the same documents, type for type, at the
// end.
func TestMongo_DefineMatchesFile(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	fout, mout := both(t, file, uri, 0, "define", "STORE", "users", defineRules)
	if fout != noNote(t, mout) || fout != "defined rules for `users`\n" {
		t.Fatalf("define: file %q, MongoDB %q", fout, mout)
	}
	insert := func(doc string, want int) {
		t.Helper()
		onBoth(t, file, uri, "", want, "insert", "STORE", "users", doc)
	}
	insert(`{"_id":10,"name":"e","age":"30"}`, 65)                    // a string for a long
	insert(`{"_id":11,"name":"e","age":30.5}`, 65)                    // a double for a long
	insert(`{"_id":12,"name":"e","age":{"$numberDecimal":"30"}}`, 65) // a decimal for a long: refused before anything is sent
	insert(`{"_id":13,"age":30}`, 65)                                 // required, missing
	insert(`{"_id":16,"name":"g","tags":"x"}`, 65)                    // neither array nor null
	insert(`{"_id":17,"name":"g","n":{"$numberLong":"5"}}`, 65)       // a long for an int
	insert(`{"_id":19,"name":"g","score":"high"}`, 65)                // not a number
	insert(`{"_id":20,"name":"g","age":-1}`, 65)                      // below min
	insert(`{"_id":21,"name":"g","age":{"$numberLong":"151"}}`, 65)   // above max, a long
	insert(`{"_id":22,"name":"g","city":"Rome"}`, 65)                 // not in enum
	insert(`{"_id":14,"name":null,"age":{"$numberLong":"40"}}`, 0)    // null is present; a long
	insert(`{"_id":15,"name":"f","age":40,"tags":null,"score":2.5}`, 0)
	insert(`{"_id":18,"name":"g","n":5,"tags":[],"score":{"$numberLong":"7"}}`, 0)
	// Several documents: one bad, none written.
	onBoth(t, file, uri, "{\"_id\":30,\"name\":\"h\"}\n{\"_id\":31,\"name\":\"h\",\"age\":[1]}\n", 65, "insert", "STORE", "users", "-")
	// Import: stops at the bad line, the lines before it written; or skips it.
	onBoth(t, file, uri, "{\"_id\":40,\"name\":\"i\"}\n{\"_id\":41,\"age\":1}\n{\"_id\":42,\"name\":\"i\"}\n", 65, "import", "STORE", "users")
	onBoth(t, file, uri, "{\"_id\":43,\"name\":\"j\"}\n{\"_id\":44,\"name\":\"j\",\"n\":1.5}\n{\"_id\":45,\"name\":\"j\"}\n", 0, "import", "STORE", "users", "--on-error", "skip")
	onBoth(t, file, uri, "{\"_id\":1,\"age\":\"x\"}\n", 65, "import", "STORE", "users", "--mode", "merge")
	onBoth(t, file, uri, "{\"_id\":2,\"name\":\"bob\",\"age\":26}\n", 0, "import", "STORE", "users", "--mode", "upsert")
	// The summaries of imports that skip documents the rules refuse.
	sameSummary(t, file, uri, "{\"_id\":1,\"age\":\"x\"}\n{\"_id\":2,\"city\":\"Lyon\"}\n{\"_id\":50,\"name\":\"k\",\"n\":[1]}\n", `"matched":1`,
		"import", "STORE", "users", "--mode", "merge", "--on-error", "skip")
	sameSummary(t, file, uri, "{\"_id\":51,\"name\":\"l\"}\n{\"_id\":52,\"age\":null,\"name\":\"l\"}\n{\"_id\":53,\"name\":\"l\"}\n", `"inserted":2`,
		"import", "STORE", "users", "--on-error", "skip", "--batch-size", "2")
	// Updates, replacements, deletions.
	onBoth(t, file, uri, "", 65, "update", "STORE", "users", `{"_id":1}`, `{"$set":{"age":"old"}}`)
	onBoth(t, file, uri, "", 65, "update", "STORE", "users", `{"_id":1}`, `{"$inc":{"age":0.5}}`)
	onBoth(t, file, uri, "", 65, "update", "STORE", "users", `{"_id":1}`, `{"$unset":{"name":""}}`)
	onBoth(t, file, uri, "", 65, "update", "STORE", "users", `{}`, `{"$set":{"city":"Rome"}}`)
	onBoth(t, file, uri, "", 65, "replace", "STORE", "users", `{"_id":2}`, `{"age":26}`)
	onBoth(t, file, uri, "", 0, "update", "STORE", "users", `{"_id":1}`, `{"$inc":{"age":1}}`)
	onBoth(t, file, uri, "", 0, "replace", "STORE", "users", `{"_id":2}`, `{"name":"bob2","age":{"$numberLong":"26"}}`)
	onBoth(t, file, uri, "", 0, "delete", "STORE", "users", `{"_id":3}`)
	if f, m := dump(t, file), dump(t, uri); f != m {
		t.Fatalf("after the writes:\nfile    %s\nMongoDB %s", f, m)
	}
	for _, id := range []string{"10", "11", "12", "13", "16", "17", "19", "20", "21", "22", "30", "31", "41", "44"} {
		if strings.Contains(dump(t, uri), `{"_id":{"$numberInt":"`+id+`"}`) {
			t.Errorf("document %s, refused, is in the deployment", id)
		}
	}
	for _, id := range []string{"14", "15", "18", "40", "43", "45"} {
		if !strings.Contains(dump(t, uri), `{"_id":{"$numberInt":"`+id+`"}`) {
			t.Errorf("document %s, accepted, is not in the deployment", id)
		}
	}
}

// sameSummary runs an import on both stores and checks that the
// summaries are the same but for the change id, and hold want.
func sameSummary(t *testing.T, file, uri, stdin, want string, args ...string) {
	t.Helper()
	var sums []string
	for _, s := range []string{file, uri} {
		a := append([]string(nil), args...)
		a[1] = s
		_, out, _ := runCLI(t, stdin, a...)
		var sum map[string]any
		json.Unmarshal([]byte(out), &sum)
		delete(sum, "change")
		sums = append(sums, jsonOf(sum))
	}
	if sums[0] != sums[1] || !strings.Contains(sums[0], want) {
		t.Errorf("%v: file %s, MongoDB %s", args, sums[0], sums[1])
	}
}

// TestMongo_DefinePlansChecked: a plan (plan-update, plan-aggregate with
// $merge) whose documents break the rules is refused when it is made
// over MongoDB, and one made before stricter rules is refused at apply,
// writing nothing, as the file's apply refuses it.
func TestMongo_DefinePlansChecked(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	before := dump(t, uri)
	tokens := map[string]string{}
	for _, s := range []string{file, uri} {
		code, out, stderr := runCLI(t, "", "plan-update", s, "users", `{"_id":{"$lte":2}}`, `{"$set":{"city":"Rome"}}`)
		if code != 0 {
			t.Fatalf("plan-update on %s: exit %d: %s", s, code, stderr)
		}
		var p struct{ Token string }
		json.Unmarshal([]byte(out), &p)
		tokens[s] = p.Token
	}
	both(t, file, uri, 0, "define", "STORE", "users", defineRules)
	var errs []string
	for _, s := range []string{file, uri} {
		code, out, stderr := runCLI(t, "", "apply", s, tokens[s])
		if code != 65 {
			t.Fatalf("apply on %s after define: exit %d, want 65: %s%s", s, code, out, stderr)
		}
		errs = append(errs, firstLine(stderr))
	}
	if errs[0] != errs[1] || !strings.Contains(errs[1], "field `city` must be one of") {
		t.Errorf("apply refused with\nfile    %s\nMongoDB %s", errs[0], errs[1])
	}
	if got := dump(t, uri); got != before {
		t.Errorf("a refused apply wrote:\n%s", got)
	}
	code, _, stderr := runCLI(t, "", "plan-update", uri, "users", `{"_id":1}`, `{"$set":{"tags":"x"}}`)
	if code != 65 || !strings.Contains(stderr, "document _id 1 breaks the rules of collection `users`: field `tags` must be array or null, got string \"x\"") {
		t.Errorf("plan-update breaking the rules: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "plan-aggregate", uri, "users", `[{"$match":{"_id":1}},{"$addFields":{"age":"x"}},{"$merge":{"into":"users"}}]`)
	if code != 65 || !strings.Contains(stderr, "field `age` must be long, got string \"x\"") {
		t.Errorf("plan-aggregate breaking the rules: exit %d: %s", code, stderr)
	}
	code, out, _ := runCLI(t, "", "plans", uri)
	if code != 0 || strings.Count(out, "\n") != 1 { // only the plan made before the rules
		t.Errorf("plans after refused plans: exit %d: %s", code, out)
	}
}

// TestMongo_DefineHistoryRollback: a define reports the existing
// documents that break the new rules as the file does (and is not
// refused), is one change in history, and rollback puts back the rules
// it replaced; describe and inspect show the rules as on a file.
func TestMongo_DefineHistoryRollback(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	both(t, file, uri, 0, "define", "STORE", "users", `{"required":["name"]}`)
	strict := `{"required":["name","age"],"fields":{"age":{"type":"int","min":26}}}`
	fout, mout := both(t, file, uri, 0, "define", "STORE", "users", strict)
	if fout != noNote(t, mout) || !strings.Contains(fout, "warning: 2 of 4 existing document(s) in `users` break the new rules") ||
		!strings.Contains(fout, "document _id 2 breaks the rules of collection `users`: field `age` must be at least 26, got 25") {
		t.Fatalf("define with violations: file %q, MongoDB %q", fout, mout)
	}
	f, m := both(t, file, uri, 0, "define", "STORE", "users", strict, "--json")
	var fr, mr map[string]any
	json.Unmarshal([]byte(f), &fr)
	json.Unmarshal([]byte(m), &mr)
	if mr["server_enforces"] != false || mr["change_id"] == "" || !strings.Contains(mr["note"].(string), "does not take validators") {
		t.Errorf("define --json over FerretDB: %s", m)
	}
	for _, k := range []string{"change_id", "server_enforces", "note"} {
		delete(mr, k)
	}
	if jsonOf(fr) != jsonOf(mr) {
		t.Errorf("define --json: file %s, MongoDB %s", f, m)
	}
	fd, md := both(t, file, uri, 0, "describe", "STORE")
	if !strings.Contains(md, "Rules: `"+strict+"`") || fd[strings.Index(fd, "## "):] != md[strings.Index(md, "## "):] {
		t.Errorf("describe: file\n%s\nMongoDB\n%s", fd, md)
	}
	_, info, _ := runCLI(t, "", "inspect", uri, "--json")
	if !strings.Contains(info, `"rules":`+strict) {
		t.Errorf("inspect --json has no rules: %s", info)
	}
	_, hist, _ := runCLI(t, "", "history", uri, "--limit", "3")
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(hist), "\n") {
		var h struct{ Change, Kind, Note string }
		json.Unmarshal([]byte(l), &h)
		if h.Kind != "define" || h.Note != "define users" {
			t.Fatalf("history: %s", hist)
		}
		ids = append(ids, h.Change)
	}
	if code, out, stderr := runCLI(t, "", "verify", uri); code != 0 {
		t.Errorf("verify after defines: exit %d: %s%s", code, out, stderr)
	}
	if code, out, stderr := runCLI(t, "", "log", uri); code != 0 || strings.Count(out, `"define"`) < 3 {
		t.Errorf("log after defines: exit %d: %s%s", code, out, stderr)
	}
	bad := `{"_id":9,"name":"z"}` // breaks strict (no age), follows the first rules
	if code, _, _ := runCLI(t, "", "insert", uri, "users", bad); code != 65 {
		t.Fatalf("insert breaking the rules: exit %d", code)
	}
	// Undo the two strict defines: the first rules are back.
	for _, id := range ids[:2] {
		code, out, stderr := runCLI(t, "", "rollback", uri, id)
		if code != 0 || !strings.Contains(out, "undid define users") {
			t.Fatalf("rollback %s: exit %d: %s%s", id, code, out, stderr)
		}
	}
	if code, out, stderr := runCLI(t, "", "insert", uri, "users", `{"_id":8,"age":1}`); code != 65 || !strings.Contains(stderr, "required field `name` is missing") {
		t.Errorf("after the rollbacks, the first rules: exit %d: %s%s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "", "insert", uri, "users", bad); code != 0 {
		t.Errorf("after the rollbacks, a document the first rules take: exit %d: %s", code, stderr)
	}
	// Undo the first: no rules.
	code, out, _ := runCLI(t, "", "rollback", uri, ids[2])
	if code != 0 {
		t.Fatalf("rollback of the first define: exit %d: %s", code, out)
	}
	if code, _, stderr := runCLI(t, "", "insert", uri, "users", `{"_id":7,"age":"any"}`); code != 0 {
		t.Errorf("without rules: exit %d: %s", code, stderr)
	}
	if _, md, _ := runCLI(t, "", "describe", uri); strings.Contains(md, "Rules:") {
		t.Errorf("describe after every define is undone:\n%s", md)
	}
}

// TestMongo_DefineFollowsCollection: define creates a missing collection
// (rollback removes it); the rules move with a renamed collection, go
// aside with a dropped one, and come back with its rollback.
func TestMongo_DefineFollowsCollection(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	code, out, stderr := runCLI(t, "", "define", uri, "events", `{"required":["at"]}`, "--json")
	if code != 0 || !strings.Contains(out, `"checked":0`) {
		t.Fatalf("define of a new collection: exit %d: %s%s", code, out, stderr)
	}
	var rep struct {
		ChangeID string `json:"change_id"`
	}
	json.Unmarshal([]byte(out), &rep)
	if _, cols, _ := runCLI(t, "", "collections", uri); cols != "events\nusers\n" {
		t.Fatalf("collections: %q", cols)
	}
	if code, _, _ := runCLI(t, "", "rollback", uri, rep.ChangeID); code != 0 {
		t.Fatalf("rollback of the define")
	}
	if _, cols, _ := runCLI(t, "", "collections", uri); cols != "users\n" {
		t.Fatalf("collections after the rollback: %q", cols)
	}
	runCLI(t, "", "define", uri, "users", `{"fields":{"age":"int"}}`)
	if code, _, stderr := runCLI(t, "", "rename", uri, "users", "people"); code != 0 {
		t.Fatalf("rename: %s", stderr)
	}
	if code, _, _ := runCLI(t, "", "insert", uri, "people", `{"_id":9,"age":"x"}`); code != 65 {
		t.Errorf("the rules did not move with the renamed collection: exit %d", code)
	}
	if code, _, _ := runCLI(t, "", "insert", uri, "users", `{"_id":9,"age":"x"}`); code != 0 {
		t.Errorf("a new collection under the old name has the old rules: exit %d", code)
	}
	runCLI(t, "", "drop", uri, "users")
	code, out, stderr = runCLI(t, "", "drop", uri, "people")
	if code != 0 {
		t.Fatalf("drop: %s", stderr)
	}
	var drop struct {
		ChangeID string `json:"change_id"`
	}
	json.Unmarshal([]byte(out), &drop)
	if code, _, _ := runCLI(t, "", "insert", uri, "people", `{"_id":9,"age":"x"}`); code != 0 {
		t.Errorf("a new collection under a dropped one's name has its rules: exit %d", code)
	}
	runCLI(t, "", "drop", uri, "people")
	if code, out, stderr := runCLI(t, "", "rollback", uri, drop.ChangeID); code != 0 {
		t.Fatalf("rollback of the drop: %s%s", out, stderr)
	}
	if code, _, _ := runCLI(t, "", "insert", uri, "people", `{"_id":10,"age":"x"}`); code != 65 {
		t.Errorf("the rules did not come back with the dropped collection: exit %d", code)
	}
}

// TestMongo_CreateFromSpec: create --from over MongoDB creates the
// collections of a spec with their rules (enforced by omgdb) and indexes,
// and refuses a spec naming an existing collection, writing nothing;
// define --from applies a spec to existing collections.
func TestMongo_CreateFromSpec(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	spec := filepath.Join(t.TempDir(), "spec.json")
	writeFile(t, spec, `{"collections":{"orders":{"required":["total"],"fields":{"total":"number"},"indexes":["customer",{"fields":"at:-1","unique":true,"name":"by_at"}]},"items":{"fields":{"sku":"string"}}}}`)
	code, out, stderr := runCLI(t, "", "create", uri, "--from", spec)
	if code != 0 || !strings.HasPrefix(out, "created store at ") || !strings.HasSuffix(out, "/app (2 collection(s) defined)\n") ||
		strings.Count(stderr, "note: ") != 2 {
		t.Fatalf("create --from: exit %d: %q %q", code, out, stderr)
	}
	if _, ix, _ := runCLI(t, "", "indexes", uri, "orders"); !strings.Contains(ix, `"name":"customer_1"`) || !strings.Contains(ix, `"name":"by_at","kind":"btree","key":{"at":-1},"unique":true`) {
		t.Errorf("indexes of orders: %s", ix)
	}
	if code, _, stderr := runCLI(t, "", "insert", uri, "orders", `{"_id":1,"total":"12"}`); code != 65 || !strings.Contains(stderr, "field `total` must be number, got string") {
		t.Errorf("insert breaking the spec's rules: exit %d: %s", code, stderr)
	}
	if code, _, _ := runCLI(t, "", "insert", uri, "orders", `{"_id":1,"total":12.5}`); code != 0 {
		t.Errorf("insert following the spec's rules: exit %d", code)
	}
	writeFile(t, spec, `{"collections":{"new":{},"users":{"required":["name"]}}}`)
	code, _, stderr = runCLI(t, "", "create", uri, "--from", spec)
	if code != 69 || !strings.Contains(stderr, "collection `users` already exists") {
		t.Errorf("create --from over an existing collection: exit %d: %s", code, stderr)
	}
	if _, cols, _ := runCLI(t, "", "collections", uri); strings.Contains(cols, "new") {
		t.Errorf("a refused create --from created a collection: %s", cols)
	}
	code, out, _ = runCLI(t, "", "define", uri, "--from", spec, "--json")
	if code != 0 || !strings.Contains(out, `"collection":"users","rules":{"required":["name"]},"checked":4,"violations":0`) {
		t.Errorf("define --from: exit %d: %s", code, out)
	}
}

// TestMongo_DefineRefusals: what define and create cannot do over
// MongoDB is refused before anything is written, with the exit code of
// the file's error for the same mistake.
func TestMongo_DefineRefusals(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"define", uri, "users", `{"collation":{"locale":"fr"}}`}, 64, "rules with a `collation` are not supported over MongoDB"},
		{[]string{"define", uri, "users", `{"fields":{"age":"integer"}}`}, 65, "unknown type name `integer`"},
		{[]string{"define", uri, "users", `{"required":"name"}`}, 65, "required must be a list of field names"},
		{[]string{"define", uri, "omgdb.changes", `{}`}, 65, "omgdb."},
		{[]string{"create", uri}, 64, "needs --from"},
		{[]string{"define", uri, "a$b", `{"required":["x"]}`}, 65, `invalid collection name "a$b"`},
	}
	for _, c := range cases {
		code, out, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) || (c.code == 64 && !strings.Contains(stderr, "hint: ")) {
			t.Errorf("%v: exit %d, want %d with %q: %s%s", c.args[:3], code, c.code, c.msg, out, stderr)
		}
	}
	// The file gives the same errors for the same rules.
	for _, c := range cases[1:3] {
		_, _, fe := runCLI(t, "", "define", file, "users", c.args[3])
		_, _, me := runCLI(t, "", c.args...)
		if firstLine(fe) != firstLine(me) {
			t.Errorf("define %s: file %q, MongoDB %q", c.args[3], fe, me)
		}
	}
	if _, hist, _ := runCLI(t, "", "history", uri); hist != "" {
		t.Errorf("refused defines were journaled: %s", hist)
	}
}

// TestMongo_CopyCarriesDefinedRules: rules defined over MongoDB travel
// with omgdb copy back to a store file (and a file's rules, copied in,
// are enforced there by omgdb).
func TestMongo_CopyCarriesDefinedRules(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	runCLI(t, "", "define", file, "users", `{"required":["name"]}`)
	target := strings.TrimSuffix(uri, "app") + "copied"
	if code, _, stderr := runCLI(t, "", "copy", file, target); code != 0 {
		t.Fatalf("copy into MongoDB: %s", stderr)
	}
	if code, _, stderr := runCLI(t, "", "insert", target, "users", `{"_id":9}`); code != 65 || !strings.Contains(stderr, "required field `name` is missing") {
		t.Errorf("copied rules not enforced: exit %d: %s", code, stderr)
	}
	rules := `{"required":["name"],"fields":{"age":{"type":"long","min":0},"tags":"array"}}`
	if code, _, stderr := runCLI(t, "", "define", uri, "users", rules); code != 0 {
		t.Fatalf("define: %s", stderr)
	}
	back := filepath.Join(t.TempDir(), "back.omgdb")
	if code, _, stderr := runCLI(t, "", "copy", uri, back); code != 0 {
		t.Fatalf("copy back: %s", stderr)
	}
	_, info, _ := runCLI(t, "", "inspect", back, "--json")
	if !strings.Contains(info, `"rules":`+rules) {
		t.Errorf("the copy back has not the defined rules: %s", info)
	}
	if code, _, _ := runCLI(t, "", "insert", back, "users", `{"_id":9,"name":"z","tags":"x"}`); code != 65 {
		t.Errorf("the file does not enforce the copied rules: exit %d", code)
	}
	if f, m := dump(t, back), dump(t, uri); f != m {
		t.Errorf("copy back: file %s, MongoDB %s", f, m)
	}
}

// TestMongo_DefineShellWrites: the shell's writes over MongoDB refuse a
// document that breaks the rules with the store file's error and exit
// code, and write nothing.
func TestMongo_DefineShellWrites(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	both(t, file, uri, 0, "define", "STORE", "users", defineRules)
	for _, js := range []string{
		`db.users.insertOne({_id: 9, name: "z", age: "x"})`,
		`db.users.insertMany([{_id: 9, name: "z"}, {_id: 10, age: NumberLong(1)}])`,
		`db.users.updateOne({_id: 1}, {$set: {n: NumberLong(5)}})`,
		`db.users.updateMany({}, {$set: {tags: 1.5}})`,
		`db.users.replaceOne({_id: 2}, {age: 3})`,
		`db.users.findOneAndUpdate({_id: 1}, {$unset: {name: ""}})`,
		`db.users.bulkWrite([{insertOne: {document: {_id: 9, name: "z"}}}, {insertOne: {document: {_id: 10, city: "Rome", name: "y"}}}])`,
		`db.users.aggregate([{$match: {_id: 1}}, {$addFields: {age: "x"}}, {$merge: {into: "users"}}])`,
	} {
		var outs [2]string
		for i, s := range []string{file, uri} {
			code, out, stderr := runCLI(t, "", "shell", s, "--eval", js)
			if code != 65 || !strings.Contains(out+stderr, "breaks the rules of collection `users`") {
				t.Errorf("%s on %s: exit %d: %s%s", js, s, code, out, stderr)
			}
			outs[i] = out + stderr
		}
		if !strings.HasPrefix(js, "db.users.bulkWrite") && !strings.HasPrefix(js, "db.users.aggregate") && outs[0] != outs[1] {
			t.Errorf("%s: file %q, MongoDB %q", js, outs[0], outs[1])
		}
	}
	if f, m := dump(t, file), dump(t, uri); f != m {
		t.Errorf("after refused shell writes: file %s, MongoDB %s", f, m)
	}
}

// TestMongo_DefineClear: {} removes the rules, as on a file (no note: no
// rules are left to check), and writes are then free.
func TestMongo_DefineClear(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	both(t, file, uri, 0, "define", "STORE", "users", `{"required":["zip"]}`)
	fout, mout := both(t, file, uri, 0, "define", "STORE", "users", `{}`)
	if fout != mout || fout != "removed the rules of `users`\n" {
		t.Errorf("define {}: file %q, MongoDB %q", fout, mout)
	}
	onBoth(t, file, uri, "", 0, "insert", "STORE", "users", `{"_id":9}`)
	if _, info, _ := runCLI(t, "", "inspect", uri, "--json"); strings.Contains(info, `"rules"`) {
		t.Errorf("inspect after the rules were removed: %s", info)
	}
}
