package mcpserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/store"
)

// indexOn creates a B-tree index on field of coll in the store at path.
func indexOn(t *testing.T, path, coll, field string) {
	t.Helper()
	indexWith(t, path, coll, store.BTreeSpec{Fields: []store.IndexField{{Path: field}}})
}

// indexWith creates a B-tree index of coll in the store at path.
func indexWith(t *testing.T, path, coll string, spec store.BTreeSpec) {
	t.Helper()
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(store.Change{Kind: "create_index"}, func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		_, err = c.CreateBTreeIndex("", spec)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIndexCheck: with --index-check, reads whose plan scans the whole
// collection are refused, naming the index that would serve; reads
// through an index, and a count without a filter, run.
func TestIndexCheck(t *testing.T) {
	f := newFixture(t, Config{IndexCheck: true})
	indexOn(t, f.standardStore(), "users", "city")
	refused := []struct{ tool, args, hint string }{
		{"find", `{"path":"app.omgdb","collection":"users","filter":{"name":"ada"}}`, `{"name":1}`},
		{"find", `{"path":"app.omgdb","collection":"users"}`, ""},
		{"count", `{"path":"app.omgdb","collection":"users","filter":{"name":"ada"}}`, `{"name":1}`},
		{"aggregate", `{"path":"app.omgdb","collection":"users","pipeline":[{"$group":{"_id":"$city"}}]}`, ""},
		{"distinct", `{"path":"app.omgdb","collection":"users","field":"name","filter":{"name":"ada"}}`, `{"name":1}`},
	}
	for _, tc := range refused {
		res := f.callTool(tc.tool, tc.args)
		sc := structured(t, res)
		if errorCode(res) != CodePolicyDenied || !strings.Contains(sc["message"].(string), "COLLSCAN") ||
			!strings.Contains(sc["remediation_hint"].(string), tc.hint) {
			t.Errorf("%s %s under --index-check: %v", tc.tool, tc.args, sc)
		}
	}
	allowed := []struct{ tool, args string }{
		{"find", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"}}`},
		{"count", `{"path":"app.omgdb","collection":"users"}`},
		{"count", `{"path":"app.omgdb","collection":"users","filter":{"city":"Lyon"}}`},
		{"aggregate", `{"path":"app.omgdb","collection":"users","pipeline":[{"$match":{"city":"Paris"}},{"$count":"n"}]}`},
		{"distinct", `{"path":"app.omgdb","collection":"users","field":"name","filter":{"city":"Paris"}}`},
		{"explain", `{"path":"app.omgdb","collection":"users","filter":{"name":"ada"}}`},
	}
	for _, tc := range allowed {
		if res := f.callTool(tc.tool, tc.args); errorCode(res) != "" {
			t.Errorf("%s %s under --index-check: %v", tc.tool, tc.args, structured(t, res))
		}
	}
	// without the flag the same read runs
	g := newFixture(t, Config{})
	g.standardStore()
	if res := g.callTool("find", refused[0].args); errorCode(res) != "" {
		t.Errorf("find without --index-check: %v", structured(t, res))
	}
}

// TestParity_Redaction: distinct sees documents redacted, stats and
// list_indexes leave out what an index on a redacted field would count,
// and suggest_indexes, whose estimates read every field, is refused.
func TestParity_Redaction(t *testing.T) {
	f := newFixture(t, Config{Redact: []string{"users.ssn"}})
	indexOn(t, f.standardStore(), "users", "ssn")
	sc := structured(t, f.callTool("distinct", `{"path":"app.omgdb","collection":"users","field":"ssn"}`))
	if b, _ := json.Marshal(sc["values"]); string(b) != "[]" {
		t.Errorf("distinct of a redacted field: %v", sc)
	}
	sc = structured(t, f.callTool("distinct", `{"path":"app.omgdb","collection":"users","field":"city","filter":{"ssn":"111-11-1111"}}`))
	if b, _ := json.Marshal(sc["values"]); string(b) != "[]" {
		t.Errorf("distinct filtered on a redacted field: %v", sc)
	}
	res := f.callTool("list_indexes", `{"path":"app.omgdb","collection":"users"}`)
	if text := resultText(res); strings.Contains(text, "entries") || !strings.Contains(text, "ssn_1") {
		t.Errorf("list_indexes shows the entries of an index on a redacted field: %s", text)
	}
	if res := f.callTool("suggest_indexes", `{"path":"app.omgdb","collection":"users","filter":{"ssn":"1"}}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("suggest_indexes on a redacted collection: %v", structured(t, res))
	}
	for _, args := range []string{`{"path":"app.omgdb","collection":"users","verbosity":"executionStats","filter":{"ssn":"111-11-1111"}}`} {
		text := resultText(f.callTool("explain", args))
		if !strings.Contains(text, `"nReturned":0`) || !strings.Contains(text, "COLLSCAN") {
			t.Errorf("explain executionStats on a redacted field: %s", text)
		}
	}
}

// TestStats_DeniedCollections: a denied collection is absent from every
// total, and the file size, which counts it, is not given.
func TestStats_DeniedCollections(t *testing.T) {
	f := newFixture(t, Config{DenyCollections: []string{"orders"}})
	f.standardStore()
	sc := structured(t, f.callTool("stats", `{"path":"app.omgdb"}`))
	if sc["documents"] != 3.0 || sc["file_bytes"] != nil || len(sc["collections"].([]any)) != 1 {
		t.Errorf("stats with orders denied: %v", sc)
	}
	if res := f.callTool("stats", `{"path":"app.omgdb","collection":"orders"}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("stats of a denied collection: %v", structured(t, res))
	}
	if res := f.callTool("list_indexes", `{"path":"app.omgdb","collection":"orders"}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("list_indexes of a denied collection: %v", structured(t, res))
	}
	g := newFixture(t, Config{})
	g.standardStore()
	if sc := structured(t, g.callTool("stats", `{"path":"app.omgdb"}`)); sc["documents"] != 4.0 || sc["file_bytes"].(float64) <= 0 {
		t.Errorf("stats: %v", sc)
	}
}

// TestInsertMany_Bounds: more than maxInsertMany documents, a denied
// collection, and a document that sets a redacted field under a unique
// index (a duplicate key would reveal other documents' values: as insert)
// are refused, writing nothing and showing no value.
func TestInsertMany_Bounds(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, Redact: []string{"users.ssn"}, DenyCollections: []string{"orders"}})
	f.standardStore()
	docs := make([]string, maxInsertMany+1)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"_id":%d}`, 100+i)
	}
	res := f.callTool("insert_many", `{"path":"app.omgdb","collection":"users","documents":[`+strings.Join(docs, ",")+`]}`)
	if errorCode(res) != CodeInvalidArgument || !strings.Contains(resultText(res), "give 1 to 1000") {
		t.Errorf("insert_many of %d documents: %v", len(docs), structured(t, res))
	}
	for _, coll := range []string{"orders", "$x"} {
		if res := f.callTool("insert_many", `{"path":"app.omgdb","collection":"`+coll+`","documents":[{}]}`); errorCode(res) == "" {
			t.Errorf("insert_many into %s: %v", coll, structured(t, res))
		}
		if res := f.callTool("create_collection", `{"path":"app.omgdb","collection":"`+coll+`"}`); errorCode(res) == "" {
			t.Errorf("create_collection %s: %v", coll, structured(t, res))
		}
	}
	indexWith(t, filepath.Join(f.root, "app.omgdb"), "users", store.BTreeSpec{Fields: []store.IndexField{{Path: "ssn"}}, Unique: true, Sparse: true})
	res = f.callTool("insert_many", `{"path":"app.omgdb","collection":"users","documents":[{"_id":50},{"_id":51,"ssn":"111-11-1111"}]}`)
	if errorCode(res) != CodePolicyDenied || strings.Contains(resultText(res), "111-11") {
		t.Errorf("a redacted field under a unique index: %v", structured(t, res))
	}
	if sc := structured(t, f.callTool("count", `{"path":"app.omgdb","collection":"users"}`)); sc["count"] != 3.0 {
		t.Errorf("a refused insert_many wrote: count %v", sc["count"])
	}
}

// TestRenameCollection: documents and indexes move in one change that
// rollback undoes; a rename between names the policy redacts or shows
// differently is refused, so that no rename uncovers a redacted field.
func TestRenameCollection(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, Redact: []string{"users.ssn", "people.ssn"}, DenyCollections: []string{"orders"}})
	indexOn(t, f.standardStore(), "users", "city")
	sc := structured(t, f.callTool("rename_collection", `{"path":"app.omgdb","collection":"users","to":"people"}`))
	if sc["documents"] != 3.0 || sc["indexes"] != 1.0 || sc["renamed_to"] != "people" {
		t.Fatalf("rename users to people: %v", sc)
	}
	if text := resultText(f.callTool("find", `{"path":"app.omgdb","collection":"people"}`)); strings.Contains(text, "111-11") || !strings.Contains(text, "ada") {
		t.Errorf("people after the rename: %s", text)
	}
	if text := resultText(f.callTool("list_indexes", `{"path":"app.omgdb","collection":"people"}`)); !strings.Contains(text, "city_1") {
		t.Errorf("the index did not move: %s", text)
	}
	f.callTool("rollback", `{"path":"app.omgdb","change_id":"`+sc["change_id"].(string)+`"}`)
	if sc := structured(t, f.callTool("count", `{"path":"app.omgdb","collection":"users"}`)); sc["count"] != 3.0 {
		t.Errorf("users after rolling the rename back: %v", sc)
	}
	for _, c := range []struct{ args, code string }{
		{`{"path":"app.omgdb","collection":"users","to":"clients"}`, CodePolicyDenied}, // clients shows ssn
		{`{"path":"app.omgdb","collection":"orders","to":"sales"}`, CodePolicyDenied},  // a denied source
		{`{"path":"app.omgdb","collection":"users","to":"orders"}`, CodePolicyDenied},  // a denied target
		{`{"path":"app.omgdb","collection":"users","to":"users"}`, CodeInvalidArgument},
	} {
		if res := f.callTool("rename_collection", c.args); errorCode(res) != c.code {
			t.Errorf("rename_collection %s: %v, want %s", c.args, structured(t, res), c.code)
		}
	}
	if sc := structured(t, f.callTool("count", `{"path":"app.omgdb","collection":"users"}`)); sc["count"] != 3.0 {
		t.Errorf("a refused rename wrote: %v", sc)
	}
}
