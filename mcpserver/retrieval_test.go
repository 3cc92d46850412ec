package mcpserver

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/store"
	"github.com/omgdb/omgdb/vector"
)

// kbStore creates kb.omgdb: notes with a vector index on body and a search
// index on title and body; vault with a vector index on secret and a
// search index on secret and body; users with a B-tree index on ssn.
func (f *fixture) kbStore() string {
	f.t.Helper()
	path := filepath.Join(f.root, "kb.omgdb")
	makeStore(f.t, path, map[string][]string{
		"notes": {
			`{"_id":1,"title":"Backups","body":"Nightly backup policy for the database servers.","secret":"zebracode alpha","tag":"ops"}`,
			`{"_id":2,"title":"Pasta","body":"Cooking pasta: boil water, add salt.","secret":"zebracode beta","tag":"food"}`,
			`{"_id":3,"title":"Tapes","body":"Tape backup rotation schedule, weekly.","tag":"ops"}`,
		},
		"vault": {
			`{"_id":1,"body":"first entry","secret":"zebracode gamma"}`,
		},
		"users": {
			`{"_id":1,"name":"ada","ssn":"111-11-1111"}`,
			`{"_id":2,"name":"bob","ssn":"222-22-2222"}`,
		},
	})
	f.createIndexes(path, map[string][]store.IndexDef{
		"notes": {vector.NewVectorIndexDef("vec", "body", 64), vector.NewSearchIndexDef("text", []string{"title", "body"}, "en")},
		"vault": {vector.NewVectorIndexDef("vsecret", "secret", 64), vector.NewSearchIndexDef("text", []string{"secret", "body"}, "en")},
		"users": {store.BTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "ssn"}}})},
	})
	return path
}

// createIndexes creates indexes in the store at path, per collection.
func (f *fixture) createIndexes(path string, defs map[string][]store.IndexDef) {
	f.t.Helper()
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		f.t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(store.Change{Kind: "create_index"}, func(tx *store.Tx) error {
		for coll, list := range defs {
			c, err := tx.Collection(coll)
			if err != nil {
				return err
			}
			for _, def := range list {
				if _, err := c.CreateIndex(def); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// call calls a tool and fails unless its error code is want ("" for a
// success); it returns the structuredContent and the whole result as text.
func (f *fixture) expect(name, args, want string) (map[string]any, string) {
	f.t.Helper()
	res := f.callTool(name, args)
	if got := errorCode(res); got != want {
		f.t.Fatalf("%s %s: code %q, want %q: %s", name, args, got, want, resultText(res))
	}
	b, _ := json.Marshal(res)
	return structured(f.t, res), string(b)
}

func hitIDs(sc map[string]any) string {
	var ids []string
	hits, _ := sc["hits"].([]any)
	for _, h := range hits {
		b, _ := json.Marshal(h.(map[string]any)["_id"])
		ids = append(ids, string(b))
	}
	return join(ids)
}

func TestExplainTool(t *testing.T) {
	f := newFixture(t, Config{})
	f.kbStore()
	sc, text := f.expect("explain", `{"path":"kb.omgdb","collection":"users","filter":{"ssn":"111-11-1111"},"sort":{"name":1}}`, "")
	if !strings.Contains(text, "IXSCAN") || !strings.Contains(text, "ssn_1") {
		t.Errorf("explain does not use the ssn index: %s", text)
	}
	if _, ok := sc["plan"].(map[string]any)["winningPlan"]; !ok {
		t.Errorf("no winningPlan: %v", sc)
	}
	f.expect("explain", `{"path":"kb.omgdb","collection":"users","sort":{"name":"up"}}`, CodeInvalidArgument)
	f.expect("explain", `{"path":"kb.omgdb","collection":"users","filter":{"$bogus":1}}`, CodeInvalidFilter)
	f.expect("explain", `{"path":"kb.omgdb","collection":"nope"}`, CodeNotFound)
}

func TestDiagnoseTool(t *testing.T) {
	f := newFixture(t, Config{})
	f.standardStore()
	sc, _ := f.expect("diagnose", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris","nam":"ada"}}`, "")
	if v, _ := sc["verdict"].(string); !strings.Contains(v, "did you mean `name`") {
		t.Errorf("verdict %q", v)
	}
	if p, _ := sc["predicates"].([]any); len(p) != 2 {
		t.Errorf("predicates %v", sc["predicates"])
	}
	sc, _ = f.expect("diagnose", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"}}`, "")
	if sc["matches"] != 2.0 {
		t.Errorf("matches %v", sc["matches"])
	}
	f.expect("diagnose", `{"path":"app.omgdb","collection":"users","filter":{"$bogus":1}}`, CodeInvalidFilter)
	f.expect("diagnose", `{"path":"app.omgdb","filter":{}}`, CodeInvalidArgument)
}

func TestSearchTools(t *testing.T) {
	f := newFixture(t, Config{})
	f.kbStore()
	sc, text := f.expect("vsearch", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup policy","k":2}`, "")
	if ids := hitIDs(sc); !strings.HasPrefix(ids, "1") || sc["index"] != "vec" {
		t.Errorf("vsearch hits %s index %v", ids, sc["index"])
	}
	if !strings.Contains(text, "Untrusted documents of `notes`") {
		t.Errorf("vsearch result not fenced: %s", text)
	}
	sc, _ = f.expect("vsearch", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup","filter":{"tag":"food"}}`, "")
	if ids := hitIDs(sc); strings.Contains(ids, "1") || strings.Contains(ids, "3") {
		t.Errorf("vsearch filter ignored: %s", ids)
	}
	f.expect("vsearch", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"x","k":0}`, CodeInvalidArgument)
	f.expect("vsearch", `{"path":"kb.omgdb","collection":"notes","query":"x"}`, CodeInvalidArgument)

	sc, _ = f.expect("search", `{"path":"kb.omgdb","collection":"notes","query":"backup -tape"}`, "")
	if ids := hitIDs(sc); ids != "1" {
		t.Errorf("search hits %s, want 1", ids)
	}
	f.expect("search", `{"path":"kb.omgdb","collection":"notes","query":"x","k":"ten"}`, CodeInvalidArgument)
	f.expect("search", `{"path":"kb.omgdb","collection":"nope","query":"x"}`, CodeNotFound)

	sc, text = f.expect("context_pack", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup schedule","budget":100}`, "")
	if chunks, _ := sc["chunks"].([]any); len(chunks) == 0 || sc["used_tokens"].(float64) > 100 {
		t.Errorf("context_pack: %v", sc)
	}
	if !strings.Contains(text, "Untrusted text of `notes.body`") {
		t.Errorf("context_pack result not fenced: %s", text)
	}
	f.expect("context_pack", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"x","budget":0}`, CodeInvalidArgument)
	f.expect("context_pack", `{"path":"kb.omgdb","collection":"notes","field":"body"}`, CodeInvalidArgument)
}

// TestIndexTools: create_index at read-write scope, drop_index at
// dangerous scope only; neither is listed or callable at read scope.
func TestIndexTools(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite})
	f.standardStore()
	sc, _ := f.expect("create_index", `{"path":"app.omgdb","collection":"users","fields":"city,age:-1"}`, "")
	if sc["name"] != "city_1_age_-1" || sc["change_id"] == "" {
		t.Errorf("create_index: %v", sc)
	}
	f.expect("create_index", `{"path":"app.omgdb","collection":"users","fields":"city,age:-1"}`, CodeConflict)
	f.expect("create_index", `{"path":"app.omgdb","collection":"users","fields":"age:2"}`, CodeInvalidArgument)
	f.expect("create_index", `{"path":"app.omgdb","collection":"users"}`, CodeInvalidArgument)
	_, text := f.expect("explain", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"}}`, "")
	if !strings.Contains(text, "city_1_age_-1") {
		t.Errorf("explain does not see the new index: %s", text)
	}
	f.expect("drop_index", `{"path":"app.omgdb","collection":"users","name":"city_1_age_-1"}`, CodeScopeDenied)

	d := newFixture(t, Config{Root: f.root, Scope: ScopeDangerous})
	sc, _ = d.expect("drop_index", `{"path":"app.omgdb","collection":"users","name":"city,age:-1"}`, "")
	if sc["dropped"] != "city_1_age_-1" {
		t.Errorf("drop_index: %v", sc)
	}
	d.expect("drop_index", `{"path":"app.omgdb","collection":"users","name":"city_1_age_-1"}`, CodeNotFound)
	if tl := d.srv.known["drop_index"]; !tl.Destructive || tl.ReadOnly {
		t.Errorf("drop_index annotations: %+v", tl)
	}

	r := newFixture(t, Config{Root: f.root})
	for _, name := range []string{"create_index", "drop_index"} {
		if contains(r.srv.listedNames(), name) {
			t.Errorf("read scope lists %s", name)
		}
		r.expect(name, `{"path":"app.omgdb","collection":"users","fields":"age","name":"age_1"}`, CodeScopeDenied)
	}
}

// TestRetrieval_Redaction: redacted fields cannot be searched, packed,
// indexed or probed through a filter, diagnose or explain, and never
// appear in results.
func TestRetrieval_Redaction(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, Redact: []string{"notes.secret", "vault.secret", "users.ssn"}})
	f.kbStore()
	secrets := []string{"zebracode", "alpha", "beta", "gamma", "111-11", "222-22"}
	leak := func(what, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the redacted value %s: %s", what, s, text)
			}
		}
	}
	// Searching or packing a redacted field is refused.
	f.expect("vsearch", `{"path":"kb.omgdb","collection":"vault","field":"secret","query":"zebracode"}`, CodePolicyDenied)
	f.expect("vsearch", `{"path":"kb.omgdb","collection":"notes","field":"secret","query":"zebracode"}`, CodePolicyDenied)
	f.expect("context_pack", `{"path":"kb.omgdb","collection":"notes","field":"secret","query":"zebracode"}`, CodePolicyDenied)
	_, text := f.expect("search", `{"path":"kb.omgdb","collection":"vault","query":"zebracode"}`, CodePolicyDenied)
	if !strings.Contains(text, "redacted") {
		t.Errorf("search over a redacted index: %s", text)
	}
	f.expect("create_index", `{"path":"kb.omgdb","collection":"users","fields":"name,ssn","unique":true}`, CodePolicyDenied)

	// Results are redacted, and filters cannot see redacted values.
	for _, call := range [][2]string{
		{"vsearch", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup","filter":{"secret":"zebracode alpha"}}`},
		{"vsearch", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup","filter":{"secret":{"$exists":true}}}`},
		{"search", `{"path":"kb.omgdb","collection":"notes","query":"backup","filter":{"secret":{"$regex":"^zebra"}}}`},
		{"context_pack", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup","filter":{"secret":"zebracode alpha"}}`},
	} {
		sc, text := f.expect(call[0], call[1], "")
		if hits, _ := sc["hits"].([]any); len(hits) > 0 {
			t.Errorf("%s %s: a filter reached a redacted value: %s", call[0], call[1], text)
		}
		if chunks, _ := sc["chunks"].([]any); len(chunks) > 0 {
			t.Errorf("%s %s: a filter reached a redacted value: %s", call[0], call[1], text)
		}
	}
	for _, call := range [][2]string{
		{"vsearch", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup zebracode"}`},
		{"search", `{"path":"kb.omgdb","collection":"notes","query":"backup OR pasta"}`},
		{"context_pack", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup rotation"}`},
	} {
		sc, text := f.expect(call[0], call[1], "")
		leak(call[0], text)
		if sc["redacted"] == nil {
			t.Errorf("%s does not say which fields are redacted: %v", call[0], sc)
		}
		if hits, _ := sc["hits"].([]any); call[0] != "context_pack" && len(hits) == 0 {
			t.Errorf("%s found nothing: %s", call[0], text)
		}
	}
	sc, _ := f.expect("search", `{"path":"kb.omgdb","collection":"notes","query":"zebracode"}`, "")
	if hits, _ := sc["hits"].([]any); len(hits) > 0 {
		t.Errorf("search found a word of a redacted field: %v", sc)
	}

	// diagnose and explain cannot count or suggest redacted values.
	for _, filter := range []string{`{"ssn":"111-11-1111"}`, `{"ssn":"111-11-111"}`, `{"ssn":{"$regex":"^111"}}`, `{"ssN":"111-11-1111"}`, `{"name":"ada","ssn":111111111}`} {
		sc, text := f.expect("diagnose", `{"path":"kb.omgdb","collection":"users","filter":`+filter+`}`, "")
		if sc["matches"] != 0.0 {
			t.Errorf("diagnose %s: matches %v", filter, sc["matches"])
		}
		// The filter is echoed; no other stored value may appear.
		for _, secret := range []string{"222-22", "111-11-1111"} {
			if !strings.Contains(filter, secret) && strings.Contains(text, secret) {
				t.Errorf("diagnose %s shows the redacted value %s: %s", filter, secret, text)
			}
		}
		sc, text = f.expect("explain", `{"path":"kb.omgdb","collection":"users","filter":`+filter+`,"sort":{"ssn":1}}`, "")
		if strings.Contains(text, "IXSCAN") || strings.Contains(text, "estimatedKeys") || strings.Contains(text, "ssn_1") {
			t.Errorf("explain %s under redaction shows index estimates: %s", filter, text)
		}
		if !strings.Contains(text, "COLLSCAN") || sc["redacted"] == nil {
			t.Errorf("explain %s: %s", filter, text)
		}
	}
}

// TestRedaction_WriteErrorsHideKeys: a unique index on a redacted field
// (created by the operator) must not let insert reveal the values it
// holds through the duplicate-key message.
func TestRedaction_WriteErrorsHideKeys(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, Redact: []string{"users.ssn"}})
	path := filepath.Join(f.root, "u.omgdb")
	makeStore(t, path, map[string][]string{"users": {`{"_id":1,"name":"ada","ssn":"111-11-1111"}`}})
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		_, err := c.CreateIndex(store.BTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "ssn"}}, Unique: true}))
		return err
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Whether the insert met a duplicate key would tell whether the value
	// is taken: a redacted field under a unique index is refused, taken
	// or not.
	for _, ssn := range []string{"111-11-1111", "999-99-9999"} {
		_, text := f.expect("insert", `{"path":"u.omgdb","collection":"users","document":{"name":"eve","ssn":"`+ssn+`"}}`, CodePolicyDenied)
		if strings.Contains(text, "111-11") || strings.Contains(text, `"_id":1`) {
			t.Errorf("the refusal shows a redacted value: %s", text)
		}
	}
	f.expect("insert", `{"path":"u.omgdb","collection":"users","document":{"name":"eve"}}`, "")
	var text string
	// Without redaction the message names the key, as the CLI's does.
	g := newFixture(t, Config{Scope: ScopeReadWrite, Root: f.root})
	_, text = g.expect("insert", `{"path":"u.omgdb","collection":"users","document":{"name":"eve","ssn":"111-11-1111"}}`, CodeConflict)
	if !strings.Contains(text, "111-11-1111") {
		t.Errorf("without redaction the key should be named: %s", text)
	}
}
