package mcpserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// collationStore makes app.omgdb with collection s of strings that
// differ by case and accents, and collection d whose rules set a default
// collation (en, strength 2).
func (f *fixture) collationStore() string {
	path := filepath.Join(f.root, "app.omgdb")
	docs := []string{`{"_id":1,"s":"foo"}`, `{"_id":2,"s":"FOO"}`, `{"_id":3,"s":"bar"}`, `{"_id":4,"s":"Bär"}`}
	makeStore(f.t, path, map[string][]string{"s": docs, "d": docs})
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		f.t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(store.Change{Kind: "define"}, func(tx *store.Tx) error {
		c, err := tx.Collection("d")
		if err != nil {
			return err
		}
		_, err = c.Define(value.MustParse(`{"collation":{"locale":"en","strength":2}}`))
		return err
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return path
}

// TestCollation_Tools: find, count, distinct, aggregate and plan_delete
// take a collation argument; without one, a collection's default
// collation applies; {"locale":"simple"} overrides it; a bad collation is
// an INVALID_ARGUMENT that names the argument.
func TestCollation_Tools(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite})
	f.collationStore()
	s2 := `"collation":{"locale":"en","strength":2}`
	s1 := `"collation":{"locale":"en","strength":1}`
	cases := []struct{ tool, args, key, want string }{
		{"find", `"collection":"s","filter":{"s":"FOO"}`, "ids", "2"},
		{"find", `"collection":"s","filter":{"s":"FOO"},` + s2, "ids", "1,2"},
		{"find", `"collection":"s","filter":{},"sort":{"s":1},` + s1, "ids", "3,4,1,2"},
		{"find", `"collection":"d","filter":{"s":"FOO"}`, "ids", "1,2"},
		{"find", `"collection":"d","filter":{"s":"FOO"},"collation":{"locale":"simple"}`, "ids", "2"},
		{"count", `"collection":"s","filter":{"s":"BAR"},` + s1, "count", "2"},
		{"count", `"collection":"d","filter":{"s":"bär"}`, "count", "1"},
		{"distinct", `"collection":"s","field":"s",` + s2, "distinct", "3"},
		{"distinct", `"collection":"d","field":"s"`, "distinct", "3"},
		{"aggregate", `"collection":"s","pipeline":[{"$group":{"_id":"$s"}}],` + s1, "returned", "2"},
		{"aggregate", `"collection":"d","pipeline":[{"$match":{"s":"FOO"}}]`, "returned", "2"},
		{"plan_delete", `"collection":"s","filter":{"s":"foo"},` + s2, "matched", "2"},
		{"plan_delete", `"collection":"d","filter":{"s":"foo"}`, "matched", "2"},
		{"plan_update", `"collection":"s","filter":{"s":"BAR"},"update":{"$set":{"x":1}},` + s1, "matched", "2"},
		{"export", `"collection":"d","filter":{"s":"FOO"}`, "documents", "2"},
		{"export", `"collection":"s","filter":{"s":"FOO"}`, "documents", "1"},
	}
	for _, c := range cases {
		sc := structured(t, f.callTool(c.tool, `{"path":"app.omgdb",`+c.args+`}`))
		var got string
		if c.key == "ids" {
			got = join(docIDs(t, sc))
		} else {
			got = fmt.Sprint(sc[c.key])
		}
		if got != c.want {
			t.Errorf("%s %s: %s = %s, want %s (%v)", c.tool, c.args, c.key, got, c.want, sc)
		}
	}
	sc := structured(t, f.callTool("create_index", `{"path":"app.omgdb","collection":"s","fields":"s",`+s2+`}`))
	if sc["name"] != "s_1" {
		t.Fatalf("create_index with a collation: %v", sc)
	}
	ex := structured(t, f.callTool("explain", `{"path":"app.omgdb","collection":"s","filter":{"s":"FOO"}}`))
	if got := fmt.Sprint(ex["plan"]); !strings.Contains(got, "its collation differs") {
		t.Errorf("explain of a simple query beside an index with a collation: %s", got)
	}
	if got := join(docIDs(t, structured(t, f.callTool("find", `{"path":"app.omgdb","collection":"s","filter":{"s":"FOO"},`+s2+`}`)))); got != "1,2" {
		t.Errorf("find through the collated index: %s", got)
	}
	// The index records its collation; on d, an index without one takes
	// the collection's default, and {"locale":"simple"} keeps binary keys.
	structured(t, f.callTool("create_index", `{"path":"app.omgdb","collection":"d","fields":"s"}`))
	structured(t, f.callTool("create_index", `{"path":"app.omgdb","collection":"d","fields":"s:-1","collation":{"locale":"simple"}}`))
	for _, c := range []struct{ coll, name, want string }{
		{"s", "s_1", `"locale":"en"`}, {"d", "s_1", `"locale":"en"`}, {"d", "s_-1", `"locale":"simple"`},
	} {
		li := structured(t, f.callTool("list_indexes", `{"path":"app.omgdb","collection":"`+c.coll+`"}`))
		found := false
		for _, ix := range li["indexes"].([]any) {
			m := ix.(map[string]any)
			if m["name"] == c.name {
				found = true
				if b, _ := json.Marshal(m); !strings.Contains(string(b), c.want) {
					got := string(b)
					t.Errorf("list_indexes %s %s: %s, want %s", c.coll, c.name, got, c.want)
				}
			}
		}
		if !found {
			t.Errorf("list_indexes %s: no %s in %v", c.coll, c.name, li)
		}
	}
	// explain shows the plan find runs: under the collation given, else
	// the collection's default.
	for _, c := range []struct{ args, want string }{
		{`"collection":"s","filter":{"s":"FOO"},` + s2, "indexName:s_1"},
		{`"collection":"s","filter":{"s":"FOO"},"collation":{"locale":"simple"}`, "stage:COLLSCAN"},
		{`"collection":"d","filter":{"s":"FOO"}`, "indexName:s_1"},
		{`"collection":"d","filter":{"s":"FOO"},"collation":{"locale":"simple"}`, "indexName:s_-1"},
		{`"collection":"d","filter":{},"sort":{"s":1}`, "collation:map[alternate:non-ignorable"},
	} {
		ex := structured(t, f.callTool("explain", `{"path":"app.omgdb",`+c.args+`}`))
		plan, _ := ex["plan"].(map[string]any)
		got := fmt.Sprint(plan["winningPlan"])
		if strings.HasPrefix(c.want, "collation:") {
			got = "collation:" + fmt.Sprint(plan["collation"])
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("explain %s: %s, want %s", c.args, got, c.want)
		}
	}
	for _, tool := range []string{"find", "count", "distinct", "aggregate", "plan_delete", "plan_update", "create_index", "explain"} {
		args := `{"path":"app.omgdb","collection":"s","field":"s","pipeline":[],"filter":{},"update":{"$set":{"x":1}},"collation":{"locale":"xx"}}`
		if tool == "create_index" {
			args = strings.Replace(args, `"field":"s",`, `"fields":"t",`, 1)
			args = strings.Replace(args, `"filter":{},`, "", 1)
		} else if tool != "distinct" {
			args = strings.Replace(args, `"field":"s",`, "", 1)
		}
		if tool != "aggregate" {
			args = strings.Replace(args, `"pipeline":[],`, "", 1)
		} else {
			args = strings.Replace(args, `"filter":{},`, "", 1)
		}
		if tool != "plan_update" {
			args = strings.Replace(args, `"update":{"$set":{"x":1}},`, "", 1)
		}
		res := f.callTool(tool, args)
		if errorCode(res) != CodeInvalidArgument || !strings.Contains(resultText(res), `collation: invalid collation: field `+"`locale`"+` is invalid: "xx"`) {
			t.Errorf("%s with a bad collation: %s %q", tool, errorCode(res), resultText(res))
		}
	}
}
