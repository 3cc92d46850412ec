package engine_test

import (
	"os"
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/value"
)

// TestServerPlan_Manual maps explain documents captured from the MongoDB
// manual (the "Analyze Query Performance" tutorial's inventory
// collection, with the quantity_1 and compound indexes; the explain
// results page's slot-based queryPlan form and an aggregate's $cursor
// stage), abridged where the manual abridges them, to the file's plan
// shape.
func TestServerPlan_Manual(t *testing.T) {
	cases := []struct {
		file string
		q    engine.ExplainQuery
		want string
	}{
		{"explain_manual_inventory.json",
			engine.ExplainQuery{Find: engine.Find{Filter: value.MustParse(`{"quantity":{"$gte":100,"$lte":200}}`)}, Execute: true},
			`{"collection":"inventory","filter":{"quantity":{"$gte":100,"$lte":200}},"planner":"server",` +
				`"winningPlan":{"stage":"FETCH","inputStage":{"stage":"IXSCAN","keyPattern":{"quantity":1},"indexName":"quantity_1","isMultiKey":false,"direction":"forward","indexBounds":{"quantity":["[100.0, 200.0]"]}}},` +
				`"rejectedPlans":[],"executionStats":{"nReturned":3,"totalKeysExamined":3,"totalDocsExamined":3,"executionTimeMillis":0}}`},
		{"explain_manual_compound.json",
			engine.ExplainQuery{Find: engine.Find{Filter: value.MustParse(`{"quantity":{"$gte":100,"$lte":300},"type":"food"}`), Sort: value.MustParse(`{"item":1}`), Limit: 5}, Execute: true},
			`{"collection":"inventory","filter":{"quantity":{"$gte":100,"$lte":300},"type":"food"},"sort":{"item":1},"limit":5,"planner":"server",` +
				`"winningPlan":{"stage":"SORT","sortPattern":{"item":1},"inputStage":{"stage":"FETCH","inputStage":{"stage":"IXSCAN","keyPattern":{"quantity":1,"type":1},"indexName":"quantity_1_type_1","isMultiKey":false,"direction":"forward","indexBounds":{"quantity":["[100, 300]"],"type":["[\"food\", \"food\"]"]}}}},` +
				`"sortBy":"memory","rejectedPlans":[{"stage":"IXSCAN","indexName":"type_1_quantity_1","keyPattern":{"type":1,"quantity":1}}],` +
				`"executionStats":{"nReturned":2,"totalKeysExamined":3,"totalDocsExamined":2,"executionTimeMillis":1}}`},
		{"explain_manual_aggregate.json",
			engine.ExplainQuery{Pipeline: value.MustParse(`[{"$match":{"type":"food"}},{"$group":{"_id":"$type","n":{"$sum":1}}}]`), Execute: true},
			`{"collection":"inventory","pipeline":[{"$match":{"type":"food"}},{"$group":{"_id":"$type","n":{"$sum":1}}}],"planner":"server",` +
				`"winningPlan":{"stage":"PROJECTION_SIMPLE","inputStage":{"stage":"COLLSCAN","filter":{"type":{"$eq":"food"}},"direction":"forward"}},` +
				`"rejectedPlans":[],"executionStats":{"nReturned":4,"totalKeysExamined":0,"totalDocsExamined":10,"executionTimeMillis":0}}`},
	}
	for _, c := range cases {
		b, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		raw := value.MustParse(string(b))
		got := engine.ServerPlan("inventory", &c.q, raw)
		server := got.Get("serverExplain")
		for _, k := range []string{"serverInfo", "command", "ok"} {
			if !server.Get(k).IsMissing() {
				t.Errorf("%s: serverExplain keeps %s", c.file, k)
			}
		}
		if value.Compare(server.Get("queryPlanner"), raw.Get("queryPlanner")) != 0 || value.Compare(server.Get("stages"), raw.Get("stages")) != 0 {
			t.Errorf("%s: serverExplain is not the server's plan: %s", c.file, server)
		}
		if js := string(value.AppendEJSON(nil, got.Without("serverExplain"), value.EJSONRelaxed)); js != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.file, js, c.want)
		}
	}
}

// TestServerPlan_Ferret maps FerretDB's SQLite plan lines: a scan, an
// index search, the sort it did in memory, and the note that it gave no
// execution statistics.
func TestServerPlan_Ferret(t *testing.T) {
	q := &engine.ExplainQuery{Find: engine.Find{Filter: value.MustParse(`{"a":1}`), Sort: value.MustParse(`{"b":1}`)}, Execute: true}
	scan := value.MustParse(`{"queryPlanner":{"Plan":["id=2 parent=0 notused=0 detail=SCAN users_5e7cc513"]},"explainVersion":"1","sortPushdown":false,"ok":1.0}`)
	got := engine.ServerPlan("users", q, scan)
	if s := got.Get("winningPlan").Get("stage").Str(); s != "COLLSCAN" {
		t.Errorf("scan: stage %q, want COLLSCAN", s)
	}
	if s := got.Get("sortBy").Str(); s != "memory" {
		t.Errorf("scan: sortBy %q, want memory", s)
	}
	if n := got.Get("notes"); n.Len() != 2 || !got.Get("executionStats").IsMissing() {
		t.Errorf("scan: notes %s, executionStats %s; want two notes and no statistics", n, got.Get("executionStats"))
	}
	search := value.MustParse(`{"queryPlanner":{"Plan":["id=3 parent=0 notused=0 detail=SEARCH users_5e7cc513 USING INDEX users_5e7cc513_a_1 (a=?)"]},"sortPushdown":true}`)
	got = engine.ServerPlan("users", q, search)
	if wp := got.Get("winningPlan"); wp.Get("stage").Str() != "IXSCAN" || wp.Get("indexName").Str() != "users_5e7cc513_a_1" || got.Get("sortBy").Str() != "index" {
		t.Errorf("search: %s", got)
	}
	unknown := engine.ServerPlan("users", q, value.MustParse(`{"ok":1}`))
	if unknown.Get("winningPlan").Get("stage").Str() != "UNKNOWN" {
		t.Errorf("no plan: %s", unknown)
	}
}
