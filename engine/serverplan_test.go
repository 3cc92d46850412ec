package engine_test

import (
	"context"
	"os"
	"strings"
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

// TestServerPlan_Collation: a query explained with a collation shows it
// where a file's plan does (after the filter or the pipeline), as omgdb's
// parser read it; the redacting inspector passes it to the server with
// the pipeline it rewrites; a bad collation is refused before the server.
func TestServerPlan_Collation(t *testing.T) {
	en := value.MustParse(`{"locale":"en","strength":2}`)
	full := `{"locale":"en","caseLevel":false,"caseFirst":"off","strength":2,"numericOrdering":false,"alternate":"non-ignorable","maxVariable":"punct","normalization":false,"backwards":false}`
	for _, c := range []struct {
		q    engine.ExplainQuery
		want string
	}{
		{engine.ExplainQuery{Find: engine.Find{Filter: value.MustParse(`{"name":"ANA"}`), Sort: value.MustParse(`{"name":1}`)}, Collation: en},
			`{"collection":"users","filter":{"name":"ANA"},"collation":` + full + `,"sort":{"name":1},"planner":"server"`},
		{engine.ExplainQuery{Find: engine.Find{Filter: value.MustParse(`{"name":"ANA"}`)}, Count: true, Collation: en},
			`{"collection":"users","filter":{"name":"ANA"},"collation":` + full + `,"count":true,"planner":"server"`},
		{engine.ExplainQuery{Pipeline: value.MustParse(`[{"$sort":{"name":1}}]`), Collation: en},
			`{"collection":"users","pipeline":[{"$sort":{"name":1}}],"collation":` + full + `,"planner":"server"`},
		{engine.ExplainQuery{Find: engine.Find{Filter: value.MustParse(`{}`)}, Collation: value.MustParse(`{"locale":"simple"}`)},
			`{"collection":"users","filter":{},"planner":"server"`},
	} {
		got := engine.ServerPlan("users", &c.q, value.MustParse(`{"ok":1}`))
		js := string(value.AppendEJSON(nil, got, value.EJSONRelaxed))
		if !strings.HasPrefix(js, c.want) {
			t.Errorf("plan:\n got %s\nwant prefix %s", js, c.want)
		}
	}

	rec := &recorder{}
	in := engine.RedactingInspector(rec, func(coll string) []string { return []string{"ssn"} })
	q := engine.ExplainQuery{Find: engine.Find{Filter: value.MustParse(`{"name":"ANA"}`)}, Collation: en}
	if _, err := in.Explain(context.Background(), "users", &q); err != nil {
		t.Fatal(err)
	}
	if value.Compare(rec.q.Collation, en) != 0 || rec.q.Pipeline.IsMissing() {
		t.Errorf("the server was asked %+v; want the redacting pipeline with the collation", rec.q)
	}
	rec.q = nil
	q.Collation = value.MustParse(`{"locale":"en","strenght":2}`)
	_, err := in.Explain(context.Background(), "users", &q)
	if err == nil || !strings.Contains(err.Error(), "unknown field `strenght`") || rec.q != nil {
		t.Errorf("bad collation: %v (server asked: %v)", err, rec.q != nil)
	}
}
