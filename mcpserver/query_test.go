package mcpserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedaction_Probes: with the full query language, no filter
// operator, sort, projection or pipeline stage can observe a redacted
// value.
func TestRedaction_Probes(t *testing.T) {
	f := newFixture(t, Config{Redact: []string{"users.ssn", "users.card.number"}})
	makeStore(t, filepath.Join(f.root, "app.omgdb"), map[string][]string{
		"users": {
			`{"_id":1,"name":"ada","ssn":"111-11-1111","card":{"number":"4111","exp":"01/30"}}`,
			`{"_id":2,"name":"bob","ssn":"999-99-9999","card":{"number":"5500","exp":"02/31"}}`,
		},
		"orders": {`{"_id":10,"user":1}`},
	})
	for _, filter := range []string{
		`{"ssn":{"$regex":"^1"}}`, `{"ssn":{"$gt":""}}`, `{"ssn":{"$exists":true}}`, `{"ssn":{"$type":"string"}}`,
		`{"ssn":{"$in":["111-11-1111"]}}`, `{"$expr":{"$gt":[{"$strLenCP":{"$ifNull":["$ssn",""]}},0]}}`,
		`{"card.number":{"$regex":"^4"}}`, `{"card":{"$elemMatch":{"number":"4111"}}}`, `{"card.number":{"$ne":null}}`,
		`{"$or":[{"ssn":"111-11-1111"},{"card.number":"4111"}]}`, `{"$where":"this.ssn"}`,
	} {
		res := f.callTool("count", `{"path":"app.omgdb","collection":"users","filter":`+filter+`}`)
		if n := structured(t, res)["count"]; errorCode(res) == "" && n != 0.0 {
			t.Errorf("count %s = %v: the filter saw a redacted value", filter, n)
		}
	}
	secrets := []string{"111-11-1111", "999-99-9999", "4111", "5500"}
	for _, tc := range []struct{ tool, args string }{
		{"find", `"sort":{"ssn":-1},"project":{"ssn":1,"card":1}`},
		{"find", `"project":{"s":"$ssn","n":"$card.number"}`},
		{"aggregate", `"pipeline":[{"$project":{"s":"$ssn","len":{"$strLenCP":{"$ifNull":["$ssn",""]}}}}]`},
		{"aggregate", `"pipeline":[{"$group":{"_id":"$ssn","n":{"$sum":1}}}]`},
		{"aggregate", `"pipeline":[{"$match":{"ssn":{"$regex":"^1"}}}]`},
		{"aggregate", `"pipeline":[{"$replaceRoot":{"newRoot":{"$mergeObjects":["$card",{"x":"$ssn"}]}}}]`},
	} {
		res := f.callTool(tc.tool, `{"path":"app.omgdb","collection":"users",`+tc.args+`}`)
		b, _ := json.Marshal(res)
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%s %s reveals %s: %s", tc.tool, tc.args, s, b)
			}
		}
		if errorCode(res) != "" {
			t.Errorf("%s %s: %s", tc.tool, tc.args, resultText(res))
		}
	}
	// $lookup reads other collections redacted too.
	res := f.callTool("aggregate", `{"path":"app.omgdb","collection":"orders","pipeline":[{"$lookup":{"from":"users","localField":"user","foreignField":"_id","as":"u"}}]}`)
	if b, _ := json.Marshal(res); strings.Contains(string(b), "111-11-1111") || !strings.Contains(string(b), `"name":"ada"`) {
		t.Errorf("$lookup: %s", b)
	}
	// $graphLookup too, and its restrictSearchWithMatch cannot test a
	// redacted value: it sees the documents redacted.
	res = f.callTool("aggregate", `{"path":"app.omgdb","collection":"orders","pipeline":[{"$graphLookup":{"from":"users","startWith":"$user","connectFromField":"_id","connectToField":"_id","as":"u"}}]}`)
	if b, _ := json.Marshal(res); strings.Contains(string(b), "111-11-1111") || !strings.Contains(string(b), `"name":"ada"`) {
		t.Errorf("$graphLookup: %s", b)
	}
	res = f.callTool("aggregate", `{"path":"app.omgdb","collection":"orders","pipeline":[{"$graphLookup":{"from":"users","startWith":"$user","connectFromField":"_id","connectToField":"_id","as":"u","restrictSearchWithMatch":{"ssn":{"$regex":"^1"}}}},{"$project":{"n":{"$size":"$u"}}}]}`)
	if b, _ := json.Marshal(res); strings.Contains(string(b), `"n":1`) || errorCode(res) != "" {
		t.Errorf("$graphLookup probing a redacted field: %s", b)
	}
}

// TestAggregate_CollectionPolicy: $lookup and $unionWith cannot reach a
// collection the policy hides.
func TestAggregate_CollectionPolicy(t *testing.T) {
	f := newFixture(t, Config{DenyCollections: []string{"secrets"}})
	makeStore(t, filepath.Join(f.root, "app.omgdb"), map[string][]string{
		"users": {`{"_id":1,"k":1}`}, "secrets": {`{"_id":1,"k":1,"key":"hunter2"}`},
	})
	for _, p := range []string{
		`[{"$lookup":{"from":"secrets","localField":"k","foreignField":"k","as":"s"}}]`,
		`[{"$unionWith":"secrets"}]`,
		`[{"$unionWith":{"coll":"secrets","pipeline":[]}}]`,
		`[{"$facet":{"a":[{"$lookup":{"from":"secrets","pipeline":[],"as":"s"}}]}}]`,
		`[{"$graphLookup":{"from":"secrets","startWith":"$k","connectFromField":"k","connectToField":"k","as":"s"}}]`,
	} {
		res := f.callTool("aggregate", `{"path":"app.omgdb","collection":"users","pipeline":`+p+`}`)
		if errorCode(res) != CodePolicyDenied || strings.Contains(resultText(res), "hunter2") {
			t.Errorf("%s: %s", p, resultText(res))
		}
	}
}

// TestFind_SortedPages: sorted, projected pages follow each other without
// gaps or repeats, and the total is right.
func TestFind_SortedPages(t *testing.T) {
	f := newFixture(t, Config{})
	docs := make([]string, 25)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"_id":%d,"v":%d,"w":"x"}`, i, (i*7)%25)
	}
	makeStore(t, filepath.Join(f.root, "app.omgdb"), map[string][]string{"c": docs})
	var got []string
	cursor := ""
	for {
		sc := structured(t, f.callTool("find", `{"path":"app.omgdb","collection":"c","filter":{"v":{"$gte":5}},"sort":{"v":-1},"project":{"w":0},"limit":6`+cursor+`}`))
		if sc["matched"] != 20.0 {
			t.Fatalf("matched %v", sc["matched"])
		}
		for _, d := range sc["documents"].([]any) {
			m := d.(map[string]any)
			if _, ok := m["w"]; ok {
				t.Fatalf("projection not applied: %v", m)
			}
			got = append(got, fmt.Sprint(m["v"]))
		}
		next, ok := sc["cursor"].(string)
		if !ok {
			break
		}
		cursor = `,"cursor":"` + next + `"`
	}
	var want []string
	for v := 24; v >= 5; v-- {
		want = append(want, fmt.Sprint(v))
	}
	if join(got) != join(want) {
		t.Errorf("got %s\nwant %s", join(got), join(want))
	}
	res := f.callTool("find", `{"path":"app.omgdb","collection":"c","sort":{"v":-1},"cursor":"`+strings.TrimPrefix(strings.TrimSuffix(cursor, `"`), `,"cursor":"`)+`"}`)
	if !strings.Contains(resultText(res), "different query") {
		t.Errorf("a cursor of a filtered query continued an unfiltered one: %s", resultText(res))
	}
}

// TestEmptyReason_Operators: the verdict (the engine's diagnose) names the
// predicate that eliminates everything, with operators too.
func TestEmptyReason_Operators(t *testing.T) {
	f := newFixture(t, Config{})
	f.standardStore()
	for filter, want := range map[string]string{
		`{"city":{"$gt":5}}`:                        "`city` holds string values, not long; written as {\"city\":{\"$gt\":\"5\"}} it matches 3 document(s)",
		`{"city":"Paris","age":{"$gt":100}}`:        "{\"age\":{\"$gt\":100}} matches no document",
		`{"$and":[{"city":"Paris"},{"nam":"ada"}]}`: "no document has field `nam` (did you mean `name`?)",
		`{"city":{"$in":["Pariss"]}}`:               "{\"city\":{\"$in\":[\"Pariss\"]}} matches no document",
		`{"$or":[{"age":99},{"name":"zed"}]}`:       "{\"$or\":[{\"age\":99},{\"name\":\"zed\"}]} matches no document",
		`{"city":"Paris","name":"bob"}`:             "each predicate matches some documents, but none match {\"name\":\"bob\"} together with {\"city\":\"Paris\"}",
		`{"address.zip":{"$exists":true},"age":36}`: "without it, 1 match",
	} {
		sc := structured(t, f.callTool("find", `{"path":"app.omgdb","collection":"users","filter":`+filter+`}`))
		if got, _ := sc["empty_reason"].(string); !strings.Contains(got, want) {
			t.Errorf("%s: empty_reason %q, want %q", filter, got, want)
		}
	}
}

// TestCanned_Pipeline: a canned tool may be a pipeline template.
func TestCanned_Pipeline(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.json")
	writeFile(t, path, `{"tools":[{"name":"city_counts","description":"Users per city, for cities with at least min users.",
		"path":"app.omgdb","collection":"users","scope":"read",
		"parameters":{"min":{"type":"integer","description":"Fewest users","minimum":1,"default":1}},
		"pipeline":[{"$group":{"_id":"$city","n":{"$sum":1}}},{"$match":{"n":{"$gte":{"$param":"min"}}}},{"$sort":{"_id":1}}],
		"reject":{"_id":"Lyon"}}]}`)
	f := newFixture(t, Config{ToolsFile: path})
	f.standardStore()
	sc := structured(t, f.callTool("city_counts", `{"min":2}`))
	if b, _ := json.Marshal(sc["documents"]); string(b) != `[{"_id":"Paris","n":2}]` {
		t.Errorf("city_counts min 2: %s", b)
	}
	if res := f.callTool("city_counts", `{}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("a result matching reject got through: %v", res)
	}
}
